"""The JSON Schema of one scenario file, generated from the models, for editors and CI.

``python -m pytest_ghxbench.scenario.schema`` rewrites the shipped ``scenario.schema.json``;
with ``--check`` it only reports (exit 1) whether the shipped file is stale.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic.json_schema import models_json_schema

from pytest_ghxbench.scenario.models import AtomicScenario, WorkflowScenario

__all__ = ["SCHEMA_ID", "SCHEMA_PATH", "main", "render_schema", "scenario_json_schema"]

SCHEMA_PATH = Path(__file__).with_name("scenario.schema.json")
SCHEMA_ID = "urn:pytest-ghxbench:scenario.schema.json"
_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def scenario_json_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) accepting exactly one atomic or workflow scenario."""
    _, definitions = models_json_schema(
        [(AtomicScenario, "validation"), (WorkflowScenario, "validation")],
        ref_template="#/$defs/{model}",
    )
    return {
        "$schema": _DIALECT,
        "$id": SCHEMA_ID,
        "title": "pytest-ghxbench scenario",
        "description": (
            "One benchmark scenario: atomic (a capability task judged from the answer "
            "envelope) or workflow (type: workflow; a prompt judged by checkpoints). Rules "
            "across fields (placeholders, min/max tool calls, error codes) are checked by "
            "`ghxbench check`."
        ),
        "anyOf": [
            {"$ref": "#/$defs/AtomicScenario"},
            {"$ref": "#/$defs/WorkflowScenario"},
        ],
        "$defs": definitions["$defs"],
    }


def render_schema() -> str:
    """The schema file's exact text."""
    return json.dumps(scenario_json_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Write the shipped schema file, or with ``--check`` exit 1 if it is out of date."""
    parser = argparse.ArgumentParser(prog="python -m pytest_ghxbench.scenario.schema")
    parser.add_argument("--check", action="store_true", help="only check the shipped file")
    parser.add_argument("--output", type=Path, default=SCHEMA_PATH, help="file to write/check")
    options = parser.parse_args(argv)
    expected = render_schema()
    if options.check:
        current = options.output.read_text(encoding="utf-8") if options.output.exists() else ""
        if current != expected:
            print(
                f"{options.output} is stale; run `python -m pytest_ghxbench.scenario.schema`",
                file=sys.stderr,
            )
            sys.exit(1)
        print(f"{options.output} is up to date")
        return
    options.output.write_text(expected, encoding="utf-8")
    print(f"wrote {options.output}")


if __name__ == "__main__":
    main()
