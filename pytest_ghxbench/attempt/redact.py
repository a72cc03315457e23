"""Keep secrets out of rows, transcripts and reports: redact their values wherever they occur.

Two kinds are redacted: the values of known secrets (variables whose names look like
credentials, the items' sandbox tokens) and anything shaped like a GitHub or model-provider
token (``ghp_``, ``gho_``, ``ghs_``, ``github_pat_``, ``sk-``, ...), whatever variable or file
it came from."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic_core import to_json

REDACTED = "[REDACTED]"
_SECRET_NAME = re.compile(
    r"(TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|_KEY$|CREDENTIAL|AUTH)", re.IGNORECASE
)
_MIN_SECRET_LEN = 8
# Credentials embedded in URLs (https://user:token@host) are redacted even when not in the env.
_URL_CREDENTIALS = re.compile(r"(?<=://)[^/\s:@]+(:[^/\s@]*)?@")
TOKEN_SHAPES = (
    r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9_]{16,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|sk-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|glpat-[A-Za-z0-9_-]{16,})"
)
"""GitHub's tokens (personal, OAuth, user-to-server, installation, refresh, fine-grained), the
model providers' keys (OpenAI's and Anthropic's ``sk-``), Slack's and GitLab's."""


def secret_values_from_env(env: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables whose names look like credentials."""
    env = os.environ if env is None else env
    return [v for k, v in env.items() if _SECRET_NAME.search(k) and len(v) >= _MIN_SECRET_LEN]


class Redactor:
    """Replaces every known secret value in strings and nested containers."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        self._pattern = re.compile(TOKEN_SHAPES)
        self.add(secrets)

    def add(self, secrets: Iterable[str]) -> None:
        fresh = {s for s in secrets if s and len(s) >= _MIN_SECRET_LEN} - self._secrets
        if not fresh:
            return
        self._secrets.update(fresh)
        # Match each secret as it appears raw and as it appears inside a JSON string, so
        # serialised documents can be redacted in one pass (see `json`).
        forms = {form for s in self._secrets for form in (s, compact_json(s)[1:-1])}
        ordered = sorted(forms, key=len, reverse=True)
        self._pattern = re.compile("|".join([*(re.escape(s) for s in ordered), TOKEN_SHAPES]))

    def json(self, value: Any) -> str:
        """``value`` serialised as compact JSON with every secret redacted."""
        return self.text(compact_json(value))

    def text(self, value: str) -> str:
        value = self._pattern.sub(REDACTED, value)
        return _URL_CREDENTIALS.sub(REDACTED + "@", value) if "://" in value else value

    def obj(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.obj(k) if isinstance(k, str) else k: self.obj(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.obj(v) for v in value]
        return value


def compact_json(value: Any) -> str:
    """``value`` as standard compact JSON (no spaces, non-ASCII kept); objects JSON cannot
    represent are written as their ``repr``, and NaN and infinities (which JSON lacks) as
    ``null``."""
    try:
        # pydantic-core's encoder is several times faster than the json module's, which
        # matters because every row and transcript record goes through here.
        return to_json(value, fallback=repr, inf_nan_mode="null").decode()
    except ValueError:  # lone surrogates, bytes that are not UTF-8
        return json.dumps(_finite(value), ensure_ascii=False, separators=(",", ":"), default=repr)


def _finite(value: Any) -> Any:
    """``value`` with NaN and infinities replaced by ``None`` (what ``to_json`` writes)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
