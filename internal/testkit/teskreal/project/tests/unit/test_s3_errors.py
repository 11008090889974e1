"""The S3 transput's error paths, on moto's S3."""

import os
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto import mock_aws
from pytest_mock import MockerFixture

from tesk_core.filer_s3 import S3Transput


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        bucket = boto3.resource("s3").create_bucket(Bucket="tesk")
        bucket.put_object(Key="dir/a.txt", Body=b"a")
        bucket.put_object(Key="dir/b.txt", Body=b"b")
        yield


def test_missing_bucket_exits(s3: None, tmp_path: Path) -> None:
    transput = S3Transput(str(tmp_path / "a.txt"), "s3://missing/a.txt", "FILE")
    with pytest.raises(SystemExit) as exit, transput:
        pass
    assert exit.value.code == 1


def test_upload_dir_stops_at_the_first_failed_upload(
    s3: None, tmp_path: Path, mocker: MockerFixture
) -> None:
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "b.txt").write_text("b")
    upload = mocker.patch.object(S3Transput, "upload_file", return_value=1)
    with S3Transput(str(tmp_path), "s3://tesk/up", "DIRECTORY") as transput:
        assert transput.upload_dir() == 1
    upload.assert_called_once_with()
    assert "Contents" not in boto3.client("s3").list_objects_v2(Bucket="tesk", Prefix="up/")


def test_download_dir_stops_at_the_first_failed_download(
    s3: None, tmp_path: Path, mocker: MockerFixture
) -> None:
    get = mocker.patch.object(S3Transput, "get_s3_file", return_value=1)
    with S3Transput(str(tmp_path), "s3://tesk/dir", "DIRECTORY") as transput:
        assert transput.download_dir() == 1
    get.assert_called_once_with(os.path.join(str(tmp_path), "a.txt"), "dir/a.txt")


def test_download_dir(s3: None, tmp_path: Path) -> None:
    with S3Transput(str(tmp_path), "s3://tesk/dir", "DIRECTORY") as transput:
        assert transput.download_dir() == 0
    assert (tmp_path / "a.txt").read_text() == "a"
    assert (tmp_path / "b.txt").read_text() == "b"
