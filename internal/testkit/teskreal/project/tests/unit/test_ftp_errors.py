"""The filer's FTP error paths, on a mocked connection (ftplib.FTP)."""

import ftplib
import os
from pathlib import Path
from unittest.mock import MagicMock, call

import pytest
from pytest_mock import MockerFixture

from tesk_core.filer import (
    FTPTransput,
    Type,
    ftp_check_directory,
    ftp_login,
    ftp_make_dirs,
)


@pytest.fixture
def conn() -> MagicMock:
    conn = MagicMock(spec=ftplib.FTP)
    conn.host = "example.org"
    conn.pwd.return_value = "/home"
    return conn


class TestLogin:
    def test_netrc_credentials(self, conn: MagicMock) -> None:
        netrc_file = MagicMock()
        netrc_file.authenticators.return_value = ("user", None, "pw")
        ftp_login(conn, "example.org", netrc_file)
        netrc_file.authenticators.assert_called_once_with("example.org")
        conn.login.assert_called_once_with("user", "pw")

    def test_host_not_in_netrc_is_anonymous(self, conn: MagicMock) -> None:
        netrc_file = MagicMock()
        netrc_file.authenticators.return_value = None
        ftp_login(conn, "example.org", netrc_file)
        conn.login.assert_called_once_with()

    def test_refused_credentials_fall_back_to_anonymous(self, conn: MagicMock) -> None:
        netrc_file = MagicMock()
        netrc_file.authenticators.return_value = ("user", None, "wrong")
        conn.login.side_effect = [ftplib.error_perm("530 Login incorrect"), None]
        ftp_login(conn, "example.org", netrc_file)
        assert conn.login.call_args_list == [call("user", "wrong"), call()]


class TestCheckDirectory:
    def test_no_working_directory(self, conn: MagicMock) -> None:
        conn.pwd.return_value = ""
        assert ftp_check_directory(conn, "/up/a.txt") == 1
        conn.cwd.assert_not_called()

    def test_directory(self, conn: MagicMock) -> None:
        assert ftp_check_directory(conn, "/up") == 0
        assert conn.cwd.call_args_list == [call("/up"), call("/home")]

    @pytest.mark.parametrize("error", [ftplib.error_reply, ftplib.error_temp])
    def test_check_fails(self, conn: MagicMock, error: type[Exception]) -> None:
        conn.cwd.side_effect = error("4xx")
        assert ftp_check_directory(conn, "/up/a.txt") == 1

    def test_cannot_return(self, conn: MagicMock) -> None:
        conn.cwd.side_effect = [None, ftplib.error_perm("550")]
        assert ftp_check_directory(conn, "/up") == 1


class TestMakeDirs:
    def test_no_working_directory(self, conn: MagicMock) -> None:
        conn.pwd.return_value = ""
        assert ftp_make_dirs(conn, "/a/b") == 1
        conn.mkd.assert_not_called()

    def test_creates_the_missing_folders(self, conn: MagicMock) -> None:
        conn.cwd.side_effect = [ftplib.error_perm("550"), None, ftplib.error_perm("550"), None]
        assert ftp_make_dirs(conn, "/a/b") == 0
        conn.mkd.assert_called_once_with("/a/b")
        assert conn.cwd.call_args_list[-1] == call("/home")

    def test_mkd_fails(self, conn: MagicMock) -> None:
        conn.cwd.side_effect = ftplib.error_perm("550")
        conn.mkd.side_effect = ftplib.error_perm("550 Permission denied")
        assert ftp_make_dirs(conn, "/a/b") == 1
        conn.mkd.assert_called_once_with("/a")

    def test_unexpected_reply_while_walking(self, conn: MagicMock) -> None:
        conn.cwd.side_effect = [ftplib.error_perm("550"), ftplib.error_reply("1xx")]
        assert ftp_make_dirs(conn, "/a/b") == 1
        conn.mkd.assert_not_called()

    def test_cannot_return(self, conn: MagicMock) -> None:
        conn.cwd.side_effect = [ftplib.error_perm("550"), None, None, ftplib.error_temp("421")]
        assert ftp_make_dirs(conn, "/a/b") == 1


class TestUploadFile:
    def test_remote_directories_cannot_be_made(self, conn: MagicMock, tmp_path: Path) -> None:
        conn.pwd.return_value = ""
        t = FTPTransput(str(tmp_path / "a.txt"), "ftp://example.org/up/a.txt", Type.File, conn)
        assert t.upload() == 1
        conn.storbinary.assert_not_called()

    def test_destination_is_a_directory(self, conn: MagicMock, tmp_path: Path) -> None:
        t = FTPTransput(str(tmp_path / "a.txt"), "ftp://example.org/up/a", Type.File, conn)
        assert t.upload() == 1
        conn.storbinary.assert_not_called()


class TestUploadDir:
    def test_special_file_is_refused(self, conn: MagicMock, tmp_path: Path) -> None:
        os.mkfifo(tmp_path / "fifo")
        t = FTPTransput(str(tmp_path), "ftp://example.org/up", Type.Directory, conn)
        assert t.upload() == 1

    def test_stops_at_the_first_failed_upload(self, tmp_path: Path, mocker: MockerFixture) -> None:
        ftp = mocker.patch("tesk_core.filer.FTP")
        mocker.patch("tesk_core.filer.ftp_login")
        upload = mocker.patch.object(FTPTransput, "upload_file", return_value=1)
        (tmp_path / "a.txt").write_text("a")
        (tmp_path / "b.txt").write_text("b")
        t = FTPTransput(str(tmp_path), "ftp://example.org/up", Type.Directory, MagicMock())
        assert t.upload() == 1
        upload.assert_called_once_with()
        ftp.return_value.close.assert_called_once_with()


def test_download_dir_stops_at_the_first_failed_download(
    conn: MagicMock, tmp_path: Path, mocker: MockerFixture
) -> None:
    listing = [
        "-rw-r--r-- 1 owner group 3 Jan 01 10:00 a.txt",
        "-rw-r--r-- 1 owner group 3 Jan 01 10:00 b.txt",
    ]
    conn.retrlines.side_effect = lambda command, callback: [callback(line) for line in listing]
    download = mocker.patch.object(FTPTransput, "download_file", return_value=1)
    t = FTPTransput(str(tmp_path), "ftp://example.org/dir", Type.Directory, conn)
    assert t.download() == 1
    conn.cwd.assert_called_once_with("/dir")
    download.assert_called_once_with()
