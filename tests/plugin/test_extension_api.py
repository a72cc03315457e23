"""The public extension API: adapters from entry points, preflight, close, hooks that fail."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

import pytest_ghxbench as gb
from tests.plugin.support import atomic, read_rows, setup_project, summary


def test_public_names_are_exported() -> None:
    for name in (
        "RunRequest",
        "RunResult",
        "Tokens",
        "ToolCall",
        "Adapter",
        "Backend",
        "BackendSession",
        "AdapterUnavailable",
        "ModeSpec",
        "Row",
    ):
        assert hasattr(gb, name), name
    tokens = gb.Tokens(input=1200, output=80, cache_read=600)
    assert tokens.total == 1880 and tokens.active == 1280


def test_options_are_grouped_in_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(
        [
            "ghxbench: benchmark agents on GitHub tasks:",
            "*--ghx-mode=M*",
            "*--reps=N*",
            "*--gate-profile=NAME*",
        ]
    )
    result.stdout.fnmatch_lines(["*ghx_mode (string)*"])


def test_adapter_from_an_entry_point(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    site = pytester.path / "site"
    (site / "echo_agent").mkdir(parents=True)
    (site / "echo_agent" / "__init__.py").write_text(
        textwrap.dedent("""
        import pytest_ghxbench as gb

        class EchoAdapter:
            name = "echo"
            modes = ("agent_direct", "ghx")

            def run(self, request):
                return gb.RunResult(
                    final_text='{"ok": true, "data": {}, "error": null, '
                               '"meta": {"route_used": "cli"}}',
                    tool_calls=[gb.ToolCall(name="bash")], tokens=gb.Tokens(input=5))
    """)
    )
    dist = site / "echo_agent-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: echo-agent\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[pytest_ghxbench.adapters]\necho = echo_agent:EchoAdapter\n"
    )
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), *sys.path]))
    result = pytester.run(sys.executable, "-m", "pytest", "--ghx-mode=ghx", "--ghx-adapter=echo")
    assert result.ret == 0, result.stdout.str()
    (row,) = read_rows(pytester)
    assert row["adapter"] == "echo" and row["success"] is True


PREFLIGHT_AND_CLOSE = """
class Checked(ScriptedAdapter):
    name = "checked"

    def preflight(self, config):
        if os.environ.get("CHECKED_FAIL"):
            raise gb.AdapterUnavailable("the checked-agent binary is not on PATH")

    def close(self):
        print("ADAPTER CLOSED")


def pytest_ghxbench_adapters(config):
    return [ScriptedAdapter(), Checked()]
"""


def test_preflight_failure_is_one_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    conftest = pytester.path / "conftest.py"
    conftest.write_text(conftest.read_text() + PREFLIGHT_AND_CLOSE)
    monkeypatch.setenv("CHECKED_FAIL", "1")
    result = pytester.runpytest("--ghx-mode=ghx", "--ghx-adapter=checked")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*adapter 'checked' unavailable: the checked-agent binary*"])


def test_adapter_close_is_called_at_session_end(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    conftest = pytester.path / "conftest.py"
    conftest.write_text(conftest.read_text() + PREFLIGHT_AND_CLOSE)
    result = pytester.runpytest_subprocess("--ghx-mode=ghx", "--ghx-adapter=checked", "-s")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*ADAPTER CLOSED*"])


def test_a_failing_row_hook_does_not_lose_rows(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001"), atomic("repo-view-002")])
    conftest = pytester.path / "conftest.py"
    conftest.write_text(
        conftest.read_text()
        + ("\ndef pytest_ghxbench_row(row, item):\n    raise ValueError('dashboard down')\n")
    )
    result = pytester.runpytest("--ghx-mode=ghx")
    result.assert_outcomes(passed=2)
    assert len(read_rows(pytester)) == 2
    result.stdout.fnmatch_lines(["*hook error: pytest_ghxbench_row raised ValueError*"])
    assert result.ret == 0  # the gate is advisory and not evaluated; pytest's status applies


def test_tags_named_like_any_mode_are_not_markers(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001", tags=["mcp", "read"])])
    result = pytester.runpytest("--ghx-mode=ghx", "-m", "mcp")
    result.assert_outcomes(deselected=1)


def test_broken_scenario_fails_the_session_even_when_the_gate_passes(
    pytester: pytest.Pytester,
) -> None:
    behaviour = {
        "*": {
            "agent_direct": {
                "tokens": {"input": 9000},
                "tool_calls": 5,
                "latency_ms": 9000,
                "cost": 0.05,
            },
            "ghx": {"tokens": {"input": 3000}, "tool_calls": 1, "latency_ms": 3000, "cost": 0.01},
        }
    }
    setup_project(pytester, [atomic("repo-view-001")], behaviour=behaviour)
    (pytester.path / "scenarios" / "broken.yaml").write_text("id: [\n")
    result = pytester.runpytest(
        "--ghx-mode=agent_direct,ghx", "--reps=3", "--continue-on-collection-errors"
    )
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*PASSED*exit 1*outside the benchmark*"])


def test_global_reruns_do_not_override_the_scenario_budget(pytester: pytest.Pytester) -> None:
    setup_project(
        pytester, [atomic("repo-view-001")], behaviour={"repo-view-001": {"*": {"raise": "always"}}}
    )
    result = pytester.runpytest("--ghx-mode=ghx", "--reruns=3")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == 1 and "rerun" not in outcomes


def test_ghx_mode_in_config_does_not_hijack_explicit_test_paths(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    (pytester.path / "tox.ini").unlink(missing_ok=True)
    pytester.makeini(
        "[pytest]\nghx_mode = ghx\nghx_adapter = scripted\nghx_backend = demo\n"
        "ghx_gate_profile = verify_pr\n"
    )
    pytester.makepyfile(test_unit="def test_unit():\n    assert True\n")
    result = pytester.runpytest("test_unit.py")
    result.assert_outcomes(passed=1)
    assert result.ret == 0


def test_tool_surface_tokens_reported_by_the_adapter_reach_the_summary(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    conftest = pytester.path / "conftest.py"
    conftest.write_text(
        conftest.read_text()
        + (
            "\nclass Surfaced(ScriptedAdapter):\n    name = 'surfaced'\n"
            "    def tool_surface_tokens(self, mode, instructions=None):\n"
            "        return {'ghx': 300, 'mcp': 9000}.get(mode, 400) + len(instructions.split())\n"
            "def pytest_ghxbench_adapters(config):\n    return [ScriptedAdapter(), Surfaced()]\n"
        )
    )
    result = pytester.runpytest("--ghx-mode=ghx,mcp", "--ghx-adapter=surfaced")
    result.stdout.fnmatch_lines(["*tool surface tok*"])
    modes = summary(pytester)["modes"]
    assert modes["ghx"]["tool_surface_tokens"] > 300
    assert modes["mcp"]["tool_surface_tokens"] > 9000


def test_built_in_adapters_declare_the_modes_their_implementations_drive(
    pytestconfig: pytest.Config,
) -> None:
    from pytest_ghxbench.adapters.registry import LazyAdapter, available_adapters

    adapters = available_adapters(pytestconfig)
    assert {"oracle", "openai", "claude-code", "codex", "opencode"} <= set(adapters)
    for name, adapter in adapters.items():
        if isinstance(adapter, LazyAdapter):
            assert adapter._target().modes == adapter.modes, name


def test_tokens_are_one_type_from_the_adapter_to_the_rows_file() -> None:
    from pydantic import ValidationError

    from pytest_ghxbench.records.row import Row

    used = gb.Tokens(input=100, output=20, cache_read=50)
    assert (used.total, used.active) == (170, 120)
    summed = used + gb.Tokens(output=5, reasoning=3)
    assert summed == gb.Tokens(input=100, output=25, reasoning=3, cache_read=50)
    assert summed.total == 178
    # A row's tokens are the same type; a row from another harness keeps its own total.
    row = Row.model_validate(
        {"timestamp": "t", "run_id": "r", "mode": "ghx", "scenario_id": "s", "success": True,
         "output_valid": True, "tokens": {"input": 3, "output": 4, "total": 9}}
    )  # fmt: skip
    assert isinstance(row.tokens, gb.Tokens)
    assert (row.tokens.total, row.tokens.active) == (9, 9)
    with pytest.raises(ValidationError, match="output"):
        gb.Tokens(output=-1)
    with pytest.raises(ValidationError, match="input"):
        gb.Tokens(input=1.5)  # type: ignore[arg-type]


def test_usage_is_tokens_and_cost_from_a_row_to_the_budget() -> None:
    from pydantic import ValidationError

    from pytest_ghxbench.hooks.budget import Budget
    from pytest_ghxbench.records.row import Row

    def row(cost: float, **tokens: int) -> Row:
        return Row.model_validate(
            {"timestamp": "t", "run_id": "r", "mode": "ghx", "scenario_id": "s", "success": True,
             "output_valid": True, "tokens": tokens, "cost": cost}
        )  # fmt: skip

    first, second = row(0.7, input=100, cache_read=40).usage, row(0.1, output=10).usage
    assert first == gb.Usage(tokens=gb.Tokens(input=100, cache_read=40), cost_usd=0.7)
    total = first + second
    assert (total.active_tokens, total.tokens.total) == (110, 150)
    # 0.7 + 0.1 is 0.7999999999999999 in floats: it still reaches a budget of 0.8
    assert Budget(usd=0.8).spent(total) is not None
    assert Budget(tokens=111).spent(total) is None
    with pytest.raises(ValidationError, match="cost_usd"):
        gb.Usage(cost_usd=float("nan"))
    with pytest.raises(ValidationError, match="cost_usd"):
        gb.Usage(cost_usd=-0.01)


def test_worker_ledgers_sum_to_the_usage_other_workers_see(tmp_path: Path) -> None:
    from pytest_ghxbench.hooks.budget import SpendLedger, read_spend

    one, two = SpendLedger(tmp_path, "gw0-1"), SpendLedger(tmp_path, "gw1-2")
    one.add(gb.Usage(tokens=gb.Tokens(input=10), cost_usd=0.25))
    one.add(gb.Usage(tokens=gb.Tokens(output=5), cost_usd=0.25))
    two.add(gb.Usage(tokens=gb.Tokens(input=7, cache_read=3), cost_usd=1.0))
    (tmp_path / "gw2-3.json").write_text("{not json")  # unreadable: skipped, not fatal
    seen = read_spend(tmp_path)
    assert (seen.cost_usd, seen.active_tokens, seen.tokens.cache_read) == (1.5, 22, 3)
