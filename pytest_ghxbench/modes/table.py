"""The mode table (SPEC 18): the built-in modes and the ones declared in
``[tool.ghxbench.modes.<name>]``, validated once, each bad entry refused naming its key.

A declared entry::

    [tool.ghxbench.modes.acme]
    kind = "cli"                       # or "mcp"
    program = "acme"                   # kind cli: on PATH, or a path (relative to the rootdir)
    command = ["srv", "stdio"]         # kind mcp: the stdio server's command line
    env = { ACME_TOKEN = "{token}" }   # template values, rendered per item
    instructions = "Use `acme` ..."    # what the agent is told

Every client also gets the conventional variables of its kind (gh's for a CLI, GitHub's MCP
server's for a server), which ``env`` may override: a client that follows GitHub's conventions
needs no ``env`` at all.
"""

from __future__ import annotations

import shutil
import string
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, cast

from pytest_ghxbench.api import BUILTIN_MODE_SPECS, ModeSpec

__all__ = [
    "CONVENTIONAL_ENV",
    "TEMPLATE_NAMES",
    "ModeConfigError",
    "ModeTable",
    "declared_modes",
    "render_env",
    "resolve_program",
]

TEMPLATE_NAMES = ("token", "api_url", "graphql_url", "host", "repo", "workdir")
"""What a mode's ``env`` values may name: the item's token for this mode, the REST root, the
GraphQL endpoint, the GitHub host, the repository (OWNER/NAME) and the agent's working
directory."""

CONVENTIONAL_ENV: Mapping[str, Mapping[str, str]] = {
    "cli": BUILTIN_MODE_SPECS["agent_direct"].env,
    "mcp": BUILTIN_MODE_SPECS["mcp"].env,
}
"""The variables every client of a kind gets before its own ``env``."""

_KEYS = {"kind", "program", "command", "env", "instructions", "description"}
_KINDS = ("cli", "mcp")


class ModeConfigError(ValueError):
    """A mode entry is not valid; the message names the file, the entry and the key."""


@dataclass(frozen=True)
class ModeTable:
    """Every mode a session knows: the built-in ones first, then the declared ones."""

    specs: Mapping[str, ModeSpec]

    def __contains__(self, name: object) -> bool:
        return name in self.specs

    def __iter__(self) -> Iterator[str]:
        return iter(self.specs)

    def get(self, name: str) -> ModeSpec | None:
        return self.specs.get(name)

    def __getitem__(self, name: str) -> ModeSpec:
        found = self.specs.get(name)
        if found is None:
            raise KeyError(
                f"mode {name!r} is not in the mode table (known: {', '.join(self.specs)})"
            )
        return found

    @property
    def declared(self) -> tuple[ModeSpec, ...]:
        return tuple(spec for spec in self.specs.values() if not spec.builtin)

    def names(self) -> tuple[str, ...]:
        return tuple(self.specs)

    def programs(self) -> frozenset[str]:
        """The names of every kind cli mode's program: what an item of another mode must not
        run."""
        return frozenset(spec.cli_name for spec in self.specs.values() if spec.kind == "cli")

    @classmethod
    def builtin(cls) -> ModeTable:
        return cls(dict(BUILTIN_MODE_SPECS))


def declared_modes(
    table: Any, where: str, root: Path | None = None, resolve: Sequence[str] = ()
) -> ModeTable:
    """The mode table with the entries of ``table`` (the ``[tool.ghxbench.modes]`` table, as
    read from ``where``) after the built-in ones. The programs of the modes named in
    ``resolve`` (every declared one for ``"all"``) are found, as paths (a relative one is
    relative to ``root``); the others stay as written, so a machine that runs other modes
    need not have them. Raises :class:`ModeConfigError` naming the first bad key."""
    specs = dict(BUILTIN_MODE_SPECS)
    if table in (None, {}):
        return ModeTable(specs)
    if not isinstance(table, dict):
        raise ModeConfigError(f"{where}: [tool.ghxbench.modes] must be a table of modes")
    for name, entry in table.items():
        at = f"{where}: [tool.ghxbench.modes.{name}]"
        if name in BUILTIN_MODE_SPECS:
            raise ModeConfigError(
                f"{at}: {name!r} is a built-in mode; give yours another name (built-in: "
                f"{', '.join(BUILTIN_MODE_SPECS)}; --ghx-gh, --ghx-mcp-server and --ghx-ghx "
                "say which build of theirs runs)"
            )
        if name == "all" or not _valid_name(str(name)):
            raise ModeConfigError(
                f"{at}: {name!r} is not a usable mode name (letters, digits and '_', "
                "starting with a letter; not 'all'): it is a marker (-m NAME) and part of item ids"
            )
        spec = _entry(str(name), entry, at)
        if name in resolve or "all" in resolve:
            spec = _resolved(spec, root)
        specs[name] = spec
    return ModeTable(specs)


def _resolved(spec: ModeSpec, root: Path | None) -> ModeSpec:
    if spec.kind == "cli":
        return replace(
            spec, program=resolve_program(spec.program or "", f"{spec.where} program", root)
        )
    first = resolve_program(spec.command[0], f"{spec.where} command[0]", root)
    return replace(spec, command=(first, *spec.command[1:]))


def _valid_name(name: str) -> bool:
    # a mode's name is a marker (-m acme) and part of item ids
    return name.isidentifier() and name.isascii() and not name.startswith("_")


def _entry(name: str, entry: Any, at: str) -> ModeSpec:
    if not isinstance(entry, dict):
        raise ModeConfigError(f"{at} must be a table (kind, program or command, env, ...)")
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise ModeConfigError(
            f"{at}: unknown key {unknown[0]!r}; valid keys: {', '.join(sorted(_KEYS))}"
        )
    kind = entry.get("kind")
    if kind not in _KINDS:
        shown = "missing" if kind is None else repr(kind)
        raise ModeConfigError(f'{at} kind: {shown}; expected "cli" or "mcp"')
    env = _env(entry.get("env"), f"{at} env")
    instructions = entry.get("instructions")
    if instructions is not None and (not isinstance(instructions, str) or not instructions):
        raise ModeConfigError(f"{at} instructions: expected a non-empty string")
    spec = ModeSpec(
        name,
        cast(Literal["cli", "mcp"], kind),
        env={**CONVENTIONAL_ENV[kind], **env},
        instructions=instructions,
        client=name,
        where=at,
    )
    if kind == "cli":
        if "command" in entry:
            raise ModeConfigError(f"{at}: a kind cli mode has a 'program', not a 'command'")
        program = entry.get("program")
        if not isinstance(program, str) or not program.strip():
            raise ModeConfigError(
                f"{at} program: missing; a kind cli mode names its program (on PATH, or a path)"
            )
        return replace(spec, program=program)
    if "program" in entry:
        raise ModeConfigError(f"{at}: a kind mcp mode has a 'command' (a list), not a 'program'")
    command = entry.get("command")
    if isinstance(command, str):
        import shlex

        command = shlex.split(command)
    if (
        not isinstance(command, list)
        or not command
        or not all(isinstance(word, str) and word for word in command)
    ):
        raise ModeConfigError(
            f"{at} command: missing or empty; a kind mcp mode names its stdio server's command "
            'line, e.g. ["github-mcp-server", "stdio", "--read-only"]'
        )
    return replace(spec, command=tuple(command))


def _env(value: Any, at: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ModeConfigError(f'{at}: expected a table of NAME = "value"')
    out: dict[str, str] = {}
    for key, text in value.items():
        if not isinstance(text, str):
            raise ModeConfigError(f"{at}.{key}: expected a string, got {text!r}")
        for _, field_name, _, _ in _parse(text, f"{at}.{key}"):
            if field_name is not None and field_name not in TEMPLATE_NAMES:
                raise ModeConfigError(
                    f"{at}.{key}: unknown template value {{{field_name}}}; valid: "
                    + ", ".join(f"{{{n}}}" for n in TEMPLATE_NAMES)
                    + " (write {{ and }} for literal braces)"
                )
        out[str(key)] = text
    return out


def _parse(text: str, at: str) -> list[tuple[str, str | None, str | None, str | None]]:
    try:
        return list(string.Formatter().parse(text))
    except ValueError as exc:
        raise ModeConfigError(f"{at}: {exc} in {text!r} (write {{{{ and }}}} for braces)") from None


def resolve_program(program: str, at: str, root: Path | None = None) -> str:
    """``program`` as an absolute path: a path (relative to ``root``) that exists, or a name
    found on ``PATH``; :class:`ModeConfigError` naming ``at`` otherwise."""
    if "/" in program:
        path = Path(program).expanduser()
        if not path.is_absolute() and root is not None:
            path = root / path
        if not path.is_file():
            raise ModeConfigError(f"{at}: {program!r} not found (no such file: {path})")
        return str(path.absolute())
    found = shutil.which(program)
    if found is None:
        raise ModeConfigError(f"{at}: {program!r} not found on PATH; install it or give its path")
    return str(Path(found).absolute())


def render_env(env: Mapping[str, str], values: Mapping[str, str]) -> dict[str, str]:
    """``env`` with its template values filled from ``values`` (keys of
    :data:`TEMPLATE_NAMES`)."""
    return {name: text.format_map(dict(values)) for name, text in env.items()}
