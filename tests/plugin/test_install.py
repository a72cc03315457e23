"""What an installation needs at run time: the shipped suite and seed, found one way; benchmark
sessions that load only the scenarios' conftests; unusable data files as usage errors.

The wheel itself is built, installed and run by ``scripts/ci-wheel``.
"""

from __future__ import annotations

import importlib
import io
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_ghxbench import suite
from pytest_ghxbench.options import Settings, describe_scenario_root
from pytest_ghxbench.scenario.loader import load_catalog
from tests.plugin.support import CONFTEST, INI, atomic, setup_project

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
BROKEN_TESTS_CONFTEST = "raise RuntimeError('tests/conftest.py must not be imported')\n"


def _with_testpaths(pytester: pytest.Pytester) -> None:
    """The project's own tests under testpaths, with a conftest that aborts any run that
    imports it."""
    pytester.makeini(INI + "testpaths = tests\n")
    tests = pytester.mkdir("tests")
    (tests / "conftest.py").write_text(BROKEN_TESTS_CONFTEST)
    (tests / "test_unit.py").write_text("def test_unit():\n    pass\n")


# --- Benchmark sessions collect only scenarios -------------------------------------------------


def test_benchmark_run_does_not_import_testpaths_conftests(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    _with_testpaths(pytester)
    result = pytester.runpytest("--ghx-mode=ghx")
    result.assert_outcomes(passed=1)
    # The same project without --ghx-mode runs its tests, and so imports that conftest.
    plain = pytester.runpytest()
    assert plain.ret != 0
    assert "tests/conftest.py must not be imported" in plain.stdout.str() + plain.stderr.str()


def test_adapter_conftest_beside_the_scenarios_loads(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    (pytester.path / "conftest.py").unlink()
    (pytester.path / "scenarios" / "conftest.py").write_text(CONFTEST)
    _with_testpaths(pytester)
    pytester.runpytest("--ghx-mode=ghx", "--reps=2").assert_outcomes(passed=2)


def test_scenario_root_from_config_and_explicit_paths(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    (pytester.path / "scenarios").rename(pytester.path / "bench")
    _with_testpaths(pytester)
    pytester.makeini(INI + "testpaths = tests\nghx_scenarios = bench\n")
    pytester.runpytest("--ghx-mode=ghx").assert_outcomes(passed=1)
    pytester.runpytest("--ghx-mode=ghx", "bench").assert_outcomes(passed=1)


def test_benchmark_mode_from_config_skips_testpaths_conftests(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    _with_testpaths(pytester)
    pytester.makeini(INI + "testpaths = tests\nghx_mode = ghx\n")
    pytester.runpytest().assert_outcomes(passed=1)


# --- The shipped suite ---------------------------------------------------------------------------


def test_shipped_suite_in_a_checkout_is_the_repository_scenarios() -> None:
    assert suite.shipped_suite() == REPO / "scenarios"
    assert suite.default_seed() == REPO / "scenarios" / "fixtures" / "sandbox-seed.yaml"
    assert suite.default_seed().is_file()


def test_package_data_wins_when_present(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    packaged = tmp_path / "_suite"
    monkeypatch.setattr(suite, "_PACKAGED", packaged)
    assert suite.shipped_suite() == REPO / "scenarios"  # not there: the checkout's
    packaged.mkdir()
    assert suite.shipped_suite() == packaged


def test_outside_a_checkout_only_package_data_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In site-packages a ``scenarios/`` beside the package belongs to someone else."""
    site = tmp_path / "site-packages"
    (site / "scenarios").mkdir(parents=True)
    monkeypatch.setattr(suite, "PACKAGE_DIR", site / "pytest_ghxbench")
    monkeypatch.setattr(suite, "_PACKAGED", site / "pytest_ghxbench" / "_suite")
    monkeypatch.setattr(suite, "_CHECKOUT", site / "scenarios")
    assert suite.shipped_suite() == site / "pytest_ghxbench" / "_suite"
    with pytest.raises(suite.ShippedDataMissing, match=r"_suite is not a directory"):
        suite.require_shipped_suite()


def test_wheel_carries_the_suite_where_the_code_looks() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    wheel = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]
    target = wheel["force-include"]["scenarios"]
    assert REPO / target == REPO / "pytest_ghxbench" / suite._PACKAGED.name
    assert wheel["packages"] == ["pytest_ghxbench"]


def _shipped_ids() -> int:
    return len(load_catalog(suite.shipped_suite()).scenarios)


SHIPPED_HEADER_CONFTEST = textwrap.dedent(
    """
    from pytest_ghxbench.options import describe_scenario_root
    from pytest_ghxbench.hooks.keys import SESSION_KEY


    def pytest_report_header(config):
        session = config.stash[SESSION_KEY]
        return "rootdir conftest: scenarios=" + describe_scenario_root(session.settings)
    """
)


def test_empty_directory_runs_the_shipped_suite(pytester: pytest.Pytester) -> None:
    # A test* directory beside the run is one pytest would load initial conftests from.
    pytester.mkdir("tests").joinpath("conftest.py").write_text(BROKEN_TESTS_CONFTEST)
    pytester.makeconftest(SHIPPED_HEADER_CONFTEST)
    result = pytester.runpytest_subprocess("--ghx-mode=ghx", "--reps=4", "--collect-only")
    assert result.ret == 0, result.stdout.str()[-3000:] + result.stderr.str()
    shipped = suite.shipped_suite()
    result.stdout.fnmatch_lines(
        [
            f"rootdir conftest: scenarios={shipped} (the suite shipped with pytest-ghxbench: "
            "no scenarios/ directory in the rootdir and no --ghx-scenarios)",
            f"collected {4 * _shipped_ids()} items",
        ]
    )
    assert not (pytester.path / ".ghxbench" / "runs").exists()


def test_empty_directory_runs_shipped_items(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        "--ghx-mode=agent_direct,ghx", "--reps=1", "-k", "repo-view or issue-view"
    )
    # The gate's verdict decides the exit status; every item ran and passed.
    assert result.ret in (0, 1), result.stdout.str()[-3000:]
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 4, result.stdout.str()[-3000:]
    assert not {"failed", "error", "errors"} & set(outcomes)
    assert len(list((pytester.path / ".ghxbench" / "runs").glob("run_*/rows.jsonl"))) == 1


def test_a_scenarios_directory_is_not_the_shipped_suite(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    result = pytester.runpytest("--ghx-mode=ghx", "--collect-only")
    result.stdout.fnmatch_lines([f"ghxbench: scenarios={pytester.path / 'scenarios'} results=*"])
    assert "the suite shipped with" not in result.stdout.str()


def test_describe_scenario_root() -> None:
    base = Settings(
        modes=("ghx",), reps=1, adapter="oracle", backend="sandbox", scenario_set=None,
        scenario_root=Path("/x/suite"), fixture_manifest=None, gate_profile="verify_pr",
        gate_required=False, baseline="agent_direct", candidate="ghx", baseline_rows=None,
        results_dir=Path("/r"), strict=False, model=None,
    )  # fmt: skip
    assert describe_scenario_root(base) == "/x/suite"
    shipped = Settings(**{**base.__dict__, "shipped_suite": True})
    assert describe_scenario_root(shipped).startswith("/x/suite (the suite shipped with ")


# --- Unusable data files are usage errors --------------------------------------------------------


def test_missing_shipped_suite_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    missing = tmp_path / "gone" / "_suite"
    monkeypatch.setattr(suite, "_PACKAGED", missing)
    monkeypatch.setattr(suite, "_CHECKOUT", missing)
    result = pytester.runpytest("--ghx-mode=ghx")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "INTERNALERROR" not in result.stdout.str() + err
    assert f"the scenario suite shipped with pytest-ghxbench is missing: {missing}" in err


BROKEN_SEED_CONFTEST = textwrap.dedent(
    """
    from pathlib import Path

    from pytest_ghxbench.sandbox.backend import SandboxBackend


    class SeededFrom(SandboxBackend):
        name = "seeded"


    def pytest_ghxbench_backends(config):
        return [SeededFrom(seed=Path(__file__).with_name("seed.yaml"))]
    """
)


@pytest.mark.parametrize(
    ("seed", "problem"),
    [
        (None, "cannot read sandbox seed"),
        ("world: [\n", "invalid YAML"),
        ("- a list\n", "a sandbox seed must be a mapping with 'world' and 'resources'"),
        ("world: {}\nresources: {}\n", "invalid sandbox seed"),
    ],
)
def test_broken_seed_is_a_usage_error(
    pytester: pytest.Pytester, seed: str | None, problem: str
) -> None:
    pytester.makeconftest(BROKEN_SEED_CONFTEST)
    if seed is not None:
        (pytester.path / "seed.yaml").write_text(seed)
    result = pytester.runpytest("--ghx-mode=ghx", "--ghx-backend=seeded")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()[-2000:]
    err = result.stderr.str()
    assert "INTERNALERROR" not in result.stdout.str() + err
    assert f"backend 'seeded': {pytester.path / 'seed.yaml'}: {problem}" in err


def test_broken_scenario_sets_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    setup_project(pytester, [atomic("repo-view-001")])
    (pytester.path / "scenarios" / "scenario-sets.yaml").write_text("smoke: [\n")
    result = pytester.runpytest("--ghx-mode=ghx")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()[-2000:]
    err = result.stderr.str()
    assert "INTERNALERROR" not in result.stdout.str() + err
    assert "scenario-sets.yaml" in err


@pytest.mark.parametrize("command", ["run", "serve"])
def test_sandbox_command_with_missing_seed(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_ghxbench.cli.sandbox import run_sandbox

    # By module name: pytester's in-process runs may leave a stale `manifest` attribute on the
    # sandbox package.
    manifest = importlib.import_module("pytest_ghxbench.sandbox.manifest")
    # SandboxBackend's default seed is bound when its module is first imported: not to the
    # missing one, or every later test of this process would get it.
    importlib.import_module("pytest_ghxbench.sandbox.backend")
    missing = tmp_path / "seed.yaml"
    monkeypatch.setattr(manifest, "DEFAULT_SEED", missing)
    args = ["run", "--mode", "ghx", "--", "true"] if command == "run" else ["serve"]
    out, err = io.StringIO(), io.StringIO()
    assert run_sandbox(args, stdout=out, stderr=err) == 2
    assert f"ghxbench sandbox {command}: {missing}: cannot read sandbox seed" in err.getvalue()


def test_xdist_workers_skip_testpaths_conftests(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    setup_project(pytester, [atomic("repo-view-001"), atomic("repo-view-002")])
    _with_testpaths(pytester)
    result = pytester.runpytest_subprocess("--ghx-mode=ghx", "--reps=2", "-n", "2")
    result.assert_outcomes(passed=4)


# --- The ghxbench command line from an installation ---------------------------------------------


def test_ghxbench_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib import metadata

    from pytest_ghxbench.cli.main import main

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"ghxbench {metadata.version('pytest-ghxbench')}"


def test_ghxbench_check_defaults_to_the_shipped_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_ghxbench.cli.main import main

    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 0
    assert f"{_shipped_ids()} scenarios" in capsys.readouterr().out
