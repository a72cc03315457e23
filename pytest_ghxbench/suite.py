"""Where the data shipped with the package lives: the scenario suite and the sandbox seed.

The shipped suite is the repository's ``scenarios/`` directory. A wheel carries it as package
data (``pytest_ghxbench/_suite``, see ``[tool.hatch.build.targets.wheel.force-include]``); a
checkout or an editable install reads the checkout's ``scenarios/`` directly. Every caller finds
it through :func:`shipped_suite`, so there is one answer to "where is the suite".
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "SEED_RELATIVE",
    "ShippedDataMissing",
    "default_seed",
    "require_shipped_suite",
    "shipped_suite",
]

PACKAGE_DIR = Path(__file__).resolve().parent
_PACKAGED = PACKAGE_DIR / "_suite"
_CHECKOUT = PACKAGE_DIR.parent / "scenarios"

SEED_RELATIVE = Path("fixtures") / "sandbox-seed.yaml"
"""The sandbox seed's place inside the suite."""


class ShippedDataMissing(Exception):
    """The package's own data is not where the installation should have put it."""


def _is_checkout() -> bool:
    # The package sits beside the project's pyproject.toml: a source tree (or an editable
    # install of one), not site-packages, whose other entries are not ours.
    return (PACKAGE_DIR.parent / "pyproject.toml").is_file()


def shipped_suite() -> Path:
    """The shipped scenario suite: the wheel's package data when installed, the checkout's
    ``scenarios/`` otherwise. The path may not exist in a broken installation; callers that
    need it use :func:`require_shipped_suite`."""
    if _PACKAGED.is_dir() or not _is_checkout():
        return _PACKAGED
    return _CHECKOUT


def require_shipped_suite() -> Path:
    """:func:`shipped_suite`, or :class:`ShippedDataMissing` saying where it was looked for."""
    suite = shipped_suite()
    if not suite.is_dir():
        raise ShippedDataMissing(
            f"the scenario suite shipped with pytest-ghxbench is missing: {suite} is not a "
            "directory (reinstall pytest-ghxbench, or give --ghx-scenarios DIR)"
        )
    return suite


def default_seed() -> Path:
    """The sandbox seed shipped with the package (inside the shipped suite)."""
    return shipped_suite() / SEED_RELATIVE
