"""``gh label``: ``list``, ``create``, ``edit`` and ``delete`` (no capability covers labels, so
changes edit the world directly; renaming or deleting a label updates the issues and pull
requests that carry it)."""

from __future__ import annotations

import re
from typing import Any

from pytest_ghxbench.sandbox.dialects.gh_args import Command, Flag, GhError, Parsed
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext, list_result, ok
from pytest_ghxbench.sandbox.dialects.result import CliResult
from pytest_ghxbench.sandbox.state import Issue, Label, PullRequest, World

__all__ = ["LABEL_COMMANDS"]


def _items(world: World) -> list[Issue | PullRequest]:
    return [*world.issues, *world.pull_requests]


LABEL_FIELDS = ("color", "createdAt", "description", "id", "isDefault", "name", "updatedAt", "url")


def _label_getters(world: World, label: Label) -> dict[str, Any]:
    created = world.repository.created_at
    return {
        "color": lambda: label.color,
        "createdAt": lambda: created,
        "description": lambda: label.description,
        "id": lambda: label.node_id,
        "isDefault": lambda: label.is_default,
        "name": lambda: label.name,
        "updatedAt": lambda: created,
        "url": lambda: f"{world.repository.url}/labels/{label.name.replace(' ', '%20')}",
    }


def _label_list(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    if parsed.on("web"):
        raise GhError("the sandbox has no browser; drop --web to list labels")
    labels = list(ctx.world.labels)
    needle = parsed.text("search").casefold()
    if needle:
        labels = [
            lab
            for lab in labels
            if needle in lab.name.casefold() or needle in lab.description.casefold()
        ]
    if parsed.text("sort") == "name":
        labels.sort(key=lambda lab: lab.name.casefold())
    if parsed.text("order") == "desc":
        labels.reverse()
    labels = labels[: parsed.number("limit")]
    return list_result(
        LABEL_LIST,
        parsed,
        labels,
        lambda lab: _label_getters(ctx.world, lab),
        lambda lab: [lab.name, lab.description, f"#{lab.color}"],
        empty=f"no labels found in {ctx.full_name}\n",
    )


LABEL_LIST = Command(
    "label list",
    "list",
    "List labels in a repository",
    _label_list,
    flags=(
        Flag("limit", "Maximum number of labels to fetch", short="L", kind="int", default=30),
        Flag(
            "order", "Order of labels returned", kind="enum", choices=("asc", "desc"), default="asc"
        ),
        Flag("search", "Search label names and descriptions", short="S"),
        Flag(
            "sort",
            "Sort fetched labels",
            kind="enum",
            choices=("created", "name"),
            default="created",
        ),
        Flag("web", "List labels in the web browser", short="w", kind="bool"),
    ),
    long="Display labels in a GitHub repository.",
    max_args=0,
    json_fields=LABEL_FIELDS,
)
_COLOR = re.compile(r"^#?[0-9a-fA-F]{6}$")


def _color(parsed: Parsed, default: str) -> str:
    color = parsed.text("color") or default
    if not _COLOR.match(color):
        raise GhError(f"invalid color: {color!r}; expected six hex digits such as d73a4a")
    return color.lstrip("#").lower()


def _label_create(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    name = parsed.args[0]
    existing = ctx.world.label(name)
    if existing is not None and not parsed.on("force"):
        raise GhError(
            f'label with name "{existing.name}" already exists; use `--force` to update its '
            "color and description"
        )
    color = _color(parsed, existing.color if existing is not None else "ededed")
    ctx.mutated = True
    if existing is not None:
        existing.color = color
        if parsed.has("description"):
            existing.description = parsed.text("description")
    else:
        label = Label(
            name=name,
            color=color,
            description=parsed.text("description"),
            node_id=ctx.world.node("LA", name),
        )
        ctx.world.labels.append(label)
    ctx.world.tick()
    return ok(stderr=f'✓ Label "{name}" created in {ctx.full_name}\n', context=ctx)


def _label_edit(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    label = ctx.world.label(parsed.args[0])
    if label is None:
        raise GhError(f'label with name "{parsed.args[0]}" not found in {ctx.full_name}')
    if not any(parsed.has(f) for f in ("name", "color", "description")):
        raise GhError("specify at least one of `--color`, `--description`, or `--name`")
    new_name = parsed.text("name")
    if new_name and new_name.casefold() != label.name.casefold() and ctx.world.label(new_name):
        raise GhError(f'label with name "{new_name}" already exists')
    color = _color(parsed, label.color)
    ctx.mutated = True
    if new_name:
        for item in _items(ctx.world):
            item.labels = [new_name if n == label.name else n for n in item.labels]
        label.name = new_name
    label.color = color
    if parsed.has("description"):
        label.description = parsed.text("description")
    ctx.world.tick()
    return ok(stderr=f'✓ Label "{parsed.args[0]}" updated in {ctx.full_name}\n', context=ctx)


def _label_delete(ctx: GhContext, parsed: Parsed) -> CliResult:
    ctx.check_repo(parsed)
    label = ctx.world.label(parsed.args[0])
    if label is None:
        raise GhError(f'label with name "{parsed.args[0]}" not found in {ctx.full_name}')
    if not parsed.on("yes"):
        raise GhError("--yes required when not running interactively")
    ctx.mutated = True
    ctx.world.labels.remove(label)
    for item in _items(ctx.world):
        item.labels = [n for n in item.labels if n != label.name]
    ctx.world.tick()
    return ok(stderr=f'✓ Label "{label.name}" deleted from {ctx.full_name}\n', context=ctx)


_COLOR_FLAG = Flag("color", "Color of the label", short="c")
_DESCRIPTION_FLAG = Flag("description", "Description of the label", short="d")
LABEL_COMMANDS = (
    LABEL_LIST,
    Command(
        "label create",
        "create <name>",
        "Create a new label",
        _label_create,
        flags=(
            _COLOR_FLAG,
            _DESCRIPTION_FLAG,
            Flag(
                "force",
                "Update the label color and description if label already exists",
                short="f",
                kind="bool",
            ),
        ),
        max_args=1,
        min_args=1,
        arg_error="cannot create label: name argument required",
    ),
    Command(
        "label edit",
        "edit <name>",
        "Edit a label",
        _label_edit,
        flags=(_COLOR_FLAG, _DESCRIPTION_FLAG, Flag("name", "New name of the label", short="n")),
        max_args=1,
        min_args=1,
        arg_error="cannot update label: name argument required",
    ),
    Command(
        "label delete",
        "delete <name>",
        "Delete a label from a repository",
        _label_delete,
        flags=(Flag("yes", "Confirm deletion without prompting", kind="bool"),),
        max_args=1,
        min_args=1,
        arg_error="cannot delete label: name argument required",
    ),
)
