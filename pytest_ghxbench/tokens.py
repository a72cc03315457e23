"""Offline BPE token counting for what an agent sends and receives.

Counts come from ``bpe-openai``: Rust bindings of GitHub's ``bpe-openai`` crate whose wheels
embed the ``cl100k_base`` and ``o200k_base`` vocabularies, so counting never downloads anything
(unlike ``tiktoken``, which fetches its encoding files on first use). Its token ids match
``tiktoken`` exactly; ``tests/sandbox/test_tokens.py`` pins known counts.

Speed (2-core x86_64, Python 3.11): about 13 µs per 1 KB of English/Markdown text with either
encoding, after a one-time ~0.6 s import of ``bpe_openai`` on first use. The import is lazy, so
importing this module costs nothing until the first count.

Chat messages follow one fixed rule (``count_messages``), modelled on the per-message framing
OpenAI documents for its chat models:

* every message costs ``MESSAGE_OVERHEAD`` (3) tokens of framing, plus its ``role``;
* a ``name`` costs its tokens plus ``NAME_OVERHEAD`` (1);
* ``content`` is a string, ``None``, or a list of parts: a part with a string ``text`` costs
  that text, a part with a ``content`` string or list (a tool result) costs that content by
  these same rules, any other part costs its compact JSON;
* each entry of ``tool_calls`` costs ``TOOL_CALL_OVERHEAD`` (3) plus its function name plus
  its arguments (the string as sent, or the compact JSON of a mapping);
* ids (``tool_call_id``, a tool call's ``id``) are transport metadata and cost nothing;
* the whole conversation costs ``REPLY_PRIMING`` (3) more, for the assistant turn the model is
  primed to write (pass ``prime_reply=False`` to count messages that are not a prompt).
"""

from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

__all__ = [
    "DEFAULT_ENCODING",
    "ENCODINGS",
    "MESSAGE_OVERHEAD",
    "NAME_OVERHEAD",
    "REPLY_PRIMING",
    "TOOL_CALL_OVERHEAD",
    "count_json",
    "count_messages",
    "count_tokens",
]

ENCODINGS: tuple[str, ...] = ("cl100k_base", "o200k_base")
"""Encodings available offline: GPT-4/GPT-3.5 (``cl100k_base``) and GPT-4o and later
(``o200k_base``)."""

DEFAULT_ENCODING = "o200k_base"

MESSAGE_OVERHEAD = 3
NAME_OVERHEAD = 1
TOOL_CALL_OVERHEAD = 3
REPLY_PRIMING = 3


class _Tokenizer(Protocol):
    def count(self, text: str) -> int: ...


@functools.cache
def _tokenizer(encoding: str) -> _Tokenizer:
    if encoding not in ENCODINGS:
        raise ValueError(
            f"unknown token encoding {encoding!r}: expected one of {', '.join(ENCODINGS)}"
        )
    # The compiled module is what carries the embedded vocabularies; the package's Python
    # wrapper adds per-call length limits (1M characters, 200k tokens) a counter must not have.
    # Its import reads package data with a deprecated importlib.resources call; that warning
    # is the package's business, not the user's.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from bpe_openai import _bindings  # type: ignore[import-untyped]

    tokenizer: _Tokenizer = _bindings.tokenizer_for_encoding(encoding)
    return tokenizer


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Return the number of BPE tokens in ``text`` under ``encoding`` (see ``ENCODINGS``).

    Special-token text such as ``<|endoftext|>`` is counted as ordinary text. Lone surrogates
    (which cannot be UTF-8 encoded) count as U+FFFD, as ``tiktoken`` does.
    """
    if not isinstance(text, str):
        raise TypeError(f"count_tokens expects str text, got {type(text).__name__}")
    tokenizer = _tokenizer(encoding)
    if not text:
        return 0
    try:
        return tokenizer.count(text)
    except UnicodeEncodeError:
        repaired = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return tokenizer.count(repaired)


def _compact_json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def count_json(value: object, encoding: str = DEFAULT_ENCODING) -> int:
    """Return the tokens of ``value`` serialized as compact JSON (no spaces, UTF-8 kept).

    This is how tool definitions, tool arguments and structured results are counted.
    """
    try:
        text = _compact_json(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"count_json: value is not JSON-serializable: {exc}") from exc
    return count_tokens(text, encoding)


def _content_tokens(content: object, where: str, encoding: str) -> int:
    if content is None:
        return 0
    if isinstance(content, str):
        return count_tokens(content, encoding)
    if isinstance(content, Sequence):
        total = 0
        for index, part in enumerate(content):
            if isinstance(part, str):
                total += count_tokens(part, encoding)
            elif isinstance(part, Mapping):
                if isinstance(part.get("text"), str):
                    total += count_tokens(part["text"], encoding)
                elif isinstance(part.get("content"), (str, list)):
                    total += _content_tokens(part["content"], f"{where}[{index}].content", encoding)
                else:
                    total += count_json(part, encoding)
            else:
                raise TypeError(
                    f"{where}[{index}]: expected a str or a mapping content part, "
                    f"got {type(part).__name__}"
                )
        return total
    raise TypeError(
        f"{where}: expected str, a list of content parts or None, got {type(content).__name__}"
    )


def _tool_call_tokens(call: object, where: str, encoding: str) -> int:
    if not isinstance(call, Mapping):
        raise TypeError(f"{where}: expected a mapping, got {type(call).__name__}")
    function = call.get("function", call)
    if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
        raise TypeError(f"{where}: expected a function name (str) at 'function.name' or 'name'")
    arguments = function.get("arguments", "")
    if arguments is None:
        arguments = ""
    args_tokens = (
        count_tokens(arguments, encoding)
        if isinstance(arguments, str)
        else count_json(arguments, encoding)
    )
    return TOOL_CALL_OVERHEAD + count_tokens(function["name"], encoding) + args_tokens


def count_messages(
    messages: Sequence[Mapping[str, Any]],
    encoding: str = DEFAULT_ENCODING,
    *,
    prime_reply: bool = True,
) -> int:
    """Return the prompt tokens of chat-format ``messages`` by the rule in this module's doc.

    Each message is a mapping with a string ``role`` and optionally ``content``, ``name`` and
    ``tool_calls`` (OpenAI shape: ``{"function": {"name", "arguments"}}``; a flat
    ``{"name", "arguments"}`` is accepted too). Other keys are ignored.
    """
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise TypeError(
            f"count_messages expects a sequence of messages, got {type(messages).__name__}"
        )
    total = REPLY_PRIMING if prime_reply else 0
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, Mapping):
            raise TypeError(f"{where}: expected a mapping, got {type(message).__name__}")
        role = message.get("role")
        if not isinstance(role, str):
            raise TypeError(f"{where}.role: expected a str, got {type(role).__name__}")
        total += MESSAGE_OVERHEAD + count_tokens(role, encoding)
        total += _content_tokens(message.get("content"), f"{where}.content", encoding)
        name = message.get("name")
        if name is not None:
            if not isinstance(name, str):
                raise TypeError(f"{where}.name: expected a str, got {type(name).__name__}")
            total += NAME_OVERHEAD + count_tokens(name, encoding)
        tool_calls = message.get("tool_calls") or ()
        if isinstance(tool_calls, (str, bytes)) or not isinstance(tool_calls, Sequence):
            raise TypeError(f"{where}.tool_calls: expected a list, got {type(tool_calls).__name__}")
        for call_index, call in enumerate(tool_calls):
            total += _tool_call_tokens(call, f"{where}.tool_calls[{call_index}]", encoding)
    return total
