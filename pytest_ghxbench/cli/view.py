"""``ghxbench view [RUN]``: serve a run directory on loopback and open its report.

The run's ``report.html`` holds no transcripts: each item links to its records in the run's
``transcripts/`` files, and the page's script fetches them from the server that serves the run
directory. This command is that server: a small HTTP server on 127.0.0.1 (an ephemeral port, or
``--port``) that serves the run directory's files and answers a transcripts file asked for with
``?item=<item id>`` with that item's records only, so opening a transcript reads one item's
lines, not the whole file. It opens the browser at the report (unless ``--no-browser``, or
there is no display) and serves until Ctrl-C. ``--print`` only prints the report's path.
"""

from __future__ import annotations

import argparse
import http.server
import os
import sys
import webbrowser
from collections.abc import Callable
from functools import partial
from http import HTTPStatus
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import parse_qs, urlsplit

from pytest_ghxbench.cli.exits import EXIT_OK, EXIT_USAGE, UsageError
from pytest_ghxbench.cli.report_args import add_results_argument
from pytest_ghxbench.records.store import LATEST, RunDir, RunNotFound, resolve_run

__all__ = ["RunServer", "add_view_arguments", "run_view", "serve_run"]

LOOPBACK = "127.0.0.1"
_LOCAL_NAMES = {"127.0.0.1", "localhost", "[::1]"}
_TEXT = "text/plain; charset=utf-8"


def add_view_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run",
        nargs="?",
        default=LATEST,
        metavar="RUN",
        help="run id (under --results) or run directory (default: latest)",
    )
    add_results_argument(parser)
    parser.add_argument(
        "--print",
        action="store_true",
        help="only print the report's path (rendering it if it is missing); serve nothing",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=0,
        metavar="PORT",
        help="port on 127.0.0.1 to serve the run directory on (default: any free port)",
    )
    parser.add_argument(
        "--no-browser",
        action="store_true",
        help="serve and print the address, but do not open a browser",
    )


class _Handler(http.server.SimpleHTTPRequestHandler):
    """The run directory's files; a transcripts file with ``?item=`` gives that item's records.
    Only requests addressed to a loopback name are answered (a web page cannot reach the run's
    files by pointing a name of its own at 127.0.0.1)."""

    run: RunDir
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".jsonl": _TEXT,
        ".md": _TEXT,
        ".json": "application/json",
    }

    def __init__(self, *args: Any, run: RunDir, **kwargs: Any) -> None:
        self.run = run
        super().__init__(*args, directory=str(run.path), **kwargs)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def _local(self) -> bool:
        host = (self.headers.get("Host") or "").strip().lower()
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if name in _LOCAL_NAMES:
            return True
        self.send_error(HTTPStatus.FORBIDDEN, "only loopback addresses are served")
        return False

    def do_HEAD(self) -> None:
        if self._local():
            super().do_HEAD()

    def do_GET(self) -> None:
        if not self._local():
            return
        url = urlsplit(self.path)
        if url.path in ("", "/"):
            self.send_response(HTTPStatus.FOUND)
            self.send_header("Location", "/report.html")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if url.path == "/favicon.ico":
            self.send_response(HTTPStatus.NO_CONTENT)
            self.end_headers()
            return
        item = parse_qs(url.query).get("item")
        if item and url.path.startswith("/transcripts/") and url.path.endswith(".jsonl"):
            self._send_item(item[0])
            return
        super().do_GET()

    def _send_item(self, item_id: str) -> None:
        from pytest_ghxbench.records.reading import item_transcript

        body = item_transcript(self.run, item_id)
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", _TEXT)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass  # one line per request would bury the address; errors are still logged


class RunServer(http.server.ThreadingHTTPServer):
    """The run directory served on loopback; :attr:`url` is where."""

    daemon_threads = True  # a browser's open connection never holds up Ctrl-C
    block_on_close = False

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.server_address[1]}/"


def serve_run(run: RunDir, port: int = 0) -> RunServer:
    """A server for ``run``'s directory bound on 127.0.0.1:``port`` (0: any free port); call
    ``serve_forever`` to answer requests and ``server_close`` when done."""
    return RunServer((LOOPBACK, port), partial(_Handler, run=run))


def _can_open_a_browser() -> bool:
    # Without a display webbrowser falls back to text browsers that take over the terminal.
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _report(args: argparse.Namespace) -> RunDir:
    """The run, with its report rendered if it has none yet."""
    from pytest_ghxbench.render.html.run_report import write_run_report

    try:
        run = resolve_run(args.results, args.run)
    except RunNotFound as exc:
        raise UsageError(str(exc)) from None
    if not run.report_html.is_file():
        try:
            write_run_report(run)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    return run


def run_view(
    args: argparse.Namespace,
    *,
    out: TextIO | None = None,
    open_browser: Callable[[str], object] = webbrowser.open,
) -> int:
    """Serve the run's directory and open its report until Ctrl-C (exit 0); with ``--print``
    only print the report's path. A run that cannot be found or a port that cannot be bound
    is a usage error (4)."""
    out = out or sys.stdout
    try:
        run = _report(args)
        if args.print:
            print(run.report_html.resolve(), file=out)
            return EXIT_OK
        try:
            server = serve_run(run, args.port)
        except OSError as exc:
            raise UsageError(f"cannot serve on {LOOPBACK}:{args.port}: {exc.strerror}") from None
    except UsageError as exc:
        print(f"ghxbench view: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    url = server.url + "report.html"
    with server:
        print(f"serving {Path(run.path).resolve()} at {url} (Ctrl-C stops)", file=out, flush=True)
        try:
            if not args.no_browser and _can_open_a_browser():
                open_browser(url)
            server.serve_forever()
        except KeyboardInterrupt:
            print("stopped", file=out, flush=True)
    return EXIT_OK
