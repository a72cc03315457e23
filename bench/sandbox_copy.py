"""Cost of giving one item a fresh copy of the seeded sandbox world.

Compares the way the sandbox copies (validating a plain-data snapshot taken once) with the
alternatives, on the shipped seed, and prints the median time per copy of each:

- validate: ``World.model_validate(snapshot)`` (what :func:`fresh_world` does);
- pickle: ``pickle.loads`` of a snapshot pickled once;
- deepcopy: ``world.model_copy(deep=True)``;
- reparse: reading and validating the YAML seed again (what copying would cost without the
  once-per-process cache).

and, since the world holds a git repository, what an item pays for its own copy of that:

- fork written: a fresh world plus its repository fork written to disk (alternates to the
  seed's objects, the seed's refs) and removed again, as every item that reads code does;
- full clone: the same repository copied with ``git clone --mirror --no-local`` instead (what
  a copy without alternates would cost).

    python bench/sandbox_copy.py [--copies 2000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import gc
import pickle
import platform
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from pytest_ghxbench.sandbox.git.commands import standalone_copy
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
    # the world's own data: its repository is a directory, copied by forking it
    pickled = pickle.dumps(World.model_validate(cached.snapshot), protocol=pickle.HIGHEST_PROTOCOL)
    scratch = Path(tempfile.mkdtemp(prefix="ghxbench-bench-"))

    def fork_written() -> None:
        copy = cached.fresh_world()
        copy.git.resolve("main")  # writes the fork and opens it
        written = copy.git.path
        del copy  # the fork's directory goes with the last reference
        if written.exists():  # kept alive by a cycle: what a session's collector would free
            gc.collect()

    def full_clone() -> None:
        target = scratch / "clone.git"
        standalone_copy(cached.repo, target)
        shutil.rmtree(target)

    candidates: dict[str, Callable[[], object]] = {
        "validate (used)": cached.fresh_world,
        "pickle": lambda: pickle.loads(pickled),
        "deepcopy": lambda: world.model_copy(deep=True),  # forks the repository, unwritten
        "reparse": lambda: load_seed(DEFAULT_SEED),
        "fork written": fork_written,
        "full clone": full_clone,
    }
    print(f"python {platform.python_version()} on {platform.machine()}, seed {DEFAULT_SEED.name}")
    print(
        f"objects in the world: {count_objects(world)}; first load (parse + validate): "
        f"{first_load_ms:.1f} ms"
    )
    slow = {"reparse": 50, "fork written": 20, "full clone": 100}
    for name, make in candidates.items():
        copies = max(1, args.copies // slow.get(name, 1))
        print(f"{name:>16}: {per_copy_us(make, copies, args.rounds):8.1f} µs per copy")
    shutil.rmtree(scratch, ignore_errors=True)


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
