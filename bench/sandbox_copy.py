"""Cost of giving one item a fresh copy of the seeded sandbox world.

Compares the way the sandbox copies (validating a plain-data snapshot taken once) with the
alternatives, on the shipped seed, and prints the median time per copy of each:

- validate: ``World.model_validate(snapshot)`` (what :func:`fresh_world` does);
- pickle: ``pickle.loads`` of a snapshot pickled once;
- deepcopy: ``world.model_copy(deep=True)``;
- reparse: reading and validating the YAML seed again (what copying would cost without the
  once-per-process cache).

    python bench/sandbox_copy.py [--copies 2000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import pickle
import platform
import statistics
import time
from collections.abc import Callable

from pydantic import BaseModel

from pytest_ghxbench.sandbox.manifest import DEFAULT_SEED, load_seed, seeded
from pytest_ghxbench.sandbox.state import World


def per_copy_us(make: Callable[[], object], copies: int, rounds: int) -> float:
    """Median over ``rounds`` of the mean time of one call, in microseconds."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(copies):
            make()
        samples.append((time.perf_counter() - start) / copies * 1e6)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()

    start = time.perf_counter()
    cached = seeded()
    first_load_ms = (time.perf_counter() - start) * 1000
    world = cached.seed.world
    pickled = pickle.dumps(world, protocol=pickle.HIGHEST_PROTOCOL)
    candidates: dict[str, Callable[[], object]] = {
        "validate (used)": cached.fresh_world,
        "pickle": lambda: pickle.loads(pickled),
        "deepcopy": lambda: world.model_copy(deep=True),
        "reparse": lambda: load_seed(DEFAULT_SEED),
    }
    print(f"python {platform.python_version()} on {platform.machine()}, seed {DEFAULT_SEED.name}")
    print(
        f"objects in the world: {count_objects(world)}; first load (parse + validate): "
        f"{first_load_ms:.1f} ms"
    )
    for name, make in candidates.items():
        copies = args.copies if name != "reparse" else max(1, args.copies // 50)
        print(f"{name:>16}: {per_copy_us(make, copies, args.rounds):8.1f} µs per copy")


def count_objects(world: World) -> int:
    """Every pydantic model reachable from the world (itself included)."""
    seen = 0
    todo: list[object] = [world]
    while todo:
        node = todo.pop()
        if isinstance(node, BaseModel):
            seen += 1
            todo.extend(getattr(node, name) for name in type(node).model_fields)
        elif isinstance(node, (list, tuple)):
            todo.extend(node)
        elif isinstance(node, dict):
            todo.extend(node.values())
    return seen


if __name__ == "__main__":
    main()
