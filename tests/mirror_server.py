"""A real HTTP server on 127.0.0.1 serving a mirror of the benchmarks' official files, for
the tests of `pytest-tom fetch`: each file at its official URL's host and path (the
layout `--mirror URL` reads), from the copies in `../shared/data` (found by their sha256,
so no table of paths is written twice) or from bytes a test gives (a changed file, an
archive it built).

    with MirrorServer() as server:
        server.add_declared(downloads)   # every declared file with a copy in shared/data
        server.put(remote.url, b"...")   # any URL's bytes
        server.mirror                    # http://127.0.0.1:PORT
        server.requests                  # the paths asked for, in order
        server.cut.add(mirror_path(url)) # that file's connection closes halfway

Run alone: `python tests/mirror_server.py --port 8098` serves every declared file that
has a copy (prints the --mirror URL).
"""

from __future__ import annotations

import argparse
import hashlib
import threading
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def shared_copies(folder: Path = SHARED_DATA) -> dict[str, Path]:
    """sha256 -> file, for every file of the shared data folder."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            out[hashlib.sha256(path.read_bytes()).hexdigest()] = path
    return out


def mirror_path(url: str) -> str:
    """Where a mirror holds `url`: `/host/path`, decoded."""
    parts = urlsplit(url)
    return unquote(f"/{parts.netloc}{parts.path}")


class MirrorServer:
    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self.files: dict[str, bytes | Path] = {}
        self.requests: list[str] = []
        self.cut: set[str] = set()  # paths whose body stops halfway (Content-Length: all)
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                path = unquote(urlsplit(self.path).path)
                with server._lock:
                    server.requests.append(path)
                    body = server.files.get(path)
                if body is None:
                    self.send_error(404, "not in this mirror")
                    return
                data = body.read_bytes() if isinstance(body, Path) else body
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Content-Type", "application/octet-stream")
                self.end_headers()
                self.wfile.write(data[:len(data) // 2] if path in server.cut else data)
                if path in server.cut:
                    self.close_connection = True

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def mirror(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def put(self, url: str, body: bytes | Path) -> None:
        self.files[mirror_path(url)] = body

    def add_declared(self, downloads: Iterable[Any], copies: dict[str, Path] | None = None
                     ) -> list[str]:
        """Serve every declared file that has a copy (by sha256); the URLs left out."""
        copies = shared_copies() if copies is None else copies
        missing = []
        for download in downloads:
            for remote in download.files:
                if remote.sha256 in copies:
                    self.put(remote.url, copies[remote.sha256])
                else:
                    missing.append(remote.url)
        return missing

    def __enter__(self) -> MirrorServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


if __name__ == "__main__":  # pragma: no cover
    from pytest_tom import families

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8098)
    cli = parser.parse_args()
    with MirrorServer(port=cli.port) as srv:
        left = srv.add_declared(families.downloads().values())
        print(f"--mirror {srv.mirror}  ({len(srv.files)} files; no copy of: {', '.join(left)})")
        threading.Event().wait()
