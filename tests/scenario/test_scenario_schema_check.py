"""The shipped JSON Schema and ``ghxbench check``."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
import yaml

from pytest_ghxbench.scenario.check import run_check
from pytest_ghxbench.scenario.schema import SCHEMA_PATH, main, render_schema

Write = Callable[..., Path]
Variant = Callable[[str, dict[int, str]], str]


@pytest.fixture(scope="module")
def shipped_validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_shipped_schema_is_not_stale() -> None:
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render_schema(), (
        "scenario.schema.json is stale: run `python -m pytest_ghxbench.scenario.schema`"
    )


def test_schema_header() -> None:
    schema = json.loads(render_schema())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] and schema["title"] and schema["description"]
    assert schema["anyOf"] == [
        {"$ref": "#/$defs/AtomicScenario"},
        {"$ref": "#/$defs/WorkflowScenario"},
    ]


def test_external_files_validate_against_the_shipped_schema(
    external_root: Path, shipped_validator: jsonschema.protocols.Validator
) -> None:
    files = sorted(p for p in external_root.rglob("*.json") if p.name != "scenario-sets.json")
    assert len(files) == 70
    for path in files:
        errors = list(shipped_validator.iter_errors(json.loads(path.read_text())))
        assert errors == [], f"{path}: {errors[0].message}"


@pytest.mark.parametrize(
    "replacements",
    [
        {18: "  must_succed: true"},  # unknown field
        {9: "timeout_ms: '60000'"},  # wrong type
        {9: "timeout_ms: 86400001"},  # longer than a day
        {1: "id: PR_View"},  # id pattern
        {14: "    owner: repo.owner"},  # binding target not under input.
    ],
)
def test_schema_rejects_broken_scenarios(
    variant: Variant,
    shipped_validator: jsonschema.protocols.Validator,
    replacements: dict[int, str],
) -> None:
    data: Any = yaml.safe_load(variant("atomic", replacements))
    assert not shipped_validator.is_valid(data)
    assert shipped_validator.is_valid(yaml.safe_load(variant("atomic", {})))
    assert shipped_validator.is_valid(yaml.safe_load(variant("workflow", {})))


def test_schema_main_writes_and_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "schema.json"
    target.write_text("{}\n")
    with pytest.raises(SystemExit) as stale:
        main(["--check", "--output", str(target)])
    assert stale.value.code == 1
    assert "is stale" in capsys.readouterr().err
    main(["--output", str(target)])
    assert target.read_text() == render_schema()
    main(["--check", "--output", str(target)])
    assert "is up to date" in capsys.readouterr().out


def _check(paths: list[Path]) -> tuple[int, list[str]]:
    out = io.StringIO()
    code = run_check(paths, out)
    return code, out.getvalue().splitlines()


def test_check_passes_on_the_external_scenarios(external_root: Path) -> None:
    assert _check([external_root]) == (0, ["70 scenarios, 13 sets, 0 problems"])


def test_check_lists_each_problem_then_the_summary(write: Write, variant: Variant) -> None:
    good = write("scenarios/pr-view-001.yaml", variant("atomic", {}))
    bad = write(
        "scenarios/bad-001.yaml", variant("atomic", {1: "id: bad-001", 21: "  max_tool_calls: 0"})
    )
    sets = write("scenarios/scenario-sets.yaml", "smoke: [pr-view-001, nope-001]\n")
    code, lines = _check([good.parent])
    assert code == 1
    assert lines == [
        f"{bad}:21: assertions.max_tool_calls: must be >= min_tool_calls (1), got 0",
        f"{sets}:1: smoke[1]: set 'smoke' lists unknown scenario id 'nope-001'",
        "1 scenario, 1 set, 2 problems",
    ]


def test_check_single_files_and_duplicates_across_paths(write: Write, variant: Variant) -> None:
    first = write("a/one.yaml", variant("atomic", {}))
    second = write("b/two.json", json.dumps(yaml.safe_load(variant("atomic", {}))))
    assert _check([first]) == (0, ["1 scenario, 0 sets, 0 problems"])
    code, lines = _check([first, second])
    assert code == 1
    assert lines[0] == f"{second}: id: duplicate scenario id 'pr-view-001' in {first} and {second}"


def test_check_a_sets_file_directly(write: Write, variant: Variant) -> None:
    write("s/pr-view-001.yaml", variant("atomic", {}))
    sets = write("s/scenario-sets.yaml", "smoke: [pr-view-001]\n")
    assert _check([sets]) == (0, ["0 scenarios, 1 set, 0 problems"])


def test_check_defaults_to_the_scenarios_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write: Write, variant: Variant
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _check([]) == (
        1,
        ["scenarios: no such file or directory", "0 scenarios, 0 sets, 1 problem"],
    )
    write("scenarios/x.yaml", variant("atomic", {}))
    assert _check([]) == (0, ["1 scenario, 0 sets, 0 problems"])


@pytest.mark.parametrize("huge", ["1000000000000000000000000000000", "1.0e+30", "86400001"])
def test_a_huge_timeout_is_one_clear_problem(write: Write, variant: Variant, huge: str) -> None:
    """10^30 ms used to pass the check and then fail every item with an OverflowError."""
    path = write("scenarios/pr-view-001.yaml", variant("atomic", {9: f"timeout_ms: {huge}"}))
    code, lines = _check([path])
    assert code == 1
    assert len(lines) == 2 and lines[1] == "0 scenarios, 0 sets, 1 problem"
    assert lines[0].startswith(f"{path}:9: timeout_ms: must be ")  # at most a day, an integer
    day = write("ok/pr-view-001.yaml", variant("atomic", {9: "timeout_ms: 86400000"}))
    assert _check([day]) == (0, ["1 scenario, 0 sets, 0 problems"])
