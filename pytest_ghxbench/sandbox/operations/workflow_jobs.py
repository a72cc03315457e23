"""The jobs a workflow file declares, named as GitHub names them, for a run the sandbox starts
on a commit no run of that workflow has run on (so no earlier run says what its jobs are).

A job is named by its ``name`` (``${{ matrix.* }}`` filled in) or its key; a matrix job
without such a name gets one job per combination, named ``key (value, ...)``. Its steps are
``Set up job``, each step (its ``name``, else ``Run <action>``, else ``Run <first line of the
script>``), then ``Complete job``. Anything the file does not make plain (needs, if, reusable
workflows, include/exclude) is ignored.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

import yaml

__all__ = ["DeclaredJob", "declared_jobs"]

_MATRIX = re.compile(r"\$\{\{\s*matrix\.([\w-]+)\s*\}\}")


@dataclass(frozen=True)
class DeclaredJob:
    name: str
    steps: tuple[str, ...]


def _fill(text: str, values: dict[str, Any]) -> str:
    return _MATRIX.sub(lambda m: str(values.get(m.group(1), m.group(0))), text)


def _step_name(step: Any, values: dict[str, Any]) -> str | None:
    if not isinstance(step, dict):
        return None
    if step.get("name"):
        return _fill(str(step["name"]), values)
    if step.get("uses"):
        return f"Run {step['uses']}"
    script = str(step.get("run") or "").strip().splitlines()
    return f"Run {_fill(script[0], values)}" if script else None


def _combinations(spec: dict[str, Any]) -> list[dict[str, Any]]:
    strategy = spec.get("strategy")
    matrix = strategy.get("matrix") if isinstance(strategy, dict) else None
    if not isinstance(matrix, dict):
        return [{}]
    axes = {
        key: values
        for key, values in matrix.items()
        if key not in ("include", "exclude") and isinstance(values, list) and values
    }
    return [dict(zip(axes, combo, strict=True)) for combo in itertools.product(*axes.values())]


def declared_jobs(text: str) -> list[DeclaredJob]:
    """The jobs of the workflow file ``text``, in file order; ``[]`` when it declares none (or
    is not a workflow)."""
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError:
        return []
    jobs = document.get("jobs") if isinstance(document, dict) else None
    if not isinstance(jobs, dict):
        return []
    found: list[DeclaredJob] = []
    for key, spec in jobs.items():
        if not isinstance(spec, dict):
            continue
        for values in _combinations(spec):
            named = str(spec.get("name") or "")
            if named:
                name = _fill(named, values)
            else:
                suffix = ", ".join(str(v) for v in values.values())
                name = f"{key} ({suffix})" if suffix else str(key)
            raw_steps = spec.get("steps")
            listed = raw_steps if isinstance(raw_steps, list) else []
            steps = [n for n in (_step_name(s, values) for s in listed) if n]
            found.append(DeclaredJob(name, ("Set up job", *steps, "Complete job")))
    return found
