"""Which of a request's parameters a handler evaluated, and a gap for each it did not.

A handler reads query parameters through :meth:`Ctx.param` and body fields through
:class:`TrackedBody`; both note the names read. After a successful answer,
:func:`record_unevaluated` records an ``unevaluated_parameter`` gap for every query parameter
and top-level body field the request carried, GitHub's description lists for the operation,
and the handler never read: its answer is then the answer to a request without it, which an
agent would trust. A value equal to the description's default changes nothing and is not
recorded. Parameters GitHub's description does not have are ignored by GitHub too. A query value
outside the description's enum is an ``unsupported`` gap: GitHub answers some of those with a
422 and ignores others, and the description does not say which.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pytest_ghxbench.sandbox.api.rest.description import Operation
from pytest_ghxbench.sandbox.gaps import UNEVALUATED_PARAMETER, UNSUPPORTED, record

__all__ = ["TrackedBody", "record_unevaluated"]


class TrackedBody(dict[str, Any]):
    """A request's JSON body that notes which fields were read. Handing the whole body on
    (iterating it, copying it) counts every field as read: the callee is then the evaluator."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        super().__init__(data)
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.read.add(key)
        return super().__contains__(key)

    def pop(self, key: str, *default: Any) -> Any:
        self.read.add(key)
        return super().pop(key, *default)

    def _all(self) -> None:
        self.read.update(super().keys())

    def __iter__(self) -> Iterator[str]:
        self._all()
        return super().__iter__()

    def keys(self) -> Any:
        self._all()
        return super().keys()

    def items(self) -> Any:
        self._all()
        return super().items()

    def values(self) -> Any:
        self._all()
        return super().values()

    def copy(self) -> dict[str, Any]:
        self._all()
        return dict(super().items())


def _is_default(schema: Mapping[str, Any], values: list[str]) -> bool:
    if "default" not in schema or len(values) != 1:
        return False
    default = schema["default"]
    text = ("true" if default else "false") if isinstance(default, bool) else str(default)
    return values[0] == text


def record_unevaluated(
    operation: Operation, query: Mapping[str, list[str]], read: set[str], body: TrackedBody
) -> None:
    for name, values in query.items():
        schema = operation.query.get(name)
        if schema is None:
            continue
        if name not in read:
            if not _is_default(schema, values):
                record(UNEVALUATED_PARAMETER, f"{operation.name}: query parameter {name}")
        elif "enum" in schema and any(v not in map(str, schema["enum"]) for v in values):
            # GitHub refuses some such values and ignores others, operation by operation
            record(UNSUPPORTED, f"{operation.name}: query parameter {name} outside its values")
    if not body:
        return
    fields = operation.body_fields
    for name, value in dict.items(body):
        schema = fields.get(name)
        if schema is None or name in body.read:
            continue
        if "default" in schema and schema["default"] == value:
            continue
        record(UNEVALUATED_PARAMETER, f"{operation.name}: body field {name}")
