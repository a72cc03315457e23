"""Fixture manifests: loading, lookups, bindings, required resources, the target repo."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.scenario import (
    ManifestError,
    MissingResource,
    bind_input,
    fixture_repo,
    load_manifest,
    load_scenario_file,
    lookup,
    missing_resources,
)

Write = Callable[..., Path]
Variant = Callable[[str, dict[int, str]], str]

MANIFEST: dict[str, Any] = {
    "repo": {"owner": "acme", "name": "widgets", "full_name": "acme/widgets"},
    "resources": {"pr": {"number": 7}, "labels": [{"name": "bug"}], "gone": None},
}


def test_bind_input_on_the_external_pr_view(
    external_root: Path, example_manifest_path: Path
) -> None:
    scenario = load_scenario_file(external_root / "pr-view-001.json")
    manifest = load_manifest(example_manifest_path)
    bound = bind_input(scenario, manifest)
    assert bound == {"owner": "aryeko", "name": "ghx-bench-fixtures", "prNumber": 1}
    assert scenario.input["owner"] == "OWNER_PLACEHOLDER"  # the scenario itself is untouched
    assert fixture_repo(scenario, manifest) == "aryeko/ghx-bench-fixtures"


def test_workflow_input_comes_from_bindings_alone(
    external_root: Path, example_manifest_path: Path
) -> None:
    scenario = load_scenario_file(external_root / "workflows" / "ci-diagnose-run-wf-001.json")
    bound = bind_input(scenario, load_manifest(example_manifest_path))
    assert bound == {"owner": "aryeko", "name": "ghx-bench-fixtures", "runId": 1}


def test_missing_binding_path_names_binding_and_path(
    external_root: Path, example_manifest_path: Path
) -> None:
    scenario = load_scenario_file(
        external_root / "workflows" / "pr-fix-review-comments-wf-001.json"
    )
    manifest = load_manifest(example_manifest_path)
    assert missing_resources(scenario, manifest) == ["pr_with_reviews"]
    with pytest.raises(MissingResource) as caught:
        bind_input(scenario, manifest)
    error = caught.value
    assert isinstance(error, LookupError)
    assert (error.binding, error.dotted) == ("input.prNumber", "resources.pr_with_reviews.number")
    assert str(error).startswith(
        "binding 'input.prNumber': manifest has no 'resources.pr_with_reviews.number': "
        "resources has no key 'pr_with_reviews' (it has: blocker_issue, check_run,"
    )


def test_nested_binding_targets_create_objects(write: Write, variant: Variant) -> None:
    text = variant("atomic", {15: "    input.filter.pr: resources.pr.number"})
    scenario = load_scenario_file(write("s.yaml", text))
    bound = bind_input(scenario, MANIFEST)
    assert bound == {"owner": "acme", "name": "REPO", "prNumber": 0, "filter": {"pr": 7}}


def test_lookup_walks_mappings_and_lists() -> None:
    assert lookup(MANIFEST, "resources.pr.number") == 7
    assert lookup(MANIFEST, "resources.labels.0.name") == "bug"


@pytest.mark.parametrize(
    ("dotted", "reason"),
    [
        ("resources.pr.title", "resources.pr has no key 'title' (it has: number)"),
        ("nothing", "the manifest has no key 'nothing' (it has: repo, resources)"),
        ("resources.labels.3", "resources.labels has only 1 items"),
        ("resources.pr.number.x", "resources.pr.number is a int, not an object with 'x'"),
        ("resources.gone.id", "resources.gone is null"),
    ],
)
def test_lookup_failures_name_the_deepest_existing_key(dotted: str, reason: str) -> None:
    with pytest.raises(MissingResource) as caught:
        lookup(MANIFEST, dotted)
    assert (caught.value.dotted, caught.value.reason) == (dotted, reason)


def test_missing_resources_lists_absent_and_null_requirements(
    write: Write, variant: Variant
) -> None:
    scenario = load_scenario_file(
        write("s.yaml", variant("atomic", {16: "  requires: [pr, issue, gone]"}))
    )
    assert missing_resources(scenario, MANIFEST) == ["issue", "gone"]
    assert missing_resources(scenario, {}) == ["pr", "issue", "gone"]


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        ({"repo": {"full_name": "a/b", "owner": "x", "name": "y"}}, "a/b"),
        ({"repo": {"owner": "x", "name": "y"}}, "x/y"),
        ({"repo": {"owner": "x"}}, "acme/widgets"),
        (None, "acme/widgets"),
    ],
)
def test_fixture_repo_prefers_the_manifest(
    write: Write, variant: Variant, manifest: dict[str, Any] | None, expected: str
) -> None:
    scenario = load_scenario_file(write("s.yaml", variant("atomic", {})))
    assert fixture_repo(scenario, manifest) == expected


def test_fixture_repo_is_none_without_fixture_or_manifest(write: Write, variant: Variant) -> None:
    text = variant("atomic", {n: "#" for n in range(11, 17)})
    scenario = load_scenario_file(write("s.yaml", text))
    assert fixture_repo(scenario, None) is None
    assert bind_input(scenario, MANIFEST) == scenario.input


def test_load_manifest_reads_yaml(write: Write) -> None:
    path = write("m.yaml", "repo:\n  full_name: a/b\nresources:\n  pr: {number: 3}\n")
    assert lookup(load_manifest(path), "resources.pr.number") == 3


@pytest.mark.parametrize(
    ("name", "content", "fragment"),
    [
        ("m.json", "[1, 2]", "a fixture manifest must be a mapping, got list"),
        ("m.json", '{\n  "repo": ,\n}', ":2:11: invalid JSON: Expecting value"),
        ("m.yaml", "repo: [\n", "invalid YAML"),
        ("m.yaml", "", "a fixture manifest must be a mapping, got nothing"),
        ("m.json", b"\xff", "cannot read fixture manifest"),
    ],
)
def test_bad_manifests_name_the_file_and_problem(
    write: Write, name: str, content: str | bytes, fragment: str
) -> None:
    path = write(name, content)
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    assert str(caught.value).startswith(str(path))
    assert fragment in str(caught.value)
