"""The pytest plugin entry point: hookspecs, options, and switching the benchmark on.

This module loads in every pytest run where the package is installed, so it stays light: the
harness (pydantic models, numpy statistics, the scenario catalog) is imported only when
``--ghx-mode`` (or its config equivalent) turns a session into a benchmark, by
:mod:`pytest_ghxbench.hooks.session_plugin`.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path

import pytest

from pytest_ghxbench import hookspecs
from pytest_ghxbench.hooks.keys import register_marker
from pytest_ghxbench.option_specs import add_options
from pytest_ghxbench.options import resolve_settings

_BASE_MARKERS = {
    "atomic": "ghxbench atomic scenario (a capability call judged from its envelope)",
    "workflow": "ghxbench workflow scenario (a task judged by checkpoints)",
    "agent_direct": "ghxbench mode: the GitHub CLI gh",
    "mcp": "ghxbench mode: a GitHub MCP server",
    "ghx": "ghxbench mode: the ghx capability CLI",
}


_BUILTINS = (
    "pytest_ghxbench.sandbox.plugin_hooks",
    "pytest_ghxbench.github.plugin_hooks",
    "pytest_ghxbench.adapters.oracle.hooks",
    "pytest_ghxbench.adapters.openai_chat.hooks",
    "pytest_ghxbench.adapters.claude_code.hooks",
    "pytest_ghxbench.adapters.codex.hooks",
    "pytest_ghxbench.adapters.opencode.hooks",
    "pytest_ghxbench.adapters.copilot.hooks",
    "pytest_ghxbench.adapters.gemini.hooks",
)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)
    # Built-in backends and adapters; each hooks module imports its implementation lazily.
    for module in _BUILTINS:
        pluginmanager.import_plugin(module)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> Generator[None, None, None]:
    """A benchmark session without paths loads the conftests of the scenarios, not those of
    ``testpaths`` (the project's own tests, whose conftests may need what a benchmark run does
    not have).

    pytest loads the initial conftests from the paths of the command line, else from
    ``testpaths``. While its own implementation of this hook runs, the scenario root stands in
    for the missing paths: the conftests beside the scenarios and above them up to the rootdir
    load (where adapters live), the ones under ``tests/`` do not. ``pytest_configure`` then
    points the collection at the scenario root (:func:`run.session_plugin.activate`)."""
    namespace = early_config.known_args_namespace
    given = getattr(namespace, "file_or_dir", None)
    anchors = None if given else _benchmark_anchors(early_config, namespace)
    if anchors is None:
        return (yield)
    namespace.file_or_dir = anchors
    try:
        return (yield)
    finally:
        namespace.file_or_dir = given


def _benchmark_anchors(early_config: pytest.Config, namespace: object) -> list[str] | None:
    """Where the initial conftests of a benchmark session without paths come from, or ``None``
    when this is not one (pytest's own choice stands)."""
    if any(getattr(namespace, name, False) for name in ("help", "version", "pyargs")):
        return None
    settings = resolve_settings(early_config, namespace)
    if not settings.enabled:
        return None
    root = settings.scenario_root
    anchors = [str(root)]
    rootpath = early_config.rootpath
    conftest = rootpath / "conftest.py"
    if rootpath != root and rootpath not in root.parents and conftest.is_file():
        # The scenarios live elsewhere (the shipped suite): the rootdir's conftest still
        # loads, as it would for `pytest --ghx-mode=...` run there.
        anchors.append(str(conftest))
    return anchors


def pytest_configure(config: pytest.Config) -> None:
    for name, description in _BASE_MARKERS.items():
        register_marker(config, name, description)
    settings = resolve_settings(config)
    if not settings.enabled:
        return
    if config.args_source == pytest.Config.ArgsSource.ARGS and not _covers(
        config.args, settings.scenario_root, config.invocation_params.dir
    ):
        # Explicit paths outside the scenario root (e.g. `pytest tests/` with ghx_mode set in
        # config): no scenario can be collected, so this is not a benchmark session.
        return
    from pytest_ghxbench.hooks.session_plugin import activate

    activate(config, settings)


def _covers(args: list[str], root: Path, invocation_dir: Path) -> bool:
    root = root.resolve()
    for arg in args:
        path = (invocation_dir / arg.split("::", 1)[0]).resolve()
        if path == root or root in path.parents or path in root.parents:
            return True
    return False
