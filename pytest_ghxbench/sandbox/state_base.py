"""The base of the sandbox's state models, and the deterministic node ids they carry."""

from __future__ import annotations

import base64
import hashlib

from pydantic import BaseModel, ConfigDict

__all__ = ["StateModel", "node_id"]


def node_id(prefix: str, *key: object) -> str:
    """A GitHub-looking global node id (``I_kwDO...``), the same for the same prefix and key."""
    digest = hashlib.sha256(":".join(map(str, (prefix, *key))).encode()).digest()
    return f"{prefix}_kwDO{base64.b64encode(digest, altchars=b'-_').decode()[:14]}"


class StateModel(BaseModel):
    # Seeds are hand-written: a misspelled key must be an error, not silently ignored.
    model_config = ConfigDict(extra="forbid")
