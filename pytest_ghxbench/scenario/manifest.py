"""Fixture manifests: the seeded resources that ``fixture.bindings`` copy into ``input``."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from pytest_ghxbench import bounded_json
from pytest_ghxbench.scenario.bounded_yaml import BoundedSafeLoader, YAMLRefused
from pytest_ghxbench.scenario.models import Scenario

__all__ = [
    "ManifestError",
    "MissingResource",
    "bind_input",
    "fixture_repo",
    "load_manifest",
    "lookup",
    "missing_resources",
]


class ManifestError(Exception):
    """The manifest file cannot be read or is not a JSON/YAML mapping."""


class MissingResource(LookupError):
    """A dotted manifest path (or a required resource) the manifest does not provide."""

    def __init__(self, dotted: str, reason: str, *, binding: str | None = None) -> None:
        self.dotted = dotted
        self.reason = reason
        self.binding = binding
        prefix = f"binding {binding!r}: " if binding else ""
        super().__init__(f"{prefix}manifest has no {dotted!r}: {reason}")

    def __str__(self) -> str:
        return str(self.args[0])

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_missing, (self.dotted, self.reason, self.binding))


def _rebuild_missing(dotted: str, reason: str, binding: str | None) -> MissingResource:
    return MissingResource(dotted, reason, binding=binding)


class _ManifestLoader(BoundedSafeLoader):
    yaml_kind = "fixture manifests"


def _where(mark: yaml.Mark | None) -> str:
    return f"{mark.line + 1}:{mark.column + 1}:" if mark is not None else ""


def load_manifest(path: Path) -> dict[str, Any]:
    """Read a fixture manifest (``.json``, else YAML, which also accepts JSON)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{path}: cannot read fixture manifest: {exc}") from exc
    try:
        if path.suffix.lower() == ".json":
            data = bounded_json.loads(text)
        else:
            data = yaml.load(text, Loader=_ManifestLoader)
    except json.JSONDecodeError as exc:
        raise ManifestError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except YAMLRefused as exc:
        raise ManifestError(f"{path}:{_where(exc.problem_mark)} {exc.problem}") from None
    except yaml.MarkedYAMLError as exc:
        problem = exc.problem or exc.context or "invalid YAML"
        where = _where(exc.problem_mark or exc.context_mark)
        raise ManifestError(f"{path}:{where} invalid YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise ManifestError(f"{path}: invalid YAML: {exc}") from None
    if not isinstance(data, dict):
        found = "nothing" if data is None else type(data).__name__
        raise ManifestError(f"{path}: a fixture manifest must be a mapping, got {found}")
    return data


def lookup(manifest: Mapping[str, Any], dotted: str) -> Any:
    """The value at ``dotted`` (e.g. ``resources.pr.number``; list items by index).

    Raises :class:`MissingResource` naming the deepest part of the path that exists.
    """
    node: Any = manifest
    walked: list[str] = []
    for part in dotted.split("."):
        where = ".".join(walked) or "the manifest"
        if isinstance(node, Mapping):
            if part not in node:
                keys = ", ".join(sorted(map(str, node))) or "none"
                raise MissingResource(dotted, f"{where} has no key {part!r} (it has: {keys})")
            if node[part] is None:
                raise MissingResource(dotted, f"{'.'.join([*walked, part])} is null")
            node = node[part]
        elif isinstance(node, list) and part.isdigit():
            if int(part) >= len(node):
                raise MissingResource(dotted, f"{where} has only {len(node)} items")
            node = node[int(part)]
        else:
            raise MissingResource(
                dotted, f"{where} is a {type(node).__name__}, not an object with {part!r}"
            )
        walked.append(part)
    return node


def missing_resources(scenario: Scenario, manifest: Mapping[str, Any]) -> list[str]:
    """The names in the scenario's ``fixture.requires`` absent from ``manifest["resources"]``."""
    if scenario.fixture is None:
        return []
    resources = manifest.get("resources")
    if not isinstance(resources, Mapping):
        return list(scenario.fixture.requires)
    return [name for name in scenario.fixture.requires if resources.get(name) is None]


def bind_input(scenario: Scenario, manifest: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the scenario's input with every fixture binding filled in from the manifest.

    Targets may be nested (``input.filter.label``); missing intermediate objects are created.
    Raises :class:`MissingResource` naming the binding and the manifest path it needs.
    """
    bound = copy.deepcopy(scenario.input)
    if scenario.fixture is None:
        return bound
    for target, source in scenario.fixture.bindings.items():
        try:
            value = lookup(manifest, source)
        except MissingResource as exc:
            raise MissingResource(exc.dotted, exc.reason, binding=target) from None
        *parents, leaf = target.split(".")[1:]
        node = bound
        for part in parents:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise TypeError(f"binding {target!r}: input.{part} is not an object")
            node = child
        node[leaf] = copy.deepcopy(value)
    return bound


def fixture_repo(scenario: Scenario, manifest: Mapping[str, Any] | None) -> str | None:
    """The target repository: the manifest's ``repo.full_name`` (or ``owner/name``), else the
    scenario's ``fixture.repo``, else ``None``."""
    repo = manifest.get("repo") if manifest is not None else None
    if isinstance(repo, Mapping):
        full_name = repo.get("full_name")
        if isinstance(full_name, str) and full_name:
            return full_name
        owner, name = repo.get("owner"), repo.get("name")
        if isinstance(owner, str) and isinstance(name, str) and owner and name:
            return f"{owner}/{name}"
    return scenario.fixture.repo if scenario.fixture is not None else None
