"""Modes as data (SPEC 18): the table of interfaces a session can run, built-in and declared,
and what a declared one's client is (its version, its MCP server's tools)."""

from pytest_ghxbench.modes.table import (
    CONVENTIONAL_ENV,
    TEMPLATE_NAMES,
    ModeConfigError,
    ModeTable,
    declared_modes,
    render_env,
    resolve_program,
)

__all__ = [
    "CONVENTIONAL_ENV",
    "TEMPLATE_NAMES",
    "ModeConfigError",
    "ModeTable",
    "declared_modes",
    "render_env",
    "resolve_program",
]
