"""``python -m pytest_ghxbench``: the ``ghxbench`` command line."""

from __future__ import annotations

from pytest_ghxbench.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
