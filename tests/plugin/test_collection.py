"""Collection: items per mode and rep, markers, -k/-m, sets, and usage/collection errors."""

from __future__ import annotations

import json

import pytest

from tests.paths import EXTERNAL_SCENARIOS
from tests.plugin.support import atomic, setup_project

needs_external = pytest.mark.skipif(
    not EXTERNAL_SCENARIOS.is_dir(), reason="shared/external is not beside the checkout"
)


def collected(result: pytest.RunResult) -> int:
    outcomes = result.parseoutcomes()
    return int(outcomes.get("tests", outcomes.get("test", 0)))


@needs_external
@pytest.mark.parametrize(
    ("args", "count"),
    [
        (["--ghx-mode=agent_direct,ghx", "--reps=2"], 280),
        (["--ghx-mode=agent_direct,ghx", "--reps=2", "-m", "workflow"], 16),
        (["--ghx-mode=ghx", "--reps=1", "--scenario-set=pr-exec"], 9),
        (["--ghx-mode=all", "--reps=1", "-m", "pr and not mutation"], 3 * 23),
        (["--ghx-mode=agent_direct,ghx", "-k", "pr-view and agent_direct"], 1),
        (["--ghx-mode=agent_direct,mcp,ghx", "-m", "mcp and atomic"], 66),
    ],
)
def test_external_scenarios_collect_unchanged(
    pytester: pytest.Pytester, args: list[str], count: int
) -> None:
    setup_project(pytester, [])
    result = pytester.runpytest(
        "--collect-only", "-q", f"--ghx-scenarios={EXTERNAL_SCENARIOS}", "--strict-markers", *args
    )
    assert result.ret == 0, result.stdout.str()[-2000:]
    selected = [line for line in result.stdout.lines if "::" in line]
    assert len(selected) == count


@needs_external
def test_item_ids_and_order(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [])
    result = pytester.runpytest(
        "--collect-only",
        "-q",
        f"--ghx-scenarios={EXTERNAL_SCENARIOS}",
        "--ghx-mode=ghx,agent_direct",
        "--reps=2",
        "-k",
        "pr-view-001",
    )
    items = [line.rsplit("::", 1)[-1] for line in result.stdout.lines if "::" in line]
    assert items == [
        "pr-view-001[ghx-r1]",
        "pr-view-001[ghx-r2]",
        "pr-view-001[agent_direct-r1]",
        "pr-view-001[agent_direct-r2]",
    ]


def test_without_mode_scenarios_are_not_collected(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert not (pytester.path / ".ghxbench").exists()


def test_scenario_set_deselects_others(pytester: pytest.Pytester) -> None:
    setup_project(
        pytester,
        [atomic("repo-view-001"), atomic("repo-view-002")],
        sets={"smoke": ["repo-view-002"]},
    )
    result = pytester.runpytest("--ghx-mode=ghx", "--scenario-set=smoke")
    result.assert_outcomes(passed=1, deselected=1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ghx-mode=ghx,telepathy"], "*unknown mode*'telepathy'*agent_direct, mcp, ghx*"),
        (["--ghx-mode=ghx", "--scenario-set=nope"], "*unknown scenario set 'nope'*valid: smoke*"),
        (["--ghx-mode=ghx", "--gate-profile=nope"], "*unknown gate profile 'nope'*verify_pr*"),
        (["--ghx-mode=ghx", "--ghx-adapter=nope"], "*unknown adapter 'nope'*valid: *scripted*"),
        (["--ghx-mode=ghx", "--ghx-backend=nope"], "*unknown backend 'nope'*valid: demo*"),
        (["--ghx-mode=ghx", "--reps=0"], "*--reps must be a whole number >= 1*"),
        (
            ["--ghx-mode=ghx", "--fixture-manifest=missing.json"],
            "*--fixture-manifest*missing.json*",
        ),
    ],
)
def test_usage_errors_name_the_valid_choices(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    setup_project(pytester, [atomic("repo-view-001")], sets={"smoke": ["repo-view-001"]})
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_unparsable_manifest_is_a_usage_error(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    (pytester.path / "manifest.yaml").write_text("repo: [unclosed\n")
    result = pytester.runpytest("--ghx-mode=ghx", "--fixture-manifest=manifest.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*manifest.yaml*"])


def test_unknown_pyproject_key_is_a_usage_error(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    pytester.makepyprojecttoml('[tool.ghxbench]\nmodez = "ghx"\n')
    result = pytester.runpytest("--ghx-mode=ghx")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown key(s) in [[]tool.ghxbench[]]: modez*"])


def test_bad_files_are_collection_errors_naming_file_line_and_field(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    root = pytester.path / "scenarios"
    (root / "broken.yaml").write_text("id: broken-001\nname: [oops\n")
    bad = atomic("bad-001", allowed_retries=-1)
    (root / "bad-001.json").write_text(json.dumps(bad, indent=2))
    (root / "latin.yaml").write_bytes("id: caf\xe9-001\n".encode("latin-1"))
    result = pytester.runpytest("--ghx-mode=ghx")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    out = result.stdout.str()
    assert "broken.yaml:3" in out and "started on line 2" in out
    assert "bad-001.json" in out and "allowed_retries" in out
    assert "latin.yaml" in out and "UTF-8" in out


def test_duplicate_ids_name_both_files(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    (pytester.path / "scenarios" / "copy.json").write_text(json.dumps(atomic("repo-view-001")))
    result = pytester.runpytest("--ghx-mode=ghx")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*duplicate*repo-view-001*"])
    out = result.stdout.str()
    assert "copy.json" in out and "repo-view-001.json" in out


def test_strict_markers_accept_tags_and_modes(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001", tags=["pr", "thin-slice", "workflow"])])
    result = pytester.runpytest("--ghx-mode=ghx", "--strict-markers", "-m", "thin-slice and ghx")
    result.assert_outcomes(passed=1)
    # a tag named like a scenario type does not make an atomic scenario a workflow
    result = pytester.runpytest("--ghx-mode=ghx", "-m", "workflow")
    result.assert_outcomes(deselected=1)
