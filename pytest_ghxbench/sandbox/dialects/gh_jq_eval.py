"""Evaluation of the parsed jq expressions of :mod:`.gh_jq` (every node yields a list of
outputs; jq's generators are evaluated eagerly, which is fine for a sandbox's small data)."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from functools import cmp_to_key
from typing import Any

__all__ = ["JqError", "evaluate_node"]

Node = tuple[Any, ...]
Env = dict[str, Any]


class JqError(Exception):
    """A jq expression that cannot be parsed or evaluated."""


def _type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _truthy(value: Any) -> bool:
    return value is not None and value is not False


_ORDER = {"null": 0, "boolean": 1, "number": 2, "string": 3, "array": 4, "object": 5}


def _compare(a: Any, b: Any) -> int:
    ta, tb = _type(a), _type(b)
    if ta != tb:
        return _ORDER[ta] - _ORDER[tb]
    if ta == "array":
        for x, y in zip(a, b, strict=False):
            c = _compare(x, y)
            if c:
                return c
        return len(a) - len(b)
    if ta == "object":
        c = _compare(sorted(a), sorted(b))
        if c:
            return c
        for key in sorted(a):
            c = _compare(a[key], b[key])
            if c:
                return c
        return 0
    return int(a > b) - int(a < b)


def _index(value: Any, key: Any) -> Any:
    if value is None:
        return None
    if isinstance(key, str) and isinstance(value, dict):
        return value.get(key)
    if isinstance(key, (int, float)) and not isinstance(key, bool) and isinstance(value, list):
        position = int(key)
        return value[position] if -len(value) <= position < len(value) else None
    raise JqError(f"Cannot index {_type(value)} with {json.dumps(key)}")


def _iterate(value: Any) -> list[Any]:
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return list(value.values())
    raise JqError(f"Cannot iterate over {_type(value)}" + (f" ({value})" if value is None else ""))


def _arith(op: str, a: Any, b: Any) -> Any:
    if op == "+":
        if a is None:
            return b
        if b is None:
            return a
        if isinstance(a, dict) and isinstance(b, dict):
            return {**a, **b}
        if _type(a) == _type(b) and _type(a) in ("number", "string", "array"):
            return a + b
    elif op == "-":
        if isinstance(a, list) and isinstance(b, list):
            return [x for x in a if x not in b]
        if _type(a) == _type(b) == "number":
            return a - b
    elif _type(a) == _type(b) == "number":
        if op == "*":
            return a * b
        if b == 0:
            raise JqError(f"{a} and {b} cannot be divided because the divisor is zero")
        if op == "/":
            result = a / b
            return int(result) if result == int(result) else result
        return int(a) % int(b)
    elif op == "/" and _type(a) == _type(b) == "string":
        return a.split(b)
    raise JqError(f"{_type(a)} and {_type(b)} cannot be combined with {op}")


def _binop(op: str, a: Any, b: Any) -> Any:
    if op in ("==", "!="):
        return (_compare(a, b) == 0) == (op == "==")
    if op in ("<", "<=", ">", ">="):
        c = _compare(a, b)
        return {"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]
    return _arith(op, a, b)


def _format(name: str, value: Any) -> str:
    if name == "@json":
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if name == "@text":
        return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    if name == "@base64":
        return base64.b64encode(_format("@text", value).encode()).decode()
    if name in ("@csv", "@tsv"):
        if not isinstance(value, list):
            raise JqError(f"{_type(value)} cannot be {name[1:]}-formatted, only an array can be")
        cells = []
        for cell in value:
            if isinstance(cell, str):
                cells.append(
                    '"' + cell.replace('"', '""') + '"'
                    if name == "@csv"
                    else cell.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
                )
            elif cell is None:
                cells.append("")
            else:
                cells.append(json.dumps(cell))
        return ("," if name == "@csv" else "\t").join(cells)
    raise JqError(f"{name} is not a valid format")


def evaluate_node(node: Node, value: Any, env: Env) -> list[Any]:
    """All outputs of ``node`` for input ``value``."""
    kind = node[0]
    if kind == "identity":
        return [value]
    if kind == "literal":
        return [node[1]]
    if kind == "pipe":
        return [
            out
            for mid in evaluate_node(node[1], value, env)
            for out in evaluate_node(node[2], mid, env)
        ]
    if kind == "comma":
        return evaluate_node(node[1], value, env) + evaluate_node(node[2], value, env)
    if kind == "index":
        return [_index(value, key) for key in evaluate_node(node[1], value, env)]
    if kind == "iterate":
        return _iterate(value)
    if kind == "slice":
        return [_slice(node, value, env)]
    if kind == "try":
        try:
            return evaluate_node(node[1], value, env)
        except JqError:
            return []
    if kind == "recurse":
        return _recurse(value)
    if kind == "var":
        if node[1] not in env:
            raise JqError(f"{node[1]} is not defined")
        return [env[node[1]]]
    if kind == "bind":
        return [
            out
            for bound in evaluate_node(node[1], value, env)
            for out in evaluate_node(node[3], value, {**env, node[2]: bound})
        ]
    if kind == "format":
        return [_format(node[1], value)]
    if kind == "interp":
        return [_interpolate(node[1], value, env)]
    if kind == "array":
        return [[] if node[1] is None else evaluate_node(node[1], value, env)]
    if kind == "object":
        return _construct(node[1], value, env)
    if kind == "binop":
        return [
            _binop(node[1], a, b)
            for b in evaluate_node(node[3], value, env)
            for a in evaluate_node(node[2], value, env)
        ]
    if kind in ("and", "or"):
        return _logic(kind, node, value, env)
    if kind == "alt":
        found = [v for v in _safe(node[1], value, env) if _truthy(v)]
        return found or evaluate_node(node[2], value, env)
    if kind == "if":
        return [
            out
            for cond in evaluate_node(node[1], value, env)
            for out in evaluate_node(node[2] if _truthy(cond) else node[3], value, env)
        ]
    if kind == "call":
        return _call(node[1], node[2], value, env)
    raise JqError(f"unsupported jq construct {kind}")


def _safe(node: Node, value: Any, env: Env) -> list[Any]:
    try:
        return evaluate_node(node, value, env)
    except JqError:
        return []


def _slice(node: Node, value: Any, env: Env) -> Any:
    start = evaluate_node(node[1], value, env)[0] if node[1] is not None else None
    end = evaluate_node(node[2], value, env)[0] if node[2] is not None else None
    if value is None:
        return None
    if not isinstance(value, (list, str)):
        raise JqError(f"Cannot index {_type(value)} with object")
    return value[None if start is None else int(start) : None if end is None else int(end)]


def _recurse(value: Any) -> list[Any]:
    found = [value]
    if isinstance(value, (list, dict)):
        for child in _iterate(value):
            found += _recurse(child)
    return found


def _interpolate(parts: list[Any], value: Any, env: Env) -> str:
    text = ""
    for part in parts:
        if isinstance(part, str):
            text += part
        else:
            out = evaluate_node(part, value, env)
            text += "".join(o if isinstance(o, str) else json.dumps(o) for o in out[:1])
    return text


def _construct(entries: list[tuple[Node, Node]], value: Any, env: Env) -> list[Any]:
    results: list[dict[str, Any]] = [{}]
    for key_node, value_node in entries:
        keys = evaluate_node(key_node, value, env)
        values = evaluate_node(value_node, value, env)
        grown = []
        for partial in results:
            for key in keys:
                if not isinstance(key, str):
                    raise JqError(f"Object keys must be strings, not {_type(key)}")
                for item in values:
                    grown.append({**partial, key: item})
        results = grown
    return list(results)


def _logic(kind: str, node: Node, value: Any, env: Env) -> list[Any]:
    outputs = []
    for left in evaluate_node(node[1], value, env):
        if kind == "and" and not _truthy(left):
            outputs.append(False)
        elif kind == "or" and _truthy(left):
            outputs.append(True)
        else:
            outputs += [_truthy(right) for right in evaluate_node(node[2], value, env)]
    return outputs


def _arg(args: list[Node], value: Any, env: Env, position: int = 0) -> Any:
    outputs = evaluate_node(args[position], value, env)
    if not outputs:
        raise JqError("argument produced no value")
    return outputs[0]


def _by(args: list[Node], env: Env) -> Callable[[Any], Any]:
    return lambda item: evaluate_node(args[0], item, env)


def _sorted(items: list[Any], key: Callable[[Any], Any] = lambda x: x) -> list[Any]:
    return sorted(items, key=cmp_to_key(lambda a, b: _compare(key(a), key(b))))


def _length(value: Any) -> Any:
    if value is None:
        return 0
    if isinstance(value, bool):
        raise JqError("boolean has no length")
    if isinstance(value, (int, float)):
        return abs(value)
    return len(value)


def _call(name: str, args: list[Node], value: Any, env: Env) -> list[Any]:
    arity = len(args)
    simple = _SIMPLE.get((name, arity))
    if simple is not None:
        return [simple(value)]
    if (name, arity) == ("empty", 0):
        return []
    if (name, arity) == ("error", 0) or (name, arity) == ("error", 1):
        message = value if arity == 0 else _arg(args, value, env)
        raise JqError(str(message))
    if (name, arity) == ("select", 1):
        return [value] if any(_truthy(v) for v in evaluate_node(args[0], value, env)) else []
    if (name, arity) == ("map", 1):
        return [[out for item in _iterate(value) for out in evaluate_node(args[0], item, env)]]
    if (name, arity) == ("map_values", 1):
        if isinstance(value, dict):
            return [{k: evaluate_node(args[0], v, env)[0] for k, v in value.items()}]
        return [[evaluate_node(args[0], item, env)[0] for item in _iterate(value)]]
    if (name, arity) == ("has", 1):
        key = _arg(args, value, env)
        return [key in value if isinstance(value, dict) else 0 <= int(key) < len(value)]
    if (name, arity) in (("first", 1), ("last", 1)):
        outputs = evaluate_node(args[0], value, env)
        return outputs[:1] if name == "first" else outputs[-1:]
    if (name, arity) in (("any", 1), ("all", 1)):
        hits = [_truthy(v) for item in _iterate(value) for v in evaluate_node(args[0], item, env)]
        return [any(hits) if name == "any" else all(hits)]
    if (name, arity) in (("any", 2), ("all", 2)):
        hits = [
            _truthy(v)
            for item in evaluate_node(args[0], value, env)
            for v in evaluate_node(args[1], item, env)
        ]
        return [any(hits) if name == "any" else all(hits)]
    if (name, arity) == ("limit", 2):
        return evaluate_node(args[1], value, env)[: int(_arg(args, value, env))]
    if (name, arity) == ("range", 1):
        return list(range(int(_arg(args, value, env))))
    if (name, arity) == ("range", 2):
        return list(range(int(_arg(args, value, env)), int(_arg(args, value, env, 1))))
    if name in ("sort_by", "group_by", "unique_by", "min_by", "max_by") and arity == 1:
        return [_by_function(name, _iterate(value), _by(args, env))]
    if (name, arity) == ("with_entries", 1):
        entries = [{"key": k, "value": v} for k, v in value.items()]
        mapped = [out for e in entries for out in evaluate_node(args[0], e, env)]
        return [_from_entries(mapped)]
    if (name, arity) == ("join", 1):
        sep = _arg(args, value, env)
        return [
            sep.join("" if v is None else v if isinstance(v, str) else json.dumps(v) for v in value)
        ]
    if (name, arity) in (("test", 1), ("test", 2)):
        flags = _arg(args, value, env, 1) if arity == 2 else ""
        return [re.search(_arg(args, value, env), value, re.I if "i" in flags else 0) is not None]
    string_fns: dict[str, Callable[[Any, Any], Any]] = {
        "startswith": lambda s, x: s.startswith(x),
        "endswith": lambda s, x: s.endswith(x),
        "ltrimstr": lambda s, x: s[len(x) :] if isinstance(s, str) and s.startswith(x) else s,
        "rtrimstr": lambda s, x: s[: -len(x)] if isinstance(s, str) and x and s.endswith(x) else s,
        "split": lambda s, x: s.split(x),
        "contains": _contains,
        "inside": lambda s, x: _contains(x, s),
        "index": lambda s, x: s.find(x) if s.find(x) >= 0 else None,
    }
    if name in string_fns and arity == 1:
        return [string_fns[name](value, _arg(args, value, env))]
    raise JqError(f"{name}/{arity} is not defined")


def _contains(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return all(k in a and _contains(a[k], v) for k, v in b.items())
    if isinstance(a, list) and isinstance(b, list):
        return all(any(_contains(x, y) for x in a) for y in b)
    if isinstance(a, str) and isinstance(b, str):
        return b in a
    return bool(a == b)


def _by_function(name: str, items: list[Any], key: Callable[[Any], Any]) -> Any:
    ordered = _sorted(items, key)
    if name == "sort_by":
        return ordered
    if name in ("min_by", "max_by"):
        return (ordered[0] if name == "min_by" else ordered[-1]) if ordered else None
    groups: list[list[Any]] = []
    for item in ordered:
        if groups and _compare(key(groups[-1][0]), key(item)) == 0:
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups if name == "group_by" else [g[0] for g in groups]


def _from_entries(entries: list[Any]) -> dict[str, Any]:
    result = {}
    for entry in entries:
        key = next((entry[k] for k in ("key", "k", "name", "Name", "Key") if k in entry), None)
        result[key if isinstance(key, str) else json.dumps(key)] = entry.get(
            "value", entry.get("v")
        )
    return result


def _unique(value: Any) -> list[Any]:
    out: list[Any] = []
    for item in _sorted(value):
        if not out or _compare(out[-1], item):
            out.append(item)
    return out


def _add(value: Any) -> Any:
    total = None
    for item in _iterate(value):
        total = _arith("+", total, item)
    return total


def _tonumber(value: Any) -> Any:
    if isinstance(value, (int, float)):
        return value
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise JqError(f"Cannot parse {json.dumps(value)} as a number") from None
    return int(number) if number == int(number) else number


def _flatten(value: Any) -> list[Any]:
    flat: list[Any] = []
    for item in value:
        flat += _flatten(item) if isinstance(item, list) else [item]
    return flat


_SIMPLE: dict[tuple[str, int], Callable[[Any], Any]] = {
    ("length", 0): _length,
    ("not", 0): lambda v: not _truthy(v),
    ("keys", 0): lambda v: sorted(v) if isinstance(v, dict) else list(range(len(v))),
    ("keys_unsorted", 0): lambda v: list(v) if isinstance(v, dict) else list(range(len(v))),
    ("first", 0): lambda v: _index(v, 0),
    ("last", 0): lambda v: _index(v, -1),
    ("add", 0): _add,
    ("any", 0): lambda v: any(_truthy(x) for x in _iterate(v)),
    ("all", 0): lambda v: all(_truthy(x) for x in _iterate(v)),
    ("sort", 0): lambda v: _sorted(_iterate(v)),
    ("unique", 0): _unique,
    ("reverse", 0): lambda v: list(reversed(v)) if v is not None else [],
    ("min", 0): lambda v: _sorted(v)[0] if v else None,
    ("max", 0): lambda v: _sorted(v)[-1] if v else None,
    ("flatten", 0): _flatten,
    ("tostring", 0): lambda v: v if isinstance(v, str) else json.dumps(v, separators=(",", ":")),
    ("tonumber", 0): _tonumber,
    ("tojson", 0): lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False),
    ("fromjson", 0): lambda v: json.loads(v),
    ("type", 0): _type,
    ("ascii_downcase", 0): lambda v: v.lower(),
    ("ascii_upcase", 0): lambda v: v.upper(),
    ("to_entries", 0): lambda v: [{"key": k, "value": x} for k, x in v.items()],
    ("from_entries", 0): _from_entries,
    ("floor", 0): lambda v: int(v // 1),
}
