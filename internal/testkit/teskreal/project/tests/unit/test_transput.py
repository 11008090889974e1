"""The transput base class: credentials from .netrc and the transfer dispatch."""

import importlib.util
import sys
import types
from pathlib import Path
from types import ModuleType

import pytest
from pyfakefs.fake_filesystem import FakeFilesystem

from tesk_core import path, transput
from tesk_core.transput import Transput, Type


class TestNetrc:
    def test_read_from_home(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        (tmp_path / ".netrc").write_text("machine example.org login user password pw\n")
        monkeypatch.setenv("HOME", str(tmp_path))
        t = Transput("/data/a", "ftp://example.org/a", Type.File)
        assert t.netrc_file is not None
        assert t.netrc_file.authenticators("example.org") == ("user", "", "pw")

    def test_root_without_home(self, fs: FakeFilesystem, monkeypatch: pytest.MonkeyPatch) -> None:
        fs.create_file("/.netrc", contents="machine example.org login root password pw\n")
        monkeypatch.delenv("HOME")
        t = Transput("/data/a", "ftp://example.org/a", Type.File)
        assert t.netrc_file is not None
        assert t.netrc_file.authenticators("example.org") == ("root", "", "pw")

    def test_parse_error_is_logged(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
    ) -> None:
        (tmp_path / ".netrc").write_text("bogus example.org\n")
        monkeypatch.setenv("HOME", str(tmp_path))
        t = Transput("/data/a", "ftp://example.org/a", Type.File)
        assert t.netrc_file is None
        assert "netrc.NetrcParseError" in caplog.text

    def test_missing_is_logged(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
    ) -> None:
        monkeypatch.setenv("HOME", str(tmp_path))
        t = Transput("/data/a", "ftp://example.org/a", Type.File)
        assert t.netrc_file is None
        assert ".netrc" in caplog.text


@pytest.mark.parametrize("direction", ["upload", "download"])
def test_unknown_type_fails(direction: str) -> None:
    t = Transput("/data/a", "http://example.org/a", "LINK")
    assert getattr(t, direction)() == 1


@pytest.mark.parametrize("direction", ["upload", "download"])
@pytest.mark.parametrize("ftype", [Type.File, Type.Directory])
def test_base_class_transfers_nothing(direction: str, ftype: Type) -> None:
    with pytest.raises(NotImplementedError):
        getattr(Transput("/data/a", "http://example.org/a", ftype), direction)()


def test_context_swallows_no_exception() -> None:
    with pytest.raises(ValueError), Transput("/data/a", "http://example.org/a", Type.File):
        raise ValueError


@pytest.mark.parametrize("module", [transput, path], ids=lambda m: m.__name__)
def test_python2_urlparse_fallback(module: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without urllib.parse (Python 2), the module takes urlparse from the urlparse module."""
    py2 = types.ModuleType("urlparse")
    py2.urlparse = lambda url: url  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "urllib.parse", None)  # type: ignore[arg-type]
    monkeypatch.setitem(sys.modules, "urlparse", py2)
    assert module.__file__ is not None
    spec = importlib.util.spec_from_file_location("py2_" + module.__name__, module.__file__)
    assert spec is not None and spec.loader is not None
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)
    assert copy.urlparse is py2.urlparse
