"""docs/sandbox.md lists every ghx capability and how the external scenarios fare with them
over the sandbox's API.

Regenerate both tables after adding or changing a capability:

    python -m tests.sandbox.test_registry_docs --write
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from pytest_ghxbench.ghx.registry import Capability, all_capabilities
from pytest_ghxbench.scenario.models import AtomicScenario
from tests.paths import REPO_ROOT
from tests.sandbox.conftest import external_atomic, is_registered, needs_external, run_scenario

DOC = REPO_ROOT / "docs" / "sandbox.md"


def _inputs(cap: Capability) -> str:
    required = list(cap.input_schema.get("required", []))
    optional = [key for key in cap.properties if key not in required]
    shown = ", ".join(f"`{key}`" for key in required)
    if optional:
        shown += (" ; " if shown else "") + "optional " + ", ".join(f"`{k}`" for k in optional)
    return shown or "—"


def capability_table() -> str:
    lines = [
        "| capability | route | mutates | input | description |",
        "| --- | --- | --- | --- | --- |",
    ]
    for cap in all_capabilities():
        mutates = "yes" if cap.mutates else ""
        lines.append(
            f"| `{cap.id}` | {cap.route} | {mutates} | {_inputs(cap)} | {cap.description} |"
        )
    return "\n".join(lines)


def _status(scenario: AtomicScenario) -> str:
    if not is_registered(scenario.task):
        return "not yet"
    _, verdict = run_scenario(scenario)
    return "pass" if verdict.passed else "FAIL"


def coverage_table() -> str:
    scenarios = external_atomic("")
    statuses = [_status(s) for s in scenarios]
    passing = statuses.count("pass")
    lines = [
        f"{passing} of {len(scenarios)} pass through the capabilities over the API.",
        "",
        "| scenario | task | expected route | over the API |",
        "| --- | --- | --- | --- |",
    ]
    for scenario, status in zip(scenarios, statuses, strict=True):
        route = scenario.assertions.expected_route_used or "—"
        lines.append(f"| `{scenario.id}` | `{scenario.task}` | {route} | {status} |")
    return "\n".join(lines)


def _section(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- {name}:begin -->\n)(.*?)\n?(<!-- {name}:end -->)", re.DOTALL)


def _current(name: str) -> str:
    match = _section(name).search(DOC.read_text(encoding="utf-8"))
    assert match, f"{DOC} lacks the <!-- {name}:begin --> ... <!-- {name}:end --> markers"
    return match.group(2)


def write(path: Path = DOC) -> None:
    text = path.read_text(encoding="utf-8")
    for name, table in (("capabilities", capability_table()), ("coverage", coverage_table())):
        text = _section(name).sub(lambda m, t=table: m.group(1) + t + "\n" + m.group(3), text)
    path.write_text(text, encoding="utf-8")


def _rows(name: str) -> dict[str, list[str]]:
    """The table rows of a generated section, by their first cell (without backquotes)."""
    rows = {}
    for line in _current(name).splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| `"):
            rows[cells[0].strip("`")] = cells[1:]
    return rows


STALE = "docs/sandbox.md is stale: run `python -m tests.sandbox.test_registry_docs --write`"


def test_doc_lists_every_capability() -> None:
    assert sorted(_rows("capabilities")) == [cap.id for cap in all_capabilities()], STALE


@needs_external
def test_doc_coverage_table_is_current() -> None:
    documented = {key: cells[-1] for key, cells in _rows("coverage").items()}
    actual = {s.id: _status(s) for s in external_atomic("")}
    assert "FAIL" not in actual.values(), [k for k, v in actual.items() if v == "FAIL"]
    assert documented == actual, STALE


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    write()
    print(f"updated {DOC}")
