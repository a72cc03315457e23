"""What the agent is told: the answer contract, the rendered template, mode instructions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_ghxbench.scenario import (
    DEFAULT_MODE_INSTRUCTIONS,
    bind_input,
    fixture_repo,
    load_manifest,
    load_scenario_file,
    mode_instructions,
    render_prompt,
)

Write = Callable[..., Path]
Variant = Callable[[str, dict[int, str]], str]


@pytest.fixture
def external_pr_view_prompt(
    external_root: Path, example_manifest_path: Path
) -> Callable[[str], str]:
    scenario = load_scenario_file(external_root / "pr-view-001.json")
    manifest = load_manifest(example_manifest_path)
    bound = bind_input(scenario, manifest)
    repo = fixture_repo(scenario, manifest)
    return lambda mode: render_prompt(scenario, bound, mode, repo)


def test_ghx_prompt_states_the_contract_before_the_template(
    external_pr_view_prompt: Callable[[str], str],
) -> None:
    prompt = external_pr_view_prompt("ghx")
    contract, template = prompt.split("\n\n", 1)
    assert contract.splitlines() == [
        "Answer contract:",
        "- Target repository: aryeko/ghx-bench-fixtures.",
        "- Perform the task with your tools against GitHub for real; do not guess, invent or "
        "simulate results.",
        '- Your final answer must be exactly one JSON object with the keys "ok", "data", '
        '"error" and "meta", and no other text.',
        '- On success: "ok": true, "error": null, and the result in "data".',
        '- "data" must include: number, title, state.',
        '- "meta" must include: route_used.',
        '- "meta.route_used" must be "cli".',
    ]
    assert template.startswith("Execute task pr.view for repository aryeko/ghx-bench-fixtures")


def test_input_json_is_compact(external_pr_view_prompt: Callable[[str], str]) -> None:
    prompt = external_pr_view_prompt("ghx")
    assert 'using input {"owner":"aryeko","name":"ghx-bench-fixtures","prNumber":1}.' in prompt


@pytest.mark.parametrize("mode", ["agent_direct", "mcp", "custom_mode"])
def test_route_used_is_only_mentioned_in_ghx_mode(
    external_pr_view_prompt: Callable[[str], str], mode: str
) -> None:
    prompt = external_pr_view_prompt(mode)
    assert "route_used" not in prompt
    assert '"data" must include: number, title, state.' in prompt
    assert '"meta" must include' not in prompt  # route_used was the only meta field


def test_other_meta_fields_stay_required_outside_ghx(write: Write, variant: Variant) -> None:
    text = variant("atomic", {19: "  required_meta_fields: [route_used, reason]"})
    scenario = load_scenario_file(write("s.yaml", text))
    prompt = render_prompt(scenario, scenario.input, "agent_direct", "acme/widgets")
    assert '- "meta" must include: reason.' in prompt


def test_expected_error_contract(write: Write, variant: Variant) -> None:
    text = variant(
        "atomic",
        {18: "  expected_outcome: expected_error", 19: "  expected_error_code: NOT_FOUND"},
    )
    scenario = load_scenario_file(write("s.yaml", text))
    prompt = render_prompt(scenario, scenario.input, "mcp", "acme/widgets")
    assert (
        '- This task is expected to fail: answer with "ok": false and an "error" object '
        'whose "code" is "NOT_FOUND".'
    ) in prompt
    assert '"ok": true' not in prompt


def test_template_placeholders_and_missing_repo(write: Write, variant: Variant) -> None:
    text = variant(
        "atomic",
        {
            8: 'prompt_template: "{{ scenario_id }} / {{task}} / [{{fixture_repo}}]"',
            19: "  data_type: object",
        },
    )
    scenario = load_scenario_file(write("s.yaml", text))
    prompt = render_prompt(scenario, {}, "ghx", None)
    assert prompt.endswith("\n\npr-view-001 / pr.view / []")
    assert "- Target repository: as given in the input." in prompt
    assert '- "data" must be a JSON object.' in prompt


def test_workflow_prompt_fills_placeholders_from_bound_input(
    write: Write, variant: Variant
) -> None:
    text = variant("workflow", {4: 'prompt: "PR #{{prNumber}} in {{owner}}/{{repo}}: {{filter}}"'})
    text = text.replace("input:\n  repo: widgets", "input:\n  repo: widgets\n  filter: {a: 1}")
    scenario = load_scenario_file(write("w.yaml", text))
    bound = {"repo": "widgets", "owner": "acme", "prNumber": 7, "filter": {"a": 1}}
    assert render_prompt(scenario, bound, "ghx", "acme/widgets") == 'PR #7 in acme/widgets: {"a":1}'


def test_workflow_prompt_with_an_unbound_placeholder_is_an_error(
    write: Write, variant: Variant
) -> None:
    scenario = load_scenario_file(write("w.yaml", variant("workflow", {})))
    with pytest.raises(ValueError, match=r"placeholder \{\{owner\}\} has no value"):
        render_prompt(scenario, {"repo": "widgets", "prNumber": 7}, "ghx", None)


def test_mode_instructions_override_default_generic() -> None:
    assert "`gh" in mode_instructions("agent_direct")
    assert "MCP server" in mode_instructions("mcp")
    ghx = mode_instructions("ghx")
    assert "ghx run <capability> --input" in ghx and "ghx capabilities list" in ghx
    assert mode_instructions("ghx", {"ghx": "Use ghx v2."}) == "Use ghx v2."
    assert mode_instructions("mcp", {"ghx": "Use ghx v2."}) == DEFAULT_MODE_INSTRUCTIONS["mcp"]
    assert "'rest'" in mode_instructions("rest")
    assert set(DEFAULT_MODE_INSTRUCTIONS) == {"agent_direct", "mcp", "ghx"}
