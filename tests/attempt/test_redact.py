"""Redaction and the compact JSON every row and transcript record is written with."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_ghxbench.attempt.redact import REDACTED, Redactor, compact_json
from pytest_ghxbench.attempt.transcripts import TranscriptWriter

SECRET = "ghp_canary0123456789abcdef"


def test_compact_json_matches_the_json_module_for_ordinary_values() -> None:
    value = {"a": [1, 2.5, None, True], "é": 'ü\n"q"\x1b', "n": {"k": 1e16}}
    assert json.loads(compact_json(value)) == value
    assert " " not in compact_json({"a": [1, 2]})
    assert "é" in compact_json({"é": 1})  # non-ASCII kept, not escaped


def test_compact_json_writes_unrepresentable_values_instead_of_failing() -> None:
    class Opaque:
        def __repr__(self) -> str:
            return "<opaque>"

    assert json.loads(compact_json({"x": Opaque()})) == {"x": "<opaque>"}
    # lone surrogates (undecodable subprocess output) and non-UTF-8 bytes take the fallback
    assert json.loads(compact_json({"x": b"\xff"})) == {"x": "b'\\xff'"}
    assert "x" in json.loads(compact_json({"x": "\udcff"}))


def test_secret_is_redacted_raw_and_inside_json_strings() -> None:
    secret = 'tok"en\\with-quote-and-backslash'
    redactor = Redactor([secret, SECRET])
    text = redactor.json({"cmd": f"gh auth login --with-token {secret}", "env": {"T": SECRET}})
    assert secret not in text and json.dumps(secret)[1:-1] not in text and SECRET not in text
    assert json.loads(text) == {
        "cmd": f"gh auth login --with-token {REDACTED}",
        "env": {"T": REDACTED},
    }
    assert redactor.text("https://user:pw@example.com/x") == f"https://{REDACTED}@example.com/x"


def test_transcript_records_are_complete_lines_even_with_undecodable_text(tmp_path: Path) -> None:
    path = tmp_path / "t" / "main.jsonl"
    writer = TranscriptWriter(path, Redactor([SECRET]))
    writer.write({"item_id": "a", "final_text": f"token {SECRET}"}, row_json='{"mode":"ghx"}')
    writer.write({"item_id": "b", "final_text": "bad \udcff output"})
    writer.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    first, second = (json.loads(line) for line in lines)
    assert first == {"item_id": "a", "final_text": f"token {REDACTED}", "row": {"mode": "ghx"}}
    assert second["item_id"] == "b" and second["final_text"].startswith("bad ")
    assert SECRET not in path.read_text(encoding="utf-8")


TOKEN_SHAPED = {
    "classic": "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "oauth": "gho_16C7e42F292c6912E7710c838347Ae178B4a",
    "installation": "ghs_sbx_0a1b2c3d4e5f60718293a4b5c6d7e8f9",
    "user-to-server": "ghu_16C7e42F292c6912E7710c838347Ae178B4a",
    "fine-grained": "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOP",
    "openai": "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
    "anthropic": "sk-ant-api03-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z-AA",
}


def test_token_shaped_values_are_redacted_whatever_their_source() -> None:
    # no variable names them and none was given to the redactor: their shape is enough
    redactor = Redactor()
    for kind, token in TOKEN_SHAPED.items():
        for text in (token, f"cat hosts.yml: oauth_token: {token}\n", f"BUILD_NOTE={token};"):
            assert token not in redactor.text(text), kind
        assert redactor.json({"out": f"{token}\n"}) == '{"out":"[REDACTED]\\n"}', kind
    # what only looks like the start of one stays
    for text in ("ghp_short", "the task-management-system notes", "risk-assessment-framework"):
        assert redactor.text(text) == text
