"""Shared fixtures for the scenario-format tests."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.paths import EXTERNAL_SCENARIOS

EXTERNAL_ROOT = EXTERNAL_SCENARIOS
EXAMPLE_MANIFEST = EXTERNAL_ROOT.parent / "ghx-fixture-manifest.example.json"

# Line numbers matter: tests replace single lines and assert the reported line.
ATOMIC_YAML = """\
id: pr-view-001
name: View a pull request
task: pr.view
input:
  owner: OWNER
  name: REPO
  prNumber: 0
prompt_template: "Run {{task}} on {{fixture_repo}} with {{input_json}}"
timeout_ms: 60000
allowed_retries: 0
fixture:
  repo: acme/widgets
  bindings:
    input.owner: repo.owner
    input.prNumber: resources.pr.number
  requires: [pr]
assertions:
  expected_outcome: success
  required_data_fields: [number, title]
  min_tool_calls: 1
  max_tool_calls: 4
tags: [pr, view]
"""

WORKFLOW_YAML = """\
type: workflow
id: pr-triage-wf-001
name: Triage a PR
prompt: "Review PR #{{prNumber}} in {{owner}}/{{repo}}"
input:
  repo: widgets
fixture:
  bindings:
    input.owner: repo.owner
    input.prNumber: resources.pr.number
expected_capabilities: [pr.view, pr.review.submit_comment]
timeout_ms: 180000
allowed_retries: 1
assertions:
  checkpoints:
    - name: review_submitted
      verification_task: pr.reviews.list
      verification_input: {first: 10}
      condition: count_gte
      expected_value: 1
tags: [workflow, pr]
oracle:
  - task: pr.review.submit_comment
    input: {owner: "{{owner}}", body: hi}
"""


def replace_lines(text: str, replacements: dict[int, str]) -> str:
    """``text`` with the given 1-based lines replaced (line count unchanged)."""
    lines = text.splitlines()
    for number, new in replacements.items():
        lines[number - 1] = new
    return "\n".join(lines) + "\n"


@pytest.fixture
def variant() -> Callable[[str, dict[int, str]], str]:
    """variant("atomic" | "workflow", {line: new_text}) -> the base document with lines replaced."""

    def _variant(kind: str, replacements: dict[int, str]) -> str:
        return replace_lines(ATOMIC_YAML if kind == "atomic" else WORKFLOW_YAML, replacements)

    return _variant


@pytest.fixture
def external_root() -> Path:
    if not EXTERNAL_ROOT.is_dir():
        pytest.skip(f"external ghx scenarios not available at {EXTERNAL_ROOT}")
    return EXTERNAL_ROOT


@pytest.fixture
def example_manifest_path(external_root: Path) -> Path:
    return EXAMPLE_MANIFEST


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """write(relative_name, text_or_bytes) -> the written path under tmp_path."""

    def _write(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content), encoding="utf-8")
        return path

    return _write
