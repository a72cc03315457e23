"""A timeout dump shows the adapter's stack first and none of the harness's own threads, also
when the adapter lives in a project that holds the harness itself (a checkout with a
conftest adapter, or a ``.venv`` inside the project)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

import pytest_ghxbench
from tests.plugin.support import CONFTEST, atomic, setup_project

ADAPTER = textwrap.dedent(
    """
    import threading

    (HERE / "harness-path").write_text(gb.__file__)

    class Hanging(ScriptedAdapter):
        def run(self, request):
            if request.scenario.id == "repo-view-002":
                worker = threading.Thread(target=agent_loop, name="adapter-worker", daemon=True)
                worker.start()
                worker.join()
            return super().run(request)


    def agent_loop():
        while True:
            wait_for_the_model()


    def wait_for_the_model():
        time.sleep(0.05)


    def pytest_ghxbench_adapters(config):
        return [Hanging()]
    """
)


def _titles(output: str) -> list[str]:
    section = output.split("threads of the attempt when it was stopped:", 1)[1]
    return [line.strip("- ") for line in section.splitlines() if line.startswith("---- thread")]


def test_the_dump_starts_with_the_adapter_and_leaves_the_harness_out(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The harness is imported from inside the project, as from a checkout or a project .venv.
    source = pytester.path / "src"
    source.mkdir()
    (source / "pytest_ghxbench").symlink_to(Path(pytest_ghxbench.__file__).parent)
    monkeypatch.setenv("PYTHONPATH", str(source))
    # The first item's row starts the row writer's fsync thread; the second item hangs.
    setup_project(pytester, [atomic("repo-view-001"), atomic("repo-view-002", timeout_ms=300)])
    pytester.makeconftest(CONFTEST + ADAPTER)

    result = pytester.runpytest_subprocess("--ghx-mode=ghx", "-p", "no:cacheprovider")

    result.assert_outcomes(passed=1, failed=1)
    output = result.stdout.str() + result.stderr.str()
    # the harness did run from inside the project
    assert (pytester.path / "harness-path").read_text().startswith(str(source))
    assert _titles(result.stdout.str())[0] == "thread 'adapter-worker' (started during the attempt)"
    assert "ghxbench-row-fsync" not in output and "_sync_loop" not in output
    (path,) = (pytester.path / ".ghxbench" / "runs").glob("run_*/transcripts/*.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    (hung,) = [r for r in records if "repo-view-002" in r["item_id"]]
    assert [s["thread"] for s in hung["thread_stacks"]] == [
        "thread 'adapter-worker' (started during the attempt)"
    ]
