"""What a user sees of the jail: the header line and run.json say how the agents ran;
``--ghx-isolation=jail`` where no jail can be had stops at once, naming what is missing;
``auto`` there warns and runs unjailed; a jail that fails to start fails its item, naming
bubblewrap's message, and is never quietly replaced by no jail.

Each runs the shipped ``pr-view-001`` with the default agent (the oracle, which runs the real gh
in the item's jail) in ``agent_direct``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.isolation.probe import BWRAP_ENV
from tests.agent_clis.harness import recorded_rows
from tests.isolation.support import (
    NAMESPACE_FAILURE,
    REQUIRE_ENV,
    failing_bwrap,
    require_jail,
    run_shipped,
)

pytestmark = pytest.mark.timeout(300)

HEADER = re.compile(r"^ghxbench: isolation: jail \(bubblewrap \d+\.\d+(\.\d+)?\)$", re.M)
NOT_FOUND = "bubblewrap (bwrap) not found (GHXBENCH_BWRAP=no-such-bwrap)"


def run_pr_view(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str
) -> pytest.RunResult:
    return run_shipped(pytester, monkeypatch, *args, modes="agent_direct")


def run_json(pytester: pytest.Pytester) -> dict[str, Any]:
    (spec,) = (pytester.path / ".ghxbench" / "runs").glob("run_*/run.json")
    found: dict[str, Any] = json.loads(spec.read_text())
    return found


def test_the_header_and_run_json_say_the_agents_ran_jailed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_jail()
    result = run_pr_view(pytester, monkeypatch)
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert HEADER.search(result.stdout.str()), result.stdout.str()[:3000]
    isolation = run_json(pytester)["isolation"]
    assert isolation["kind"] == "jail" and isolation["requested"] == "auto"
    assert re.fullmatch(r"bubblewrap \d+\.\d+(\.\d+)?", isolation["detail"])
    assert [row["success"] for row in recorded_rows(pytester.path)] == [True]


def test_jail_without_bubblewrap_is_a_usage_error_naming_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BWRAP_ENV, "no-such-bwrap")
    result = run_pr_view(pytester, monkeypatch, "--ghx-isolation=jail")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = result.stderr.str()
    assert f"--ghx-isolation=jail cannot be had: {NOT_FOUND}" in error, error
    assert "apt-get install bubblewrap socat" in error
    assert recorded_rows(pytester.path) == []


def test_auto_without_bubblewrap_warns_and_records_why(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BWRAP_ENV, "no-such-bwrap")
    result = run_pr_view(pytester, monkeypatch)
    assert result.ret == 0, result.stdout.str()[-3000:]
    warning = f"ghxbench: WARNING: isolation: none ({NOT_FOUND}; "
    assert warning in result.stdout.str(), result.stdout.str()[:3000]
    assert "agents run unjailed" in result.stdout.str()
    isolation = run_json(pytester)["isolation"]
    assert isolation["kind"] == "none" and isolation["requested"] == "auto"
    assert isolation["detail"].startswith(NOT_FOUND)
    assert [row["success"] for row in recorded_rows(pytester.path)] == [True]


def test_a_jail_that_fails_to_start_fails_its_item_with_bubblewraps_message(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # bubblewrap works for the session's probe, then no item's jail can be made: the item is a
    # runner error saying why, not an item run without a jail
    monkeypatch.setenv(BWRAP_ENV, str(failing_bwrap(tmp_path, require_jail())))
    result = run_pr_view(pytester, monkeypatch, "--ghx-isolation=jail")
    assert HEADER.search(result.stdout.str()), result.stdout.str()[:3000]
    (row,) = recorded_rows(pytester.path)
    assert row["success"] is False
    assert row["error"]["type"] == "runner_error"
    assert NAMESPACE_FAILURE in row["error"]["message"], row["error"]
    assert "jail failed to start" in row["error"]["message"]
    assert NAMESPACE_FAILURE in result.stdout.str()


def test_a_missing_jail_skips_unless_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BWRAP_ENV, "no-such-bwrap")
    monkeypatch.delenv(REQUIRE_ENV, raising=False)
    with pytest.raises(
        pytest.skip.Exception, match=re.escape(f"no jail on this machine: {NOT_FOUND}")
    ):
        require_jail()
    monkeypatch.setenv(REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match=f"{REQUIRE_ENV}=1 but no jail on this machine"):
        require_jail()
