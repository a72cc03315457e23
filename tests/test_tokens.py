"""The offline BPE counter: exact counts that match OpenAI's tokenizers, and no network."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap

import pytest

from pytest_ghxbench import tokens
from pytest_ghxbench.tokens import (
    ENCODINGS,
    count_json,
    count_messages,
    count_tokens,
)

# Token ids published for tiktoken (and reproduced by tiktoken itself): cl100k "hello world" is
# [15339, 1917], o200k "hello world" is [24912, 2375]; "tiktoken is great!" is 6 tokens in both.
KNOWN_COUNTS = [
    ("cl100k_base", "hello world", 2),
    ("o200k_base", "hello world", 2),
    ("cl100k_base", "tiktoken is great!", 6),
    ("o200k_base", "tiktoken is great!", 6),
    ("cl100k_base", "Hello, world!", 4),
    ("o200k_base", "Hello, world!", 4),
    # Japanese splits differently: o200k's larger vocabulary holds more CJK merges.
    ("cl100k_base", "日本語のテキスト", 8),
    ("o200k_base", "日本語のテキスト", 6),
    ("cl100k_base", "👋🏽 emoji", 7),
    ("o200k_base", "👋🏽 emoji", 5),
]


def test_encodings_on_offer() -> None:
    assert ENCODINGS == ("cl100k_base", "o200k_base")


@pytest.mark.parametrize(("encoding", "text", "expected"), KNOWN_COUNTS)
def test_known_counts(encoding: str, text: str, expected: int) -> None:
    assert count_tokens(text, encoding) == expected


def test_default_encoding_is_o200k() -> None:
    # "日本語のテキスト" tells the two encodings apart (6 vs 8).
    assert count_tokens("日本語のテキスト") == 6


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_empty_string_is_zero_tokens(encoding: str) -> None:
    assert count_tokens("", encoding) == 0


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_special_token_text_counts_as_ordinary_text(encoding: str) -> None:
    # "<|endoftext|>" must not be swallowed as one special token nor rejected.
    assert count_tokens("<|endoftext|>", encoding) == 7


def test_lone_surrogate_counts_as_replacement_character() -> None:
    assert count_tokens("\ud83d") == count_tokens("\ufffd") == 1
    # A surrogate pair kept as two code points is the emoji it spells.
    assert count_tokens("\ud83d\ude00") == count_tokens("😀")


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_large_text_is_counted_whole(encoding: str) -> None:
    # "hello world " repeats as "hello", then " world"/" hello" pairs, then a trailing " ":
    # 2 tokens per repetition plus 1. 1.2 million characters: past any per-call length limit.
    text = "hello world " * 100_000
    assert len(text) == 1_200_000
    assert count_tokens(text, encoding) == 200_001


def test_unknown_encoding_is_named_in_the_error() -> None:
    with pytest.raises(ValueError, match=r"unknown token encoding 'p50k_base'.*o200k_base"):
        count_tokens("hello", "p50k_base")


def test_non_text_is_rejected() -> None:
    with pytest.raises(TypeError, match="expects str text, got bytes"):
        count_tokens(b"hello")  # type: ignore[arg-type]


def test_counts_with_sockets_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: object, **kwargs: object) -> socket.socket:
        raise OSError("network access attempted while counting tokens")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    tokens._tokenizer.cache_clear()
    assert count_tokens("hello world", "cl100k_base") == 2
    assert count_tokens("hello world", "o200k_base") == 2


def test_fresh_process_loads_nothing_from_the_network(tmp_path: object) -> None:
    # An audit hook sees every socket and URL opened by any code, native or Python; it runs
    # before the tokenizer package is first imported, so loading its vocabularies is covered.
    script = textwrap.dedent(
        """
        import sys

        def refuse_network(event, args):
            if event.startswith(("socket.", "urllib.")):
                raise RuntimeError("network access: " + event)

        sys.addaudithook(refuse_network)
        from pytest_ghxbench.tokens import count_tokens
        print(count_tokens("hello world", "cl100k_base"), count_tokens("日本語のテキスト"))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "6"]


def test_json_is_counted_compact() -> None:
    # '{"a":1}' is '{"', 'a', '":', '1', '}' in o200k: 5 tokens; spaces would add more.
    assert count_json({"a": 1}) == count_tokens('{"a":1}') == 5
    assert count_json({"a": 1}) < count_tokens('{ "a" : 1 }')
    # Non-ASCII stays literal rather than becoming \\u escapes (which cost extra tokens).
    assert count_json("日本語のテキスト") == count_tokens('"日本語のテキスト"')


def test_json_that_cannot_serialize_is_rejected() -> None:
    with pytest.raises(TypeError, match="not JSON-serializable"):
        count_json({"when": object()})


class TestMessages:
    def test_single_user_message(self) -> None:
        # 3 reply priming + 3 framing + "user" (1) + "hello world" (2)
        assert count_messages([{"role": "user", "content": "hello world"}]) == 9

    def test_without_reply_priming(self) -> None:
        messages = [{"role": "user", "content": "hello world"}]
        assert count_messages(messages, prime_reply=False) == 6

    def test_empty_conversation_is_just_the_priming(self) -> None:
        assert count_messages([]) == 3

    def test_name_costs_one_more_than_its_text(self) -> None:
        # "get_me" is 2 tokens; a name adds 1 on top.
        named = {"role": "user", "content": "hello world", "name": "get_me"}
        assert count_messages([named]) == 9 + 1 + 2

    def test_tool_call_and_result(self) -> None:
        messages: list[dict[str, object]] = [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_abc123",
                        "type": "function",
                        "function": {"name": "get_me", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_abc123", "content": "hello world"},
        ]
        # priming 3
        # + assistant: framing 3 + role 1 + call (3 + name 2 + "{}" 1)
        # + tool: framing 3 + role 1 + content 2    (ids cost nothing)
        assert count_messages(messages) == 3 + (3 + 1 + 6) + (3 + 1 + 2)

    def test_mapping_arguments_count_as_compact_json(self) -> None:
        call = {"name": "get_me", "arguments": {"a": 1}}
        message = {"role": "assistant", "tool_calls": [call]}
        # 3 + framing 3 + role 1 + call (3 + 2 + '{"a":1}' 5)
        assert count_messages([message]) == 3 + 3 + 1 + 10

    def test_content_parts(self) -> None:
        parts = [
            {"type": "text", "text": "hello world"},
            {"type": "tool_result", "content": [{"type": "text", "text": "hello world"}]},
            "hello world",
        ]
        assert count_messages([{"role": "user", "content": parts}]) == 3 + 3 + 1 + 2 + 2 + 2

    def test_encoding_is_applied_to_every_field(self) -> None:
        message = {"role": "user", "content": "日本語のテキスト"}
        assert count_messages([message], "cl100k_base") == 3 + 3 + 1 + 8
        assert count_messages([message], "o200k_base") == 3 + 3 + 1 + 6

    @pytest.mark.parametrize(
        ("messages", "message"),
        [
            ("hello", "expects a sequence of messages, got str"),
            (["hello"], r"messages\[0\]: expected a mapping, got str"),
            ([{"content": "x"}], r"messages\[0\]\.role: expected a str, got NoneType"),
            ([{"role": "user", "content": 3}], r"messages\[0\]\.content: expected str"),
            ([{"role": "user", "content": [3]}], r"messages\[0\]\.content\[0\]: expected a str"),
            ([{"role": "user", "name": 1}], r"messages\[0\]\.name: expected a str, got int"),
            (
                [{"role": "assistant", "tool_calls": [{"function": {}}]}],
                r"messages\[0\]\.tool_calls\[0\]: expected a function name",
            ),
            (
                [{"role": "assistant", "tool_calls": "get_me"}],
                r"messages\[0\]\.tool_calls: expected a list, got str",
            ),
        ],
    )
    def test_malformed_messages_name_the_field(self, messages: object, message: str) -> None:
        with pytest.raises(TypeError, match=message):
            count_messages(messages)  # type: ignore[arg-type]
