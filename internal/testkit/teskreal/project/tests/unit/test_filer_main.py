"""The filer's entry point: it processes every input or output of a task, stopping at a failure."""

import gzip
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from pytest_mock import MockerFixture

from tesk_core import filer


def run(monkeypatch: pytest.MonkeyPatch, *argv: str) -> int:
    monkeypatch.setattr("sys.argv", ["filer", *argv])
    return filer.main()


def test_inputs_with_content_are_written(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, mocker: MockerFixture
) -> None:
    log = mocker.patch.object(filer, "logConfig")
    data = {
        "inputs": [
            {"path": str(tmp_path / "a.txt"), "content": "first", "type": "FILE"},
            {"path": str(tmp_path / "b.txt"), "content": 2, "type": "FILE"},
        ]
    }
    assert run(monkeypatch, "inputs", json.dumps(data)) == 0
    assert (tmp_path / "a.txt").read_text() == "first"
    assert (tmp_path / "b.txt").read_text() == "2"
    log.assert_called_once_with(logging.ERROR)


def test_gzipped_data_and_debug(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, mocker: MockerFixture
) -> None:
    log = mocker.patch.object(filer, "logConfig")
    data = {"outputs": [{"path": str(tmp_path / "out.txt"), "content": "x", "type": "FILE"}]}
    request = tmp_path / "JSON_INPUT.gz"
    request.write_bytes(gzip.compress(json.dumps(data).encode()))
    assert run(monkeypatch, "outputs", str(request), "--debug") == 0
    assert (tmp_path / "out.txt").read_text() == "x"
    log.assert_called_once_with(logging.DEBUG)


def test_stops_at_the_first_failure(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, mocker: MockerFixture
) -> None:
    mocker.patch.object(filer, "logConfig")
    get = mocker.patch("requests.get")
    get.return_value.status_code = 404
    data: dict[str, Any] = {
        "inputs": [
            {"path": str(tmp_path / "a"), "url": "http://example.org/a", "type": "FILE"},
            {"path": str(tmp_path / "b"), "content": "never", "type": "FILE"},
        ]
    }
    assert run(monkeypatch, "inputs", json.dumps(data)) == 1
    get.assert_called_once_with("http://example.org/a")
    assert not (tmp_path / "a").exists()
    assert not (tmp_path / "b").exists()


def test_log_config_logs_to_stdout(mocker: MockerFixture) -> None:
    basic = mocker.patch("logging.basicConfig")
    filer.logConfig(logging.INFO)
    assert basic.call_args.kwargs["level"] == logging.INFO
    assert basic.call_args.kwargs["stream"] is filer.sys.stdout


def test_process_file_of_unknown_transput_type_does_nothing(
    tmp_path: Path, mocker: MockerFixture
) -> None:
    get = mocker.patch("requests.get")
    put = mocker.patch("requests.put")
    filedata = {"path": str(tmp_path / "a"), "url": "http://example.org/a", "type": "FILE"}
    assert filer.process_file("logs", filedata) == 0
    get.assert_not_called()
    put.assert_not_called()
