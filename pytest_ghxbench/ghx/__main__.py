"""``python -m pytest_ghxbench.ghx``: the ``ghx`` command line."""

from __future__ import annotations

from pytest_ghxbench.ghx.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
