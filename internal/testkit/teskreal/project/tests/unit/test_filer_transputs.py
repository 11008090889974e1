"""HTTP and file transputs: the cases the real tests leave out."""

import os
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from tesk_core.filer import HTTPTransput, Type, copyFile


def test_http_upload_dir_refuses_a_special_file(tmp_path: Path, mocker: MockerFixture) -> None:
    put = mocker.patch("requests.put")
    os.mkfifo(tmp_path / "fifo")
    transput = HTTPTransput(str(tmp_path), "http://example.org/up", Type.Directory)
    assert transput.upload() == 1
    put.assert_not_called()


def test_http_upload_dir_uploads_files_and_subdirectories(
    tmp_path: Path, mocker: MockerFixture
) -> None:
    put = mocker.patch("requests.put")
    put.return_value.status_code = 201
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("b")
    (tmp_path / "a.txt").write_text("a")
    transput = HTTPTransput(str(tmp_path), "http://example.org/up", Type.Directory)
    assert transput.upload() == 0
    assert sorted(c.args[0] for c in put.call_args_list) == [
        "http://example.org/up/a.txt",
        "http://example.org/up/sub/b.txt",
    ]


def test_http_download_dir_is_refused(
    tmp_path: Path, mocker: MockerFixture, caplog: pytest.LogCaptureFixture
) -> None:
    get = mocker.patch("requests.get")
    transput = HTTPTransput(str(tmp_path), "http://example.org/dir", Type.Directory)
    assert transput.download() == 1
    get.assert_not_called()
    assert "Won't crawl http directory" in caplog.text


class TestCopyFile:
    def test_glob_source_into_a_starred_destination(self, tmp_path: Path) -> None:
        src, dst = tmp_path / "src", tmp_path / "dst"
        src.mkdir()
        dst.mkdir()
        for name in ("a.txt", "b.txt", "c.log"):
            (src / name).write_text(name)
        copyFile(str(src / "*.txt"), str(dst / "*"))
        assert sorted(p.name for p in dst.iterdir()) == ["a.txt", "b.txt"]
        assert (dst / "a.txt").read_text() == "a.txt"

    def test_plain_file(self, tmp_path: Path) -> None:
        (tmp_path / "a.txt").write_text("a")
        copyFile(str(tmp_path / "a.txt"), str(tmp_path / "b.txt"))
        assert (tmp_path / "b.txt").read_text() == "a"
