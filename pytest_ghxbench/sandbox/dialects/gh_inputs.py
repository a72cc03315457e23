"""Flag values shared by several ``gh`` commands: bodies from flags, files or stdin, label
and milestone names, ``@me``."""

from __future__ import annotations

from pathlib import Path

from pytest_ghxbench.sandbox.dialects.gh_args import Flag, GhError, Parsed
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext
from pytest_ghxbench.sandbox.state import Comment, World

__all__ = [
    "BODY_FILE",
    "COMMENT_FLAGS",
    "edit_last_comment",
    "labels_to_add",
    "logins",
    "milestone_number",
    "read_body",
    "resolve_me",
]

BODY_FILE = Flag(
    "body-file",
    'Read body text from file (use "-" to read from standard input)',
    short="F",
    metavar="file",
)

COMMENT_FLAGS = (
    Flag("body", "The comment body text", short="b", metavar="text"),
    BODY_FILE,
    Flag("edit-last", "Edit the last comment of the same author", kind="bool"),
    Flag(
        "editor",
        "Skip prompts and open the text editor to write the body in",
        short="e",
        kind="bool",
    ),
    Flag("web", "Open the web browser to write the comment", short="w", kind="bool"),
)
"""Flags of ``gh issue comment`` and ``gh pr comment``, which take the same options."""


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


def edit_last_comment(ctx: GhContext, comments: list[Comment], body: str) -> Comment:
    """``--edit-last``: the viewer's latest comment among ``comments``, now saying ``body``."""
    mine = [c for c in comments if c.author == ctx.world.viewer]
    if not mine:
        raise GhError("no comments found for current user")
    ctx.mutated = True
    comment = mine[-1]
    comment.body, comment.updated_at = body, ctx.world.tick()
    return comment


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


def resolve_me(ctx: GhContext, name: str) -> str:
    """``name`` with ``@me`` read as the viewer's login."""
    return ctx.world.viewer if name == "@me" else name


def logins(ctx: GhContext, names: list[str]) -> list[str]:
    return [resolve_me(ctx, n) for n in names]
