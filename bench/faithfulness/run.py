"""How faithfully the sandbox answers what real clients ask: runs the corpora (``FORMAT.md``).

Each case runs in a fresh sandbox item through its client (``clients_<client>.py``), within
30 s; its expectations say what GitHub answers. A case is *as GitHub* (every expectation met),
*diverged, recorded* (one failed and the item recorded a sandbox gap) or *diverged, silent*
(one failed and no gap was recorded).

    python bench/faithfulness/run.py [--client gh] [--case ID] [--json OUT]
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cases import (
    CASE_TIMEOUT,
    CLIENTS,
    Case,
    CaseTimeout,
    CorpusError,
    Outcome,
    failures,
    load_corpora,
    show,
    start_clock,
)

from pytest_ghxbench.sandbox.backend import SandboxBackend, SandboxSession

CORPUS = Path(__file__).resolve().parent / "corpus"
MODES = {"gh": "agent_direct", "git": "agent_direct", "graphql": "agent_direct", "mcp": "mcp"}
GRACE = 10.0
"""Seconds past the case's time the runner waits for a client that does not keep to it."""

StepRunner = Callable[[Any, SandboxSession], Outcome]


@dataclass
class Result:
    id: str
    client: str
    file: str
    verdict: str
    """``as GitHub``, ``diverged, recorded`` or ``diverged, silent``."""
    failures: list[str] = field(default_factory=list)
    gaps: list[dict[str, Any]] = field(default_factory=list)
    output: str = ""
    seconds: float = 0.0


def _step_runner(client: str) -> StepRunner | None:
    try:
        module = importlib.import_module(f"clients_{client}")
    except ModuleNotFoundError as error:
        if error.name != f"clients_{client}":
            raise
        return None
    runner: StepRunner = module.run_step
    return runner


def _attempt(case: Case, run_step: StepRunner, session: SandboxSession) -> tuple[list[str], str]:
    """(failed expectations, the run step's output), within the case's time."""
    start_clock()
    for number, step in enumerate(case.setup, 1):
        try:
            run_step(step, session)
        except CaseTimeout:
            raise
        except Exception as error:  # a setup step's answer is unchecked, its crash is not
            return [f"setup step {number} raised {type(error).__name__}: {error}"], ""
    outcome = run_step(case.run, session)
    return failures(case.expect, outcome), outcome.output


def run_case(case: Case, run_step: StepRunner, backend: SandboxBackend, root: Path) -> Result:
    started = time.monotonic()
    session = backend.open_session(
        f"faithfulness[{case.id}]", root / case.id.replace("/", "_"), mode=MODES[case.client]
    )
    answer: dict[str, Any] = {}

    def work() -> None:
        try:
            answer["failures"], answer["output"] = _attempt(case, run_step, session)
        except CaseTimeout as error:
            answer["failures"] = [f"timeout: {error}"]
        except Exception as error:
            last = traceback.format_exception_only(type(error), error)[-1].strip()
            answer["failures"] = [f"the client raised {last}"]

    worker = threading.Thread(target=work, name=f"case {case.id}", daemon=True)
    worker.start()
    worker.join(CASE_TIMEOUT + GRACE)
    found: list[str] = answer.get("failures", [f"timeout: no answer within {CASE_TIMEOUT:.0f} s"])
    gaps = _gaps(session)
    if not worker.is_alive():
        _close(session)
    verdict = "as GitHub" if not found else "diverged, recorded" if gaps else "diverged, silent"
    output = str(answer.get("output", "")) if found else ""
    return Result(
        case.id,
        case.client,
        case.source.name,
        verdict,
        found,
        gaps,
        output,
        round(time.monotonic() - started, 2),
    )


def _close(session: SandboxSession) -> None:
    try:
        session.close()
    except Exception as error:  # the next case gets its own session
        print(f"    (closing the session failed: {error!r})", file=sys.stderr)


def _gaps(session: SandboxSession) -> list[dict[str, Any]]:
    try:
        return [dict(gap) for gap in session.sandbox_gaps()]
    except Exception as error:  # the report goes on; the case says why it has no gaps
        return [{"kind": "unreadable", "detail": f"sandbox_gaps() raised {error!r}", "count": 1}]


# -- the report --------------------------------------------------------------------------------


def summary(results: list[Result]) -> dict[str, dict[str, int]]:
    """Per client, and overall: cases and how many ended each way."""
    table: dict[str, dict[str, int]] = {}
    for name in [*CLIENTS, "overall"]:
        rows = [r for r in results if name in ("overall", r.client)]
        if rows or name == "overall":
            table[name] = {
                "cases": len(rows),
                "as_github": sum(r.verdict == "as GitHub" for r in rows),
                "as_github_with_gap": sum(r.verdict == "as GitHub" and bool(r.gaps) for r in rows),
                "diverged_recorded": sum(r.verdict == "diverged, recorded" for r in rows),
                "diverged_silent": sum(r.verdict == "diverged, silent" for r in rows),
            }
    return table


def _table(results: list[Result]) -> None:
    print(f"{'client':10s} {'cases':>6s} {'as GitHub':>10s} {'+ a gap':>8s} {'diverged:':>10s}")
    print(f"{'':10s} {'':>6s} {'':>10s} {'':>8s} {'recorded':>10s} {'silent':>7s} {'faithful':>9s}")
    for name, row in summary(results).items():
        share = f"{100 * row['as_github'] / row['cases']:.1f}%" if row["cases"] else "-"
        print(
            f"{name:10s} {row['cases']:6d} {row['as_github']:10d} {row['as_github_with_gap']:8d}"
            f" {row['diverged_recorded']:10d} {row['diverged_silent']:7d} {share:>9s}"
        )


def report(results: list[Result], skipped: dict[str, int]) -> None:
    print()
    _table(results)
    for name, count in skipped.items():
        print(f"(not run: {count} {name} cases, clients_{name}.py is missing)")
    diverged = [r for r in results if r.verdict != "as GitHub"]
    diverged.sort(key=lambda r: (r.verdict != "diverged, silent", r.client, r.id))
    if diverged:
        print(f"\n{len(diverged)} divergences (silent first):")
    for result in diverged:
        print(f"\n[{result.verdict}] {result.id}  ({result.file})")
        for failure in result.failures:
            print(f"    failed: {failure}")
        if result.output.strip():
            print(f"    output: {show(result.output.strip(), 400)}")
        for gap in result.gaps:
            print(f"    gap: {gap.get('kind')}: {gap.get('detail')} (x{gap.get('count', 1)})")
    noted = [r for r in results if r.verdict == "as GitHub" and r.gaps]
    if noted:
        print(f"\n{len(noted)} cases answered as GitHub with a gap recorded:")
        for result in noted:
            kinds = ", ".join(f"{g.get('kind')}: {g.get('detail')}" for g in result.gaps)
            print(f"    {result.id}: {show(kinds, 300)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--client", choices=CLIENTS, help="run only this client's cases")
    parser.add_argument("--case", action="append", help="run only this case (repeatable)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write every case's result")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    try:
        cases = load_corpora(options.corpus, options.client)
    except CorpusError as error:
        print(f"bad corpus: {error}", file=sys.stderr)
        return 2
    if options.case:
        unknown = set(options.case) - {c.id for c in cases}
        if unknown:
            print(f"no such case: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        cases = [c for c in cases if c.id in options.case]
    runners = {name: _step_runner(name) for name in {c.client for c in cases}}
    skipped = {n: sum(c.client == n for c in cases) for n, r in runners.items() if r is None}
    backend = SandboxBackend()
    results: list[Result] = []
    try:
        with tempfile.TemporaryDirectory(prefix="faithfulness-") as scratch:
            for number, case in enumerate(cases, 1):
                run_step = runners[case.client]
                if run_step is None:
                    continue
                result = run_case(case, run_step, backend, Path(scratch))
                results.append(result)
                print(
                    f"[{number}/{len(cases)}] {result.verdict:18s} {case.id} ({result.seconds} s)",
                    flush=True,
                )
    finally:
        backend.close()
    report(results, skipped)
    if options.json:
        document = {"summary": summary(results), "cases": [asdict(r) for r in results]}
        options.json.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
