"""Flag values shared by several ``gh`` commands: bodies from flags, files or stdin, label
and milestone names, ``@me``."""

from __future__ import annotations

from pathlib import Path

from pytest_ghxbench.sandbox.dialects.gh_args import Flag, GhError, Parsed
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext
from pytest_ghxbench.sandbox.state import World

__all__ = ["BODY_FILE", "labels_to_add", "logins", "milestone_number", "read_body"]

BODY_FILE = Flag(
    "body-file",
    'Read body text from file (use "-" to read from standard input)',
    short="F",
    metavar="file",
)


def read_body(ctx: GhContext, parsed: Parsed, name: str = "body-file") -> str | None:
    """``--body`` or ``--body-file`` (``-`` is stdin); ``None`` when neither was given."""
    if parsed.has(name):
        source = parsed.text(name)
        if source == "-":
            return ctx.stdin
        try:
            return Path(source).read_text(encoding="utf-8")
        except OSError:
            raise GhError(f"open {source}: no such file or directory") from None
    if parsed.has("body"):
        return parsed.text("body")
    return None


def labels_to_add(world: World, names: list[str]) -> list[str]:
    """Canonical names of existing labels; gh's error for the first unknown one."""
    found = []
    for name in names:
        label = world.label(name)
        if label is None:
            raise GhError(f"could not add label: '{name}' not found")
        found.append(label.name)
    return found


def milestone_number(world: World, title: str) -> int:
    milestone = next((m for m in world.milestones if m.title == title), None)
    if milestone is None:
        raise GhError(f"could not add to milestone '{title}': not found")
    return milestone.number


def logins(ctx: GhContext, names: list[str]) -> list[str]:
    return [ctx.world.viewer if n == "@me" else n for n in names]
