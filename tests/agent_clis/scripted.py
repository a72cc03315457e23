"""A scripted model server on loopback for the real agent CLIs.

One server speaks one model API (a :class:`Dialect`: Anthropic Messages, OpenAI Responses or
chat completions, each with its real SSE streaming format). Every request is answered after a
fixed think time with the next :data:`Action` of a script, and every answer reports the same
fixed :class:`Usage`, so a test knows exactly what the runtime must have counted.

The script is a function of what the conversation holds so far (a :class:`Turn`): the outputs
of the tool calls the runtime made. It is a model in miniature: it reads its tool results, so
an answer built from a failed tool call is a wrong answer.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

__all__ = [
    "Action",
    "Answer",
    "Dialect",
    "Failure",
    "McpCall",
    "Script",
    "ScriptedModel",
    "Shell",
    "Turn",
    "Usage",
    "content_text",
    "pieces",
    "send_json",
    "send_sse",
]


@dataclass(frozen=True)
class Usage:
    """What every scripted answer reports. ``input`` excludes cached tokens; a dialect whose API
    counts cached tokens inside its input count adds them (e.g. OpenAI's ``input_tokens``)."""

    input: int = 1000
    output: int = 50
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0


@dataclass(frozen=True)
class Shell:
    """Run a command with the runtime's shell tool (whatever it is called there)."""

    command: str


@dataclass(frozen=True)
class McpCall:
    """Call the MCP tool ``tool`` of the item's server (the runtime's namespaced name is found
    among the offered tools)."""

    tool: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class Answer:
    """The final answer, as text."""

    text: str


@dataclass(frozen=True)
class Failure:
    """The API refuses the request with ``status`` and ``message``, in its own error format."""

    status: int
    message: str


Action = Shell | McpCall | Answer | Failure


@dataclass
class Turn:
    """What one request shows the model: the outputs of the tool calls made so far, oldest
    first, and the names of the tools offered."""

    tool_results: list[str] = field(default_factory=list)
    tool_names: list[str] = field(default_factory=list)


Script = Callable[[Turn], Action]


class Dialect(Protocol):
    """One model API: how to read a request and how to stream an action back."""

    name: str
    post_paths: tuple[str, ...]
    """POST paths answered from the script (e.g. ``("/v1/messages",)``)."""

    def parse(self, body: Mapping[str, Any]) -> Turn: ...

    def respond(
        self, handler: BaseHTTPRequestHandler, action: Action, usage: Usage, index: int
    ) -> None:
        """Write the HTTP response for ``action`` (the ``index``-th scripted request, from 0)."""
        ...


def content_text(content: Any) -> str:
    """The text of a message's ``content`` as the APIs send it: a string, or a list of parts
    of which the ``{"type": "text"}`` ones carry text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def pieces(text: str, size: int = 24) -> list[str]:
    """``text`` cut into the small deltas a stream sends (one empty piece for no text)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def send_sse(handler: BaseHTTPRequestHandler, events: list[tuple[str | None, Any]]) -> None:
    """An ``text/event-stream`` response: each ``(event name or None, data)`` as one SSE event
    (``data`` JSON-encoded unless it is a string), flushed as it is written."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Connection", "close")
    handler.end_headers()
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        chunk = (f"event: {name}\n" if name else "") + f"data: {text}\n\n"
        handler.wfile.write(chunk.encode("utf-8"))
        handler.wfile.flush()
    handler.close_connection = True


def send_json(handler: BaseHTTPRequestHandler, status: int, body: Any) -> None:
    payload = json.dumps(body).encode("utf-8")
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


@dataclass
class Exchange:
    """One request the server answered from the script. ``received`` and ``replied`` are
    :func:`time.monotonic` instants (the clock the harness times runtimes with, shared by
    every process of the machine): the request had arrived, and the think time was over and
    the answer about to be written."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    turn: Turn
    action: Action
    received: float = 0.0
    replied: float = 0.0


class ScriptedModel:
    """A loopback model server: ``dialect`` answers ``script``'s actions after ``think_s``.

    ``exchanges`` records every scripted request; ``other_requests`` every other request (a
    runtime's probes: ``HEAD /``, ``GET /v1/models``), which get an empty 200.
    """

    def __init__(
        self, dialect: Dialect, script: Script, usage: Usage = Usage(), think_s: float = 0.0
    ) -> None:
        self.dialect = dialect
        self.script = script
        self.usage = usage
        self.think_s = think_s
        self.exchanges: list[Exchange] = []
        self.other_requests: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _other(self) -> None:
                server.other_requests.append((self.command, self.path))
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                if self.command == "HEAD":
                    self.send_response(200)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                send_json(self, 200, {"object": "list", "data": []})

            do_GET = do_HEAD = _other

            def do_POST(self) -> None:
                path = self.path.split("?", 1)[0]
                if path not in server.dialect.post_paths:
                    self._other()
                    return
                received = time.monotonic()
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                turn = server.dialect.parse(body)
                action = server.script(turn)
                headers = {k.lower(): v for k, v in self.headers.items()}
                exchange = Exchange(path, headers, body, turn, action, received)
                with server._lock:
                    index = len(server.exchanges)
                    server.exchanges.append(exchange)
                if server.think_s:
                    time.sleep(server.think_s)
                exchange.replied = time.monotonic()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    server.dialect.respond(self, action, server.usage, index)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def answers(self) -> int:
        """Scripted requests answered so far (the model requests the runtime made)."""
        return len(self.exchanges)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> ScriptedModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
