"""Cost of an item's checkout of its repository, and of git's round trips through the sandbox.

Prints medians, in milliseconds, on the shipped seed:

- checkout: giving one item its working copy, the way the sandbox does it (renaming the
  copy of the per-process template that a background thread made ready while the previous
  item ran, and deleting the previous item's checkout in the background), and the
  alternatives: copying the template in the foreground (pack files hard-linked), ``cp -a`` of
  the template, ``git clone --no-local`` of the item's repository, ``git clone`` over HTTP
  from the sandbox; and deleting a checkout in the foreground (what the harness's emptying of
  a working directory would cost without the background);
- item env: materializing an item's whole environment (HOME, bin/, checkout), per mode;
- clone: ``git clone`` of the fixture repository through the proxy (``http://github.localhost``
  and ``https://github.com`` through the intercepting proxy);
- push: ``git push`` of one new commit to a branch of an open pull request (the push moves the
  pull request).

Items follow each other with ``--pause`` seconds between them (an agent's run), as in a
benchmark; with ``--pause 0`` the background has no time to prepare the next copy.

    python bench/git_checkout.py [--items 60] [--pause 0.1] [--clones 20] [--pushes 20]
"""

from __future__ import annotations

import argparse
import itertools
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pytest_ghxbench.adapters.process import scrubbed_env
from pytest_ghxbench.sandbox.backend import SandboxBackend, SandboxSession, clone_url
from pytest_ghxbench.sandbox.git.checkout import _copy_tree as copy_template
from pytest_ghxbench.sandbox.git.checkout import discard, make_checkout

LOCAL_URL = "http://github.localhost/acme-labs/tinykv.git"
_IDENTITY = ("Bench Bot", "bench-bot@users.noreply.github.com")


def median_ms(run: Callable[[int], None], times: int, pause: float = 0.0) -> float:
    """Median time of ``run(i)`` over ``times`` calls, ``pause`` seconds apart (untimed)."""
    samples = []
    for index in range(times):
        start = time.perf_counter()
        run(index)
        samples.append((time.perf_counter() - start) * 1000)
        time.sleep(pause)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--pause", type=float, default=0.1)
    parser.add_argument("--clones", type=int, default=20)
    parser.add_argument("--pushes", type=int, default=20)
    args = parser.parse_args()
    git = subprocess.run(["git", "--version"], capture_output=True, text=True, check=True)
    print(f"python {platform.python_version()} on {platform.machine()}, {git.stdout.strip()}")
    backend = SandboxBackend()
    scratch = Path(tempfile.mkdtemp(prefix="ghxbench-bench-"))
    try:
        checkouts(backend, scratch, args.items, args.pause)
        round_trips(backend, scratch, args.clones, args.pushes)
    finally:
        backend.close()
        shutil.rmtree(scratch, ignore_errors=True)


def checkouts(backend: SandboxBackend, scratch: Path, items: int, pause: float) -> None:
    labels = itertools.count()

    def session(mode: str = "agent_direct") -> SandboxSession:
        label = f"i{next(labels)}"
        return backend.open_session(label, scratch / label, mode)

    first = session()
    start = time.perf_counter()
    first.working_directory()
    took = (time.perf_counter() - start) * 1000
    print(f"first item env of the process (the template's clone, then a copy): {took:.1f} ms")
    template = first.checkout
    env = scrubbed_env(dict(first.env))

    prepared = [session() for _ in range(items)]

    def used(index: int) -> None:
        item = prepared[index]
        make_checkout(item.world.git, item.checkout, clone_url(item.world), _IDENTITY)
        discard(item.checkout)

    def copied(index: int) -> None:
        copy_template(template, scratch / f"copy{index}")

    def cp(index: int) -> None:
        subprocess.run(["cp", "-a", str(template), str(scratch / f"cp{index}")], check=True)

    def deleted(index: int) -> None:
        shutil.rmtree(scratch / f"copy{index}")

    def clone_local(index: int) -> None:
        item = session()
        argv = ["git", "clone", "-q", "--no-local", str(item.world.git.path), str(item.checkout)]
        subprocess.run(argv, check=True)

    def clone_http(index: int) -> None:
        argv = ["git", "clone", "-q", clone_url(first.world), str(scratch / f"http{index}")]
        subprocess.run(argv, check=True, env=env)

    print(f"per item, median of {items} ({pause:g} s apart):")
    for name, run, apart in (
        ("checkout (used)", used, pause),
        ("checkout, back to back", used, 0.0),
        ("copy of the template", copied, 0.0),
        ("deleting a checkout", deleted, 0.0),
        ("cp -a of the template", cp, 0.0),
        ("git clone --no-local", clone_local, 0.0),
        ("git clone over HTTP", clone_http, 0.0),
    ):
        print(f"  {name:>28}: {median_ms(run, items, apart):7.2f} ms")
    for mode in ("agent_direct", "mcp"):

        def item_env(index: int, mode: str = mode) -> None:
            item = session(mode)
            dict(item.env)
            item.close()

        took = median_ms(item_env, items, pause)
        print(f"  {mode + ' item env (used)':>28}: {took:7.2f} ms")


def round_trips(backend: SandboxBackend, scratch: Path, clones: int, pushes: int) -> None:
    item = backend.open_session("push", scratch / "push", "agent_direct")
    env = scrubbed_env(dict(item.env))
    checkout = item.working_directory()

    def git(*argv: str, cwd: Path = checkout) -> None:
        subprocess.run(["git", *argv], check=True, env=env, cwd=cwd, capture_output=True)

    print(f"through the proxy, median of {clones} clones / {pushes} pushes:")
    for url in (LOCAL_URL, "https://github.com/acme-labs/tinykv.git"):

        def cloned(index: int, url: str = url) -> None:
            git("clone", "-q", url, f"c{index}-{len(url)}")

        print(f"  git clone {url}: {median_ms(cloned, clones):7.2f} ms")
    git("checkout", "-q", "fix/compaction-lock")
    samples = []
    for index in range(pushes):
        (checkout / "NOTES.md").write_text(f"push {index}\n", encoding="utf-8")
        git("add", "NOTES.md")
        git("commit", "-qm", f"Push {index}")
        start = time.perf_counter()
        git("push", "-q", "origin", "HEAD")
        samples.append((time.perf_counter() - start) * 1000)
    took = statistics.median(samples)
    print(f"  git push of one commit (the pull request follows): {took:7.2f} ms")


if __name__ == "__main__":
    main()
