"""A local FTP server for the filer's FTP tests.

It stands in for pytest-localftpserver's ``ftpserver`` fixture (the parts the tests use:
``get_login_data`` and ``put_files``), on pyftpdlib, which pytest-localftpserver wraps as
well. The server runs in its own process: pyftpdlib changes the working directory as it
serves, and some tests fake the filesystem (pyfakefs) while it runs.
"""

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

USER = "user"
PASSWORD = "pass"

SERVE = f"""
import sys, tempfile
from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.handlers import FTPHandler
from pyftpdlib.servers import FTPServer
home = tempfile.mkdtemp()
authorizer = DummyAuthorizer()
authorizer.add_user({USER!r}, {PASSWORD!r}, home, perm="elradfmwMT")
FTPHandler.authorizer = authorizer
server = FTPServer(("127.0.0.1", 0), FTPHandler)
print(server.socket.getsockname()[1], home, flush=True)
server.serve_forever()
"""


class LocalFTPServer:
    """An FTP server on localhost, serving a temporary home directory."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", SERVE],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        port, self.home = self.process.stdout.readline().split(maxsplit=1)
        self.home = self.home.strip()
        self.port = int(port)

    def get_login_data(self) -> dict[str, Any]:
        """Return where and as whom to log in."""
        return {"host": "localhost", "port": self.port, "user": USER, "passwd": PASSWORD}

    def put_files(self, files: dict[str, str]) -> None:
        """Copy a local file (``src``) into the server's home (``dest``)."""
        dest = os.path.join(self.home, files["dest"])
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy(files["src"], dest)

    def stop(self) -> None:
        """Stop the server and remove its home directory."""
        self.process.terminate()
        self.process.wait()
        shutil.rmtree(self.home, ignore_errors=True)


@pytest.fixture
def ftpserver(request: pytest.FixtureRequest) -> Iterator[LocalFTPServer]:
    """Serve FTP on localhost for one test, outside any fake filesystem of the test."""
    fake = request.getfixturevalue("fs") if "fs" in request.fixturenames else None
    with real_filesystem(fake):
        server = LocalFTPServer()
    yield server
    with real_filesystem(fake):
        server.stop()


@contextlib.contextmanager
def real_filesystem(fake: Any) -> Iterator[None]:
    """Pause pyfakefs's fake filesystem, if any, for the block."""
    if fake is None:
        yield
        return
    fake.pause()
    try:
        yield
    finally:
        fake.resume()
