"""End to end: the default adapter and backend produce oracle rows through pytest."""

from __future__ import annotations

import json

import pytest

from tests.paths import EXTERNAL_SCENARIOS

needs_external = pytest.mark.skipif(
    not EXTERNAL_SCENARIOS.is_dir(), reason="shared/external is not beside the checkout"
)


@needs_external
def test_default_run_records_oracle_rows(pytester: pytest.Pytester) -> None:
    root = pytester.path / "scenarios"
    root.mkdir()
    for name in ("repo-view-001.json", "issue-close-001.json"):
        (root / name).write_text((EXTERNAL_SCENARIOS / name).read_text())
    result = pytester.runpytest("--ghx-mode=ghx", "--reps=2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)
    rows = [
        json.loads(line)
        for path in sorted((pytester.path / ".ghxbench" / "runs").glob("run_*/rows.jsonl"))
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    assert len(rows) == 4
    models = {f"{row['model']['provider_id']}/{row['model']['model_id']}" for row in rows}
    assert models == {"ghxbench/oracle"}
    assert all(row["success"] and row["output_valid"] for row in rows)
    by_scenario: dict[str, list[dict[str, int]]] = {}
    for row in rows:
        by_scenario.setdefault(row["scenario_id"], []).append(row["tokens"])
    for tokens in by_scenario.values():
        assert tokens[0] == tokens[1] and tokens[0]["input"] > 0
