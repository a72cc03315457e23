"""Time of two functions every item calls on text of any size, in this process:

- token counting: ``count_tokens`` of one kilobyte of English (o200k), per call, after a
  warm-up call (the encoding is loaded once per process);
- the answer envelope: ``extract_first_json_object`` on a ten-megabyte truncated envelope
  (its first complete item is the answer) and on a hundred megabytes of each shape that could
  make a naive search quadratic: braces, braces then an object, prose, prose with stray braces
  and quotes then an object, a deeply nested truncated object.

The tests check the same properties without a clock (tests/attempt/test_envelope.py counts the
search's work); these are the times. Prints medians over the rounds.

    python bench/hot_paths.py [--rounds 5] [--megabytes 100]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable

from pytest_ghxbench.attempt.envelope import extract_first_json_object
from pytest_ghxbench.tokens import count_tokens

KILOBYTE = ("The sandbox serves GitHub to gh, ghx and MCP; " * 30)[:1024]


def shapes(size: int) -> dict[str, Callable[[], str]]:
    """The texts, built on demand (a hundred megabytes each)."""
    return {
        "truncated envelope (size / 10)": lambda: (
            '{"ok": true, "data": [' + '{"n": 1}, ' * (size // 100)
        ),
        "braces": lambda: "{" * size,
        "braces then an object": lambda: "{" * size + '{"ok": true}',
        "prose": lambda: "lorem ipsum dolor sit amet. " * (size // 28),
        "prose, stray braces and quotes, an object": lambda: (
            'use {x} and "q" { ' * (size // 18) + '{"ok": true}'
        ),
        "deep truncated object": lambda: '{"a": ' * (size // 6),
    }


def median_s(call: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--megabytes", type=int, default=100)
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()} {platform.processor() or ''} {os.cpu_count()} cores, "
        f"python {platform.python_version()}, load {os.getloadavg()[0]:.2f}"
    )
    count_tokens(KILOBYTE)

    def thousand_counts() -> None:
        for _ in range(1000):
            count_tokens(KILOBYTE)

    per_call_us = median_s(thousand_counts, args.rounds) * 1000
    print(f"count_tokens, 1 KB: {per_call_us:.1f} µs per call (median of {args.rounds})")
    size = args.megabytes * 1_000_000
    for name, build in shapes(size).items():
        text = build()
        seconds = median_s(lambda text=text: extract_first_json_object(text), args.rounds)
        print(f"extract_first_json_object, {name}, {len(text) / 1e6:.0f} MB: {seconds:.2f} s")
        del text


if __name__ == "__main__":
    main()
