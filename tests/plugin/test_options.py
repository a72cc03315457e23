"""Option values that cannot mean anything are usage errors that say what is valid."""

from __future__ import annotations

import pytest

from tests.plugin.support import atomic, setup_project


def usage_error(result: pytest.RunResult) -> str:
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()[-2000:]
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    return result.stderr.str()


@pytest.mark.parametrize("value", ["", " ", ",", " , "])
def test_empty_mode_is_a_usage_error(pytester: pytest.Pytester, value: str) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    err = usage_error(pytester.runpytest(f"--ghx-mode={value}"))
    assert "--ghx-mode is empty; give at least one mode (agent_direct, mcp, ghx" in err


def test_empty_mode_in_config_names_the_key(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    pytester.makeini("[pytest]\nghx_adapter = scripted\nghx_backend = demo\nghx_mode = ,\n")
    err = usage_error(pytester.runpytest())
    assert "ghx_mode is empty" in err


def test_empty_ini_mode_means_no_benchmark(pytester: pytest.Pytester) -> None:
    """An empty ini value is an unset one (how a project switches the benchmark off)."""
    setup_project(pytester, [atomic("repo-view-001")])
    pytester.makeini("[pytest]\nghx_adapter = scripted\nghx_backend = demo\nghx_mode =\n")
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    pytester.runpytest().assert_outcomes(passed=1)


@pytest.mark.parametrize("flag", ["--gate-baseline", "--gate-candidate"])
def test_unknown_gate_mode_is_a_usage_error(pytester: pytest.Pytester, flag: str) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    err = usage_error(pytester.runpytest("--ghx-mode=ghx", f"{flag}=foo"))
    assert f"unknown mode 'foo' for {flag}; valid: " in err
    valid = err.split("valid: ", 1)[1].split()[0:3]
    assert {m.strip(",") for m in valid} == {"agent_direct", "mcp", "ghx"}


def test_unknown_gate_mode_in_config_is_a_usage_error(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    pytester.makepyprojecttoml('[tool.ghxbench]\ngate_candidate = "ghxx"\n')
    err = usage_error(pytester.runpytest("--ghx-mode=ghx"))
    assert "unknown mode 'ghxx' for --gate-candidate" in err


def test_same_gate_modes_are_a_usage_error(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    err = usage_error(
        pytester.runpytest("--ghx-mode=ghx", "--gate-baseline=ghx", "--gate-candidate=ghx")
    )
    assert "--gate-baseline and --gate-candidate are both 'ghx'" in err


def test_configured_modes_are_valid_gate_modes(pytester: pytest.Pytester) -> None:
    """A mode of the adapter, a built-in one (rows of earlier runs may hold it) or one given
    instructions in [tool.ghxbench.mode_instructions] can be compared."""
    setup_project(pytester, [atomic("repo-view-001")])
    pytester.makepyprojecttoml('[tool.ghxbench.mode_instructions]\nmy_cli = "Use my-cli."\n')
    for args in (
        ["--gate-baseline=mcp"],
        ["--gate-candidate=my_cli"],
        ["--gate-baseline=ghx", "--gate-candidate=agent_direct"],
    ):
        result = pytester.runpytest("--ghx-mode=ghx", "--collect-only", *args)
        assert result.ret == 0, (args, result.stderr.str())


def test_retry_options_are_registered(pytester: pytest.Pytester) -> None:
    """run/retry.py reads these dests and ini keys; here they exist and show in --help."""
    result = pytester.runpytest("--help")
    out = result.stdout.str()
    for name in ("--ghx-retry-on=KIND[,KIND...]", "--ghx-transient-reruns=N"):
        assert name in out
    for ini in ("ghx_retry_on (string)", "ghx_transient_reruns (string)"):
        assert ini in out
