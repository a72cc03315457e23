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


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ("reps = 3.5", "[tool.ghxbench] reps must be a whole number >= 1, got 3.5"),
        ("reps = true", "[tool.ghxbench] reps must be a whole number >= 1, got true"),
        ("reps = 0", "[tool.ghxbench] reps must be a whole number >= 1, got 0"),
        ("strict = 'maybe'", "[tool.ghxbench] strict must be true or false, got 'maybe'"),
        ("budget_usd = 'lots'", "[tool.ghxbench] budget_usd must be a number > 0, got 'lots'"),
        ("budget_tokens = 1e6", "[tool.ghxbench] budget_tokens must be a whole number >= 1"),
        ("shard = '4/3'", "[tool.ghxbench] shard must be K/N with 1 <= K <= N"),
        ("model = ['a/b']", "[tool.ghxbench] model must be a string, got ['a/b']"),
        ("allow_host = [3]", "[tool.ghxbench] allow_host: must be host names, got 3"),
        (
            "allow_host = ['models.example', 'http://']",
            "[tool.ghxbench] allow_host: 'http://' names no host (give HOST, HOST:PORT or a URL)",
        ),
    ],
)
def test_config_values_are_validated_as_the_command_line_naming_file_and_key(
    pytester: pytest.Pytester, table: str, expected: str
) -> None:
    """A value in [tool.ghxbench] is refused where its flag would be (3.5 reps is not 3),
    and the error names the file and the key, not the flag."""
    setup_project(pytester, [atomic("repo-view-001")])
    pytester.makepyprojecttoml(f"[tool.ghxbench]\n{table}\n")
    err = usage_error(pytester.runpytest("--ghx-mode=ghx"))
    assert f"ghxbench: {pytester.path / 'pyproject.toml'}: {expected}" in err


def test_an_ini_value_is_validated_naming_the_ini_file_and_key(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    pytester.makeini("[pytest]\nghx_adapter = scripted\nghx_backend = demo\nghx_reps = 3.5\n")
    err = usage_error(pytester.runpytest("--ghx-mode=ghx"))
    assert f"{pytester.path / 'tox.ini'}: ghx_reps must be a whole number >= 1, got '3.5'" in err


def test_the_same_value_on_the_command_line_is_refused_the_same_way(
    pytester: pytest.Pytester,
) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    err = usage_error(pytester.runpytest("--ghx-mode=ghx", "--reps=3.5"))
    assert "ghxbench: --reps must be a whole number >= 1, got '3.5'" in err
    pytester.makepyprojecttoml("[tool.ghxbench]\nreps = 2\n")
    assert pytester.runpytest("--ghx-mode=ghx").ret == 0


def test_an_unknown_isolation_is_a_usage_error(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    err = usage_error(pytester.runpytest("--ghx-mode=ghx", "--ghx-isolation=chroot"))
    assert (
        "ghxbench: unknown isolation 'chroot' for --ghx-isolation; valid: auto, jail, none" in err
    )
    pytester.makepyprojecttoml("[tool.ghxbench]\nisolation = 'vm'\n")
    err = usage_error(pytester.runpytest("--ghx-mode=ghx"))
    assert f"unknown isolation 'vm' for {pytester.path / 'pyproject.toml'}: [tool.ghxbench]" in err
