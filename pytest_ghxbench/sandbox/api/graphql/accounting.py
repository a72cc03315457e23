"""Which arguments of a query the resolvers evaluated: every argument the client supplied that
its field's resolver did not read is an ``unevaluated_parameter`` gap
(``Repository.issues(filterBy:)``; ``Repository.issues(filterBy.createdBy:)`` for a field of an
input object the resolver did not read).

By construction, not by lists: a resolver is handed its arguments as :class:`Reads`, a dict
that notes each key read (and hands out its input objects as :class:`Reads` in turn) in the
:class:`Field` of the query it resolves. Once the query has run, :func:`report_unread`
compares, for each field whose resolvers left an argument unread, what they read with what the
client wrote there: the arguments of the field in the query, literals or variables given a
value, not the schema's defaults. A null is not counted (it asks for nothing), nor an empty
input object. Handing the arguments on whole (``{**args}``) reads them all. The calls of one
field (under 30 issues) get the same arguments: once its resolvers have read all they were
given, its later calls are not watched."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from graphql import (
    ArgumentNode,
    FieldNode,
    ListValueNode,
    NullValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    ValueNode,
    VariableNode,
)

from pytest_ghxbench.sandbox.gaps import UNEVALUATED_PARAMETER, record

__all__ = [
    "Field",
    "Read",
    "Reads",
    "handed",
    "mark_read",
    "report_unread",
    "variable_defaults",
]

Tree = Any
"""What the client supplied of a value: ``True`` (a leaf), ``{key: Tree}`` (an input object),
``[Tree | None]`` (a list), None (nothing: absent, null or an empty input object)."""


class Read:
    """What resolvers read of some arguments: keys, and of the input objects among them,
    their own :class:`Read`."""

    __slots__ = ("inner", "keys")

    def __init__(self) -> None:
        self.keys: set[str] = set()
        self.inner: dict[str, Read] = {}

    def of(self, key: str) -> Read:
        found = self.inner.get(key)
        if found is None:
            found = self.inner[key] = Read()
        return found


class Field(Read):
    """One field of a query given arguments: what its resolvers read of them, whether one
    answered, and whether they read all the client wrote (``done``). What the client wrote
    (:attr:`supplied`) is worked out only when a resolver leaves some argument unread: the
    request's ``variables`` (as sent) and the default values of its ``operation``'s variables
    say it. (A field refers to nothing of the request's context: no cycle to collect.)"""

    __slots__ = (
        "_supplied", "answered", "asked", "coordinate", "done", "node", "operation", "variables",
    )  # fmt: skip

    def __init__(
        self,
        coordinate: str,
        node: FieldNode,
        variables: Mapping[str, Any],
        operation: OperationDefinitionNode | None,
        *read: str,
    ) -> None:
        self.keys = set(read)
        self.inner = {}
        self.coordinate = coordinate
        self.node = node
        self.variables = variables
        self.operation = operation
        self.asked = frozenset(a.name.value for a in node.arguments or ())
        self.answered = False
        self.done = self.keys.issuperset(self.asked)  # read by construction: nothing to watch
        self._supplied: dict[str, Tree] | None = None

    @property
    def supplied(self) -> dict[str, Tree]:
        if self._supplied is None:
            arguments = self.node.arguments or ()
            defaults = {} if self.operation is None else variable_defaults(self.operation)
            self._supplied = _arguments(arguments, self.variables, defaults)
        return self._supplied

    def settle(self, values: dict[Any, Any]) -> None:
        """Note a call that answered, given ``values``: once all that the client wrote is
        read, stop watching."""
        self.answered = True
        self.done = self.keys.issuperset(self.asked) and _inner_covered(values, self)
        if not self.done:  # some of values unread: the schema's defaults, or a gap
            self.done = next(_unread(self.supplied, self), None) is None


def _inner_covered(values: dict[Any, Any], read: Read) -> bool:
    for key, inner in read.inner.items():
        value = dict.get(values, key)
        for part in value if isinstance(value, list) else [value]:
            if isinstance(part, dict) and not _covers(part, inner):
                return False
    return True


def _covers(values: dict[Any, Any], read: Read) -> bool:
    return read.keys.issuperset(dict.keys(values)) and _inner_covered(values, read)


_MISSING = object()
_CONTAINERS = (dict, list)


class Reads(dict[str, Any]):
    """A resolver's arguments, noting in :attr:`read` the keys the resolver reads (``[]``,
    ``get``, iteration). Make one with :func:`handed`."""

    __slots__ = ("read",)
    read: Read

    def __getitem__(self, key: str) -> Any:
        value = dict.__getitem__(self, key)
        self.read.keys.add(key)
        if value.__class__ in _CONTAINERS:
            return _tracked(value, self.read.of(key))
        return value

    def get(self, key: str, default: Any = None) -> Any:
        self.read.keys.add(key)
        value = dict.get(self, key, _MISSING)
        if value is _MISSING:
            return default
        if value.__class__ in _CONTAINERS:
            return _tracked(value, self.read.of(key))
        return value

    def __iter__(self) -> Iterator[str]:
        self.read.keys.update(dict.keys(self))
        return dict.__iter__(self)

    def keys(self) -> Any:
        self.read.keys.update(dict.keys(self))
        return dict.keys(self)

    def items(self) -> Any:
        return [(key, self[key]) for key in dict.keys(self)]

    def values(self) -> Any:
        return [self[key] for key in dict.keys(self)]

    def copy(self) -> dict[str, Any]:
        return dict(self.items())

    def pop(self, key: str, *default: Any) -> Any:
        if dict.__contains__(self, key):
            value = self[key]
            dict.__delitem__(self, key)
            return value
        return dict.pop(self, key, *default)


def handed(values: dict[str, Any], read: Read) -> Reads:
    """``values`` as a resolver is handed them, its reads noted in ``read``."""
    reads = Reads(values)
    reads.read = read
    return reads


def mark_read(values: dict[str, Any], keys: Iterable[str]) -> None:
    """Note that ``keys`` of ``values`` (if handed to a resolver) are read: for a helper that
    reads them the same way on every call (the connection helper's ``first``, ``after``...),
    then reads ``values`` with ``dict.get``."""
    if isinstance(values, Reads):
        values.read.keys.update(keys)


def _tracked(value: Any, read: Read) -> Any:
    if isinstance(value, dict):
        return handed(value, read)
    if isinstance(value, list):
        return [_tracked(item, read) for item in value]
    return value


def report_unread(fields: Iterable[Field]) -> None:
    """Record a gap for each argument the client wrote that no resolver of its field read."""
    for found in fields:
        if found.answered and not found.done:
            for name in _unread(found.supplied, found):
                record(UNEVALUATED_PARAMETER, f"{found.coordinate}({name}:)")


def variable_defaults(operation: OperationDefinitionNode) -> dict[str, ValueNode]:
    """The default values of ``operation``'s variables, by name."""
    return {
        d.variable.name.value: d.default_value
        for d in operation.variable_definitions or ()
        if d.default_value is not None
    }


def _arguments(
    arguments: tuple[ArgumentNode, ...],
    variables: Mapping[str, Any],
    defaults: Mapping[str, ValueNode],
) -> dict[str, Tree]:
    found = {}
    for argument in arguments:
        tree = _written(argument.value, variables, defaults)
        if tree is not None:
            found[argument.name.value] = tree
    return found


def _written(node: ValueNode, variables: Mapping[str, Any], defaults: Mapping[str, Any]) -> Tree:
    if isinstance(node, VariableNode):
        name = node.name.value
        if name in variables:
            return _sent(variables[name])
        default = defaults.get(name)
        return None if default is None else _written(default, variables, defaults)
    if isinstance(node, NullValueNode):
        return None
    if isinstance(node, ObjectValueNode):
        fields = ((f.name.value, _written(f.value, variables, defaults)) for f in node.fields)
        return {name: tree for name, tree in fields if tree is not None} or None
    if isinstance(node, ListValueNode):
        return [_written(v, variables, defaults) for v in node.values]
    return True


def _sent(value: Any) -> Tree:
    if value is None:
        return None
    if isinstance(value, dict):
        return {k: tree for k, v in value.items() if (tree := _sent(v)) is not None} or None
    if isinstance(value, list):
        return [_sent(v) for v in value]
    return True


def _unread(supplied: dict[str, Tree], read: Read, prefix: str = "") -> Iterator[str]:
    for key, tree in supplied.items():
        if key not in read.keys:
            yield prefix + key
            continue
        inner = read.inner.get(key)
        if inner is None or tree is True:
            continue
        for part in tree if isinstance(tree, list) else [tree]:
            if isinstance(part, dict):
                yield from _unread(part, inner, f"{prefix}{key}.")
