"""YAML read within bounds: aliases are refused (nine lines of nested aliases expand to a
billion nodes) and so is nesting deeper than :data:`MAX_YAML_DEPTH` (PyYAML composes
recursively; libyaml crashes the process), and so are integers too long for ``int()``.

:class:`BoundedSafeLoader` (or :func:`check_yaml_bounds` and :func:`construct_bounded_int` for
libyaml's loaders) apply these limits to the YAML the harness reads: scenario files (through
:mod:`pytest_ghxbench.scenario.documents`), fixture manifests, sandbox seeds.
"""

from __future__ import annotations

from typing import Any

import yaml

from pytest_ghxbench import bounded_json

__all__ = [
    "MAX_YAML_DEPTH",
    "BoundedComposer",
    "BoundedSafeLoader",
    "YAMLRefused",
    "check_yaml_bounds",
    "construct_bounded_int",
]

MAX_YAML_DEPTH = 100
"""Deepest nesting of YAML sequences and mappings accepted (scenarios need under 10)."""

_COLLECTION_START = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_COLLECTION_END = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


class YAMLRefused(yaml.MarkedYAMLError):
    """Valid YAML the harness does not read: an alias, or nesting past :data:`MAX_YAML_DEPTH`.

    ``problem`` is one sentence and ``problem_mark`` where it is; a :class:`yaml.YAMLError`, so
    callers that report bad YAML report this too."""

    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(problem=problem, problem_mark=mark)


def _refusal(event: yaml.Event, depth: int, kind: str) -> YAMLRefused | None:
    if isinstance(event, yaml.AliasEvent):
        return YAMLRefused(
            f"YAML aliases (*{event.anchor}) are not allowed in {kind}", event.start_mark
        )
    if depth > MAX_YAML_DEPTH:
        return YAMLRefused(f"YAML nested deeper than {MAX_YAML_DEPTH} levels", event.start_mark)
    return None


class BoundedComposer:
    """Mix into a pure-Python PyYAML loader (before it) to refuse aliases and deep nesting
    while composing, before anything is expanded. ``yaml_kind`` names the documents."""

    yaml_kind = "these files"
    _yaml_depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        loader: Any = self
        event = loader.peek_event()
        opens = isinstance(event, _COLLECTION_START)
        refused = _refusal(event, self._yaml_depth + opens, self.yaml_kind)
        if refused is not None:
            raise refused
        self._yaml_depth += opens
        try:
            node: yaml.Node = super().compose_node(parent, index)  # type: ignore[misc]
        finally:
            self._yaml_depth -= opens
        return node


def check_yaml_bounds(text: str, loader: type[Any], kind: str) -> None:
    """Raise :class:`YAMLRefused` for the first alias or too-deep collection in ``text``, read
    with ``loader``'s parser (for libyaml's loaders, whose composer is out of reach). Syntax
    errors are left to the real load, which reports them in the same place."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, _COLLECTION_START):
                depth += 1
            refused = _refusal(event, depth, kind)
            if refused is not None:
                raise refused
            if isinstance(event, _COLLECTION_END):
                depth -= 1
    except YAMLRefused:
        raise
    except yaml.MarkedYAMLError as exc:
        # libyaml (PyYAML >= 6.0.4) stops flow nesting at its own limit while scanning ahead,
        # before the events past ours arrive: the same refusal, at libyaml's mark
        if "nesting depth" in str(exc.problem):
            raise YAMLRefused(
                f"YAML nested deeper than {MAX_YAML_DEPTH} levels", exc.problem_mark
            ) from None
        return
    except yaml.YAMLError:
        return


def construct_bounded_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    """PyYAML's ``!!int`` constructor for integers of at most ``MAX_NUMBER_CHARS`` characters
    (``int()`` refuses over 4,300 digits with a ``ValueError`` PyYAML does not mark)."""
    if len(str(node.value)) > bounded_json.MAX_NUMBER_CHARS:
        raise YAMLRefused(
            f"number longer than {bounded_json.MAX_NUMBER_CHARS} characters", node.start_mark
        )
    return loader.construct_yaml_int(node)


class BoundedSafeLoader(BoundedComposer, yaml.SafeLoader):
    """PyYAML's safe loader without aliases, deep nesting or huge integers."""


BoundedSafeLoader.add_constructor("tag:yaml.org,2002:int", construct_bounded_int)
