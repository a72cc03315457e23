"""The scenario format: models, loading with precise errors, fixture binding and prompts."""

from pytest_ghxbench.scenario.loader import (
    LoadedScenario,
    ScenarioCatalog,
    ScenarioError,
    is_scenario_file,
    load_catalog,
    load_scenario_file,
    load_sets,
    parse_scenario,
)
from pytest_ghxbench.scenario.manifest import (
    ManifestError,
    MissingResource,
    bind_input,
    fixture_repo,
    load_manifest,
    lookup,
    missing_resources,
)
from pytest_ghxbench.scenario.models import (
    AtomicAssertions,
    AtomicScenario,
    Checkpoint,
    Fixture,
    OracleStep,
    Scenario,
    WorkflowAssertions,
    WorkflowScenario,
)
from pytest_ghxbench.scenario.prompt import (
    DEFAULT_MODE_INSTRUCTIONS,
    mode_instructions,
    render_prompt,
)

__all__ = [
    "DEFAULT_MODE_INSTRUCTIONS",
    "AtomicAssertions",
    "AtomicScenario",
    "Checkpoint",
    "Fixture",
    "LoadedScenario",
    "ManifestError",
    "MissingResource",
    "OracleStep",
    "Scenario",
    "ScenarioCatalog",
    "ScenarioError",
    "WorkflowAssertions",
    "WorkflowScenario",
    "bind_input",
    "fixture_repo",
    "is_scenario_file",
    "load_catalog",
    "load_manifest",
    "load_scenario_file",
    "load_sets",
    "lookup",
    "missing_resources",
    "mode_instructions",
    "parse_scenario",
    "render_prompt",
]
