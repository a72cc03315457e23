"""A small JSON-over-HTTP client for the ``opencode serve`` API (stdlib only)."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from typing import Any

__all__ = ["OpencodeClient", "OpencodeError", "OpencodeProtocolError", "OpencodeTimeout"]

USERNAME = "opencode"  # the server's default basic-auth user name


class OpencodeError(Exception):
    """The server could not be reached or answered with an HTTP error."""


class OpencodeTimeout(OpencodeError):
    """The server did not answer before the deadline."""


class OpencodeProtocolError(OpencodeError):
    """The server answered with something that is not the JSON the API documents."""


class OpencodeClient:
    """Calls one server at ``base_url`` with HTTP basic auth. Messages never contain the
    password (it only travels in the ``Authorization`` header)."""

    def __init__(self, base_url: str, password: str) -> None:
        self.base_url = base_url.rstrip("/")
        token = base64.b64encode(f"{USERNAME}:{password}".encode()).decode("ascii")
        self._auth = f"Basic {token}"

    @property
    def authorization(self) -> str:
        """The ``Authorization`` header value (for a stream opened with another client)."""
        return self._auth

    def call(self, method: str, path: str, body: Any = None, *, timeout: float) -> Any:
        """Send ``body`` as JSON and return the decoded JSON answer (``None`` for an empty one).

        Raises :class:`OpencodeTimeout`, :class:`OpencodeProtocolError` or
        :class:`OpencodeError` naming the method and path."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        request.add_header("Authorization", self._auth)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        where = f"{method} {path}"
        try:
            with urllib.request.urlopen(request, timeout=max(timeout, 0.001)) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:300].decode("utf-8", "replace")
            raise OpencodeError(f"{where} answered HTTP {exc.code}: {detail}") from exc
        except TimeoutError as exc:
            raise OpencodeTimeout(f"timeout: {where} gave no answer within {timeout:.1f}s") from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise OpencodeTimeout(
                    f"timeout: {where} gave no answer within {timeout:.1f}s"
                ) from exc
            raise OpencodeError(f"{where} failed: {exc.reason}") from exc
        except (ConnectionError, OSError) as exc:  # e.g. the server died mid-answer
            raise OpencodeError(f"{where} failed: {type(exc).__name__}: {exc}") from exc
        if not raw.strip():
            return None
        try:
            return json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            preview = raw[:120].decode("utf-8", "replace")
            raise OpencodeProtocolError(
                f"{where} answered with something that is not JSON ({exc}): {preview!r}"
            ) from exc
