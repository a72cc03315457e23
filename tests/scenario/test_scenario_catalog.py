"""Walking a scenario root: which files count, duplicate ids, sets and collected errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_ghxbench.scenario import (
    ScenarioError,
    is_scenario_file,
    load_catalog,
    load_sets,
)

Write = Callable[..., Path]
Variant = Callable[[str, dict[int, str]], str]


def _scenario(variant: Variant, scenario_id: str) -> str:
    return variant("atomic", {1: f"id: {scenario_id}"})


def test_external_scenarios_and_sets_all_load(external_root: Path) -> None:
    catalog = load_catalog(external_root)
    assert catalog.errors == []
    assert len(catalog.scenarios) == 70
    kinds = [loaded.scenario.kind for loaded in catalog.scenarios.values()]
    assert (kinds.count("atomic"), kinds.count("workflow")) == (66, 4)
    assert len(catalog.sets) == 13
    assert len(catalog.sets["pr-exec"]) == 9
    assert catalog.sets["pr-exec"][0] == "pr-review-submit-approve-001"
    assert catalog.set_of("pr-view-001") == "default"
    assert catalog.set_of("pr-fix-review-comments-wf-001") == "workflows"
    assert catalog.set_of("pr-review-comment-wf-001") is None
    loaded = catalog.scenarios["ci-diagnose-run-wf-001"]
    assert loaded.path == external_root / "workflows" / "ci-diagnose-run-wf-001.json"


def test_load_sets_of_the_external_root(external_root: Path) -> None:
    sets = load_sets(external_root)
    assert list(sets)[:3] == ["default", "pr-review-reads", "pr-thread-mutations"]
    assert sets["ci-log-analysis"] == ["workflow-job-logs-analyze-001"]


def test_scenarios_are_walked_recursively_in_sorted_order(write: Write, variant: Variant) -> None:
    write("b/z.yaml", _scenario(variant, "zeta-001"))
    write("a.yaml", _scenario(variant, "alpha-001"))
    write("b/a.yml", _scenario(variant, "beta-001"))
    catalog = load_catalog(write("a.yaml", _scenario(variant, "alpha-001")).parent)
    assert list(catalog.scenarios) == ["alpha-001", "beta-001", "zeta-001"]


def test_duplicate_ids_name_both_files(write: Write, variant: Variant) -> None:
    first = write("scenarios/a.yaml", _scenario(variant, "same-001"))
    second = write("scenarios/sub/b.yaml", _scenario(variant, "same-001"))
    catalog = load_catalog(first.parent)
    assert catalog.scenarios["same-001"].path == first
    [error] = catalog.errors
    assert str(error) == f"{second}:1: id: duplicate scenario id 'same-001' in {first} and {second}"


def test_all_errors_are_collected_and_good_files_still_load(write: Write, variant: Variant) -> None:
    root = write("s/good.yaml", _scenario(variant, "good-001")).parent
    write("s/bad.yaml", variant("atomic", {1: "id: bad-001", 9: "timeout_ms: 0", 3: "task: x"}))
    write("s/broken.json", "{")
    catalog = load_catalog(root)
    assert list(catalog.scenarios) == ["good-001"]
    assert [(e.path.name, e.field) for e in catalog.errors] == [
        ("bad.yaml", "task"),
        ("bad.yaml", "timeout_ms"),
        ("broken.json", None),
    ]
    assert all(len(e.problems) == 1 for e in catalog.errors)


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        ("pr-view-001.yaml", True),
        ("deep/er/x.yml", True),
        ("x.JSON", True),
        ("scenario-sets.yaml", False),
        ("scenario-sets.json", False),
        ("fixtures/seed.yaml", False),
        ("deep/fixtures/seed.json", False),
        (".hidden.yaml", False),
        (".cache/x.yaml", False),
        ("README.md", False),
        ("x.yaml.bak", False),
    ],
)
def test_is_scenario_file(tmp_path: Path, relative: str, expected: bool) -> None:
    assert is_scenario_file(tmp_path / "root" / relative, tmp_path / "root") is expected


def test_fixtures_only_counts_below_the_root(tmp_path: Path) -> None:
    root = tmp_path / "fixtures" / "scenarios"
    assert is_scenario_file(root / "x.yaml", root)
    assert not is_scenario_file(tmp_path / "elsewhere.yaml", root)


def test_excluded_files_are_not_loaded(write: Write, variant: Variant) -> None:
    root = write("r/ok.yaml", _scenario(variant, "ok-001")).parent
    write("r/fixtures/seed.yaml", "not: a scenario\n")
    write("r/.github/workflow.yml", "on: push\n")
    write("r/notes.txt", "hello")
    catalog = load_catalog(root)
    assert (list(catalog.scenarios), catalog.errors) == (["ok-001"], [])


def test_unknown_id_in_a_set_names_the_set_and_id(write: Write, variant: Variant) -> None:
    root = write("r/a.yaml", _scenario(variant, "pr-view-001")).parent
    sets_file = write(
        "r/scenario-sets.yaml",
        "smoke:\n  - pr-view-001\n  - pr-veiw-002\nall: [pr-view-001]\n",
    )
    catalog = load_catalog(root)
    [error] = catalog.errors
    assert str(error) == (
        f"{sets_file}:3: smoke[1]: set 'smoke' lists unknown scenario id 'pr-veiw-002'; "
        "did you mean 'pr-view-001'?"
    )
    assert catalog.sets == {"smoke": ["pr-view-001"], "all": ["pr-view-001"]}
    with pytest.raises(ScenarioError, match="unknown scenario id 'pr-veiw-002'"):
        load_sets(root, known_ids={"pr-view-001"})
    assert load_sets(root) == {"smoke": ["pr-view-001", "pr-veiw-002"], "all": ["pr-view-001"]}


def test_set_of_returns_the_first_set_in_file_order(write: Write, variant: Variant) -> None:
    root = write("r/a.yaml", _scenario(variant, "pr-view-001")).parent
    write("r/scenario-sets.json", '{"zeta": ["pr-view-001"], "alpha": ["pr-view-001"]}')
    assert load_catalog(root).set_of("pr-view-001") == "zeta"


def test_missing_sets_file_means_no_sets(tmp_path: Path) -> None:
    assert load_sets(tmp_path) == {}


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("- a\n", None, "top level must be a mapping of set name -> list of scenario ids"),
        ("smoke: pr-view-001\n", 1, "set 'smoke' must be a list of scenario ids, got str"),
        ("smoke: [pr-view-001, 7]\n", 1, "set 'smoke': entries must be scenario ids"),
        (
            "smoke:\n  - pr-view-001\n  - pr-view-001\n",
            3,
            "set 'smoke' lists 'pr-view-001' twice",
        ),
        ("smoke: [a\n", 2, "YAML syntax error"),
    ],
)
def test_malformed_sets_files(
    write: Write, variant: Variant, text: str, line: int | None, message: str
) -> None:
    root = write("r/a.yaml", _scenario(variant, "pr-view-001")).parent
    write("r/scenario-sets.yaml", text)
    [error] = load_catalog(root).errors
    assert error.line == line
    assert message in error.message


def test_two_sets_files_are_a_problem(write: Write, variant: Variant) -> None:
    root = write("r/a.yaml", _scenario(variant, "pr-view-001")).parent
    write("r/scenario-sets.yaml", "smoke: [pr-view-001]\n")
    write("r/scenario-sets.json", "{}")
    [error] = load_catalog(root).errors
    assert "more than one sets file" in error.message


def test_missing_root_is_an_error(tmp_path: Path) -> None:
    catalog = load_catalog(tmp_path / "absent")
    assert [str(e) for e in catalog.errors] == [
        f"{tmp_path / 'absent'}: scenario root does not exist"
    ]


def test_is_scenario_file_accepts_a_relative_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "scenarios").mkdir()
    assert is_scenario_file(tmp_path / "scenarios" / "a.yaml", Path("scenarios"))
    assert not is_scenario_file(tmp_path / "scenarios" / "fixtures" / "a.yaml", Path("scenarios"))
