"""The run report folders over HTTP on loopback, and the address flows link them at.

A flow run links its report as `<report URL><run folder>/report.html`. The report URL is
`TRAINBUDGET_REPORT_URL` (default http://127.0.0.1:4201/), read when the run publishes;
`trainbudget ui` and `trainbudget serve` serve the report root there when its host is
loopback. Only run folders (those holding a report.html) and the root's index.html are
served: never the ledger, Prefect's home or any dot-file beside them.
"""

from __future__ import annotations

import errno
import html
import io
import os
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from trainbudget.base.errors import InputError

REPORT_URL_ENV = "TRAINBUDGET_REPORT_URL"
DEFAULT_REPORT_PORT = 4201
DEFAULT_REPORT_URL = f"http://127.0.0.1:{DEFAULT_REPORT_PORT}/"
_LOOPBACK = {"127.0.0.1", "localhost"}


def report_base_url() -> str:
    """The report URL (TRAINBUDGET_REPORT_URL or the default), ending in '/'."""
    url = os.environ.get(REPORT_URL_ENV) or DEFAULT_REPORT_URL
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise InputError(f"{REPORT_URL_ENV}: {url!r} is not an http(s) address")
    return url if url.endswith("/") else url + "/"


def report_url(run_folder: Path, *parts: str) -> str:
    """The http address of a file inside a run folder (a folder directly in the report root)."""
    path = "/".join(quote(p) for p in (run_folder.name, *parts))
    return report_base_url() + path


def loopback_address() -> tuple[str, int, str] | None:
    """(host, port, path prefix) to serve the reports at, or None when the report URL is not
    on this machine's loopback (something else serves them there)."""
    parts = urlsplit(report_base_url())
    if parts.scheme != "http" or parts.hostname not in _LOOPBACK:
        return None
    return "127.0.0.1", parts.port or 80, parts.path


class _ReportHandler(SimpleHTTPRequestHandler):
    """Files of run folders under `directory`; the root lists the runs when it has no index."""

    prefix = "/"

    def send_head(self):  # type: ignore[no-untyped-def]
        path = unquote(urlsplit(self.path).path)
        if not path.startswith(self.prefix):
            return self.send_error(404)
        parts = [p for p in path[len(self.prefix) :].split("/") if p]
        root = Path(self.directory)
        folder = path.endswith("/")
        if not parts:
            if not (root / "index.html").is_file():
                return self._listing(root)
            parts, folder = ["index.html"], False  # the root is its index: `/` opens
        elif len(parts) == 1 and folder:
            parts, folder = [parts[0], "report.html"], False  # a run folder is its report
        if any(p.startswith(".") for p in parts) or not _allowed(root, parts):
            return self.send_error(404)
        self.path = "/" + "/".join(quote(p) for p in parts) + ("/" if folder else "")
        return super().send_head()

    def list_directory(self, path):  # type: ignore[no-untyped-def]
        return self.send_error(404)

    def _listing(self, root: Path):  # type: ignore[no-untyped-def]
        folders = root.iterdir() if root.is_dir() else ()
        runs = sorted(p.name for p in folders if (p / "report.html").is_file())
        items = "".join(
            f'<li><a href="{quote(name)}/report.html">{html.escape(name)}</a></li>' for name in runs
        )
        body = (
            '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>trainbudget '
            f"reports</title></head><body><h1>Run reports</h1><ul>{items}</ul></body></html>\n"
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, format, *args):  # type: ignore[no-untyped-def]
        pass


def _allowed(root: Path, parts: list[str]) -> bool:
    if parts == ["index.html"]:
        return True
    if not parts or not (root / parts[0] / "report.html").is_file():
        return False
    target = (root / Path(*parts)).resolve()
    return target.is_relative_to((root / parts[0]).resolve())


def start_report_server(root: Path, host: str, port: int, prefix: str = "/") -> ThreadingHTTPServer:
    """Serve `root`'s run folders at http://host:port<prefix> from a daemon thread.

    Raises OSError (EADDRINUSE) when the port is taken.
    """
    handler = type("ReportHandler", (_ReportHandler,), {"prefix": prefix})
    server = ThreadingHTTPServer((host, port), partial(handler, directory=str(root.resolve())))
    threading.Thread(target=server.serve_forever, name="report-server", daemon=True).start()
    return server


def serve_report_root(root: Path) -> tuple[ThreadingHTTPServer | None, str]:
    """Serve `root` at the report URL when that is on loopback; (server or None, one line
    saying where the reports are)."""
    url = report_base_url()
    address = loopback_address()
    if address is None:
        return None, f"reports: {url} (not a loopback address: served by something else)"
    try:
        server = start_report_server(root, *address)
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
        return None, f"reports: {url} is already served by another process (trainbudget ui?)"
    return server, f"reports: {url}  (from {root.resolve()})"
