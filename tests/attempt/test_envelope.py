"""Finding the answer envelope in free text, and failure-message excerpts."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ghxbench.attempt import envelope
from pytest_ghxbench.attempt.envelope import MAX_ANSWER_CHARS, excerpt, extract_first_json_object

# --------------------------------------------------------------------------- strategies

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False),
    st.text(),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(), _values, max_size=5)
prose_without_braces = st.text(st.characters(blacklist_characters="{"))


@st.composite
def serialized(draw: st.DrawFn, obj: Any) -> str:
    """One of the many ways an agent may print a JSON object."""
    indent = draw(st.sampled_from([None, 2, "\t"]))
    ensure_ascii = draw(st.booleans())
    separators = draw(st.sampled_from([None, (",", ":"), (" , ", " : ")]))
    return json.dumps(obj, indent=indent, ensure_ascii=ensure_ascii, separators=separators)


def first_object_by_brute_force(text: str) -> Any | None:
    """Reference model: try every '{' in order, return the first complete object."""
    decoder = json.JSONDecoder()
    for index, char in enumerate(text):
        if char == "{":
            try:
                return decoder.raw_decode(text, index)[0]
            except ValueError:
                continue
    return None


# --------------------------------------------------------------------------- properties


@given(before=prose_without_braces, obj=json_objects, after=st.text(), data=st.data())
def test_an_object_in_prose_without_braces_is_found_exactly(
    before: str, obj: dict[str, Any], after: str, data: st.DataObject
) -> None:
    text = before + data.draw(serialized(obj)) + after
    assert extract_first_json_object(text) == obj


@given(before=prose_without_braces, obj=json_objects, after=st.text(), data=st.data())
def test_an_object_in_a_json_code_fence_is_found(
    before: str, obj: dict[str, Any], after: str, data: st.DataObject
) -> None:
    text = f"{before}\n```json\n{data.draw(serialized(obj))}\n```\n{after}"
    assert extract_first_json_object(text) == obj


@given(
    before=prose_without_braces,
    stray=st.text(st.characters(blacklist_characters='{}"')),
    obj=json_objects,
    after=st.text(st.characters(blacklist_characters="}")),
    data=st.data(),
)
def test_an_object_after_a_stray_unbalanced_brace_is_found(
    before: str, stray: str, obj: dict[str, Any], after: str, data: st.DataObject
) -> None:
    text = before + "{" + stray + data.draw(serialized(obj)) + after
    assert extract_first_json_object(text) == obj


@given(first=json_objects, second=json_objects, between=prose_without_braces)
def test_the_first_of_two_objects_wins(
    first: dict[str, Any], second: dict[str, Any], between: str
) -> None:
    text = json.dumps(first) + between + json.dumps(second)
    assert extract_first_json_object(text) == first


@given(
    strings=st.lists(
        st.text(alphabet='{}"\\ :,ab\n', max_size=12),
        min_size=1,
        max_size=4,
    )
)
def test_braces_and_escaped_quotes_inside_strings_do_not_confuse_the_search(
    strings: list[str],
) -> None:
    obj = {f"k{i}{s}": s for i, s in enumerate(strings)}
    text = "Result: " + json.dumps(obj) + " } { trailing"
    assert extract_first_json_object(text) == obj


_fragments = st.one_of(
    st.text(alphabet='ab :,\n"\\{}[]', max_size=8),
    st.sampled_from(["{", "}", '{"', '":', '"', "\\", "```json\n", "\n```", '{"a":', "[{"]),
    json_objects.map(json.dumps),
    json_objects.map(json.dumps).flatmap(lambda s: st.integers(0, len(s)).map(lambda n: s[:n])),
)


@settings(max_examples=300)
@given(st.lists(_fragments, max_size=8).map("".join))
def test_the_result_is_the_first_position_where_an_object_parses(text: str) -> None:
    assert extract_first_json_object(text) == first_object_by_brute_force(text)


# --------------------------------------------------------------------------- examples


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Sure! {"ok": true} Hope that helps.', {"ok": True}),
        ('use {name} here, then { oops {"ok": 1}', {"ok": 1}),
        ('He typed {"oops then {"ok": true}', {"ok": True}),  # a stray quote flips the phase
        ('{"a": "say \\"hi}\\" {"} and {"b": 2}', {"a": 'say "hi}" {'}),
        ('{"ok": true, "data": {"n": 1}} {"ok": false, "data": ', {"ok": True, "data": {"n": 1}}),
        ('{"a": {"b": 1}, "c": ', {"b": 1}),  # nested in a truncated object: first complete one
        ('{"a": {"b": {"c": 1 x}}}', None),  # every object is broken at the same place
        ("{ } and {}", {}),
        ('[{"a": 1}]', {"a": 1}),
        ("no json here", None),
        ("", None),
        ('{"ok": tru', None),
    ],
)
def test_examples(text: str, expected: Any) -> None:
    assert extract_first_json_object(text) == expected


def test_anything_but_a_string_gives_none() -> None:
    assert extract_first_json_object(None) is None  # type: ignore[arg-type]
    assert extract_first_json_object(b'{"ok": true}') is None  # type: ignore[arg-type]


def test_a_candidate_inside_a_deep_chain_of_broken_objects_is_still_found() -> None:
    text = '{"k": ' * 50 + '{"b": 1}, "z": x'
    assert extract_first_json_object(text) == {"b": 1}


def test_an_object_nested_too_deep_to_decode_is_skipped_with_its_contents() -> None:
    too_deep = '{"a": ' * 5000 + "1" + "}" * 5000
    assert extract_first_json_object(too_deep + ' then {"ok": true}') == {"ok": True}
    assert extract_first_json_object(too_deep) is None


class SearchWork:
    """The characters the search hands to the JSON decoder and walks with its regular
    expressions: its work, counted rather than timed (bench/hot_paths.py times it)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.chars = 0
        decoder, token, start = envelope._DECODER, envelope._TOKEN, envelope._OBJECT_START
        work = self

        class Decoder:
            def raw_decode(self, doc: str) -> tuple[Any, int]:
                work.chars += len(doc)
                return decoder.raw_decode(doc)

        class Token:
            def finditer(self, text: str, begin: int, end: int) -> Iterator[re.Match[str]]:
                at = begin
                for found in token.finditer(text, begin, end):
                    work.chars += found.end() - at
                    at = found.end()
                    yield found

        class Start:
            def search(self, text: str, begin: int, end: int) -> re.Match[str] | None:
                found = start.search(text, begin, end)
                work.chars += (found.end() if found else end) - begin
                return found

        monkeypatch.setattr(envelope, "_DECODER", Decoder())
        monkeypatch.setattr(envelope, "_TOKEN", Token())
        monkeypatch.setattr(envelope, "_OBJECT_START", Start())


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> SearchWork:
    return SearchWork(monkeypatch)


def test_a_truncated_megabyte_envelope_gives_its_first_complete_item_in_linear_work(
    work: SearchWork,
) -> None:
    text = '{"ok": true, "data": [' + '{"n": 1}, ' * 100_000
    assert extract_first_json_object(text) == {"n": 1}
    # Re-parsing each of the 100,000 nested candidates would be 100,000 times the text.
    assert work.chars <= 2 * len(text)


_MEGABYTE = 1_000_000


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        pytest.param(lambda: "{" * _MEGABYTE, None, id="braces"),
        pytest.param(
            lambda: "{" * _MEGABYTE + '{"ok": true}', {"ok": True}, id="braces-then-object"
        ),
        pytest.param(lambda: "lorem ipsum dolor sit amet. " * (_MEGABYTE // 28), None, id="prose"),
        pytest.param(
            lambda: 'use {x} and "q" { ' * (_MEGABYTE // 18) + '{"ok": true}',
            {"ok": True},
            id="prose-with-stray-braces-and-quotes-then-object",
        ),
        pytest.param(lambda: '{"a": ' * (_MEGABYTE // 6), None, id="deep-truncated-object"),
        pytest.param(
            lambda: ('{"a": ' * 5000 + "1" + "}" * 5000 + ", ") * 30 + '{"ok": true}',
            {"ok": True},
            id="objects-too-deep-to-decode-then-object",
        ),
    ],
)
def test_any_megabyte_is_searched_in_linear_work(
    work: SearchWork, build: Any, expected: Any
) -> None:
    text = build()
    assert len(text) >= _MEGABYTE * 0.99
    assert extract_first_json_object(text) == expected
    assert work.chars <= 2 * len(text)


def test_a_number_too_long_to_convert_skips_its_object() -> None:
    text = '{"n": ' + "9" * 5000 + '} {"ok": true}'
    assert extract_first_json_object(text) == {"ok": True}


# --------------------------------------------------------------------------- excerpt


def test_excerpt_of_short_text_is_the_text() -> None:
    assert excerpt("I could not do it.") == "I could not do it."


def test_excerpt_escapes_control_characters_to_stay_on_one_line() -> None:
    assert excerpt("line 1\nline 2\t\x00") == "line 1\\nline 2\\t\\x00"


def test_excerpt_marks_a_cut_and_says_how_much_was_left_out() -> None:
    assert excerpt("abcdefghij", limit=4) == "abcd… (+6 more chars)"
    assert excerpt("abcd", limit=4) == "abcd"


def test_excerpt_of_nothing() -> None:
    assert excerpt(None) == "<none>"
    assert excerpt("") == "<empty>"


def test_max_answer_chars_is_a_million() -> None:
    assert MAX_ANSWER_CHARS == 1_000_000
