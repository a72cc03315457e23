"""Command-line machinery of the sandbox's ``gh``: command specs, pflag-style parsing, help.

The real ``gh`` is built on cobra and pflag; this module reproduces the parts an agent can
observe: long and short flags (``--title x``, ``--title=x``, ``-t x``, ``-tx``, ``-t=x``),
boolean flags with ``--flag=false``, repeatable list flags, ``--`` ending the flags, and cobra's
error texts (``unknown flag: --bogus``, ``flag needs an argument: --title``...) followed by the
command's usage block. Every failure is a :class:`GhError` carrying gh's exit status.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pytest_ghxbench.sandbox.dialects.gh_context import GhContext
    from pytest_ghxbench.sandbox.dialects.result import CliResult

__all__ = [
    "EXIT_CANCEL",
    "EXIT_ERROR",
    "EXIT_PENDING",
    "Command",
    "Flag",
    "GhError",
    "Group",
    "Parsed",
    "command_help",
    "flag_usage_block",
    "group_help",
    "parse_flags",
]

EXIT_ERROR = 1
EXIT_CANCEL = 2
EXIT_PENDING = 8
"""``gh pr checks`` exits 8 when some checks are still pending."""

FlagKind = Literal["bool", "string", "int", "strings", "array", "enum"]
"""``strings`` splits values on commas (pflag's StringSlice); ``array`` keeps each value whole
(StringArray, as ``gh api -f`` does). Both accumulate when the flag is repeated."""


class GhError(Exception):
    """A failed ``gh`` command: ``message`` goes to stderr, ``stdout`` (if any) to stdout."""

    def __init__(
        self,
        message: str,
        *,
        exit_code: int = EXIT_ERROR,
        stdout: str = "",
        usage: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.stdout = stdout
        self.usage = usage

    @property
    def stderr(self) -> str:
        text = (
            self.message if self.message.endswith("\n") or not self.message else self.message + "\n"
        )
        if self.usage:
            text += "\n" + self.usage
        return text


@dataclass(frozen=True)
class Flag:
    """One flag. ``metavar`` is what the usage block shows after the name (``string``...)."""

    long: str
    help: str
    short: str = ""
    kind: FlagKind = "string"
    default: Any = None
    choices: tuple[str, ...] = ()
    metavar: str = ""

    @property
    def takes_value(self) -> bool:
        return self.kind != "bool"

    def shown_metavar(self) -> str:
        if self.kind == "bool":
            return ""
        if self.metavar:
            return self.metavar
        return {"int": "int", "strings": "strings", "array": "stringArray"}.get(self.kind, "string")

    def names(self) -> str:
        """``-R, --repo`` as cobra prints it in flag errors."""
        return f"-{self.short}, --{self.long}" if self.short else f"--{self.long}"


JSON_FLAGS = (
    Flag("jq", "Filter JSON output using a jq expression", short="q", metavar="expression"),
    Flag("json", "Output JSON with the specified fields", metavar="fields"),
    Flag(
        "template",
        'Format JSON output using a Go template; see "gh help formatting"',
        short="t",
    ),
)
REPO_FLAG = Flag(
    "repo",
    "Select another repository using the [HOST/]OWNER/REPO format",
    short="R",
    metavar="[HOST/]OWNER/REPO",
)
HELP_FLAG = Flag("help", "Show help for command", short="h", kind="bool")


@dataclass
class Parsed:
    """Flag values (by long name, defaults filled in), positional args, and which flags were
    given on the command line."""

    values: dict[str, Any]
    args: list[str]
    given: set[str] = field(default_factory=set)

    def text(self, name: str) -> str:
        value = self.values.get(name)
        return "" if value is None else str(value)

    def on(self, name: str) -> bool:
        return bool(self.values.get(name))

    def number(self, name: str) -> int:
        return int(self.values.get(name) or 0)

    def items(self, name: str) -> list[str]:
        value = self.values.get(name)
        return list(value) if value else []

    def has(self, name: str) -> bool:
        return name in self.given


Handler = Callable[["GhContext", Parsed], "CliResult"]


@dataclass(frozen=True)
class Command:
    """A leaf command such as ``gh pr view``."""

    path: str
    """Words after ``gh``: ``"pr view"``."""
    use: str
    """Cobra's use line: ``"view [<number> | <url> | <branch>]"``."""
    short: str
    handler: Handler
    flags: tuple[Flag, ...] = ()
    long: str = ""
    max_args: int | None = None
    min_args: int = 0
    json_fields: tuple[str, ...] = ()
    repo_flag: bool = True
    arg_error: str = ""
    """Message when fewer than ``min_args`` positional arguments are given."""

    @property
    def name(self) -> str:
        return self.path.rsplit(" ", 1)[-1]

    def all_flags(self) -> tuple[Flag, ...]:
        extra = JSON_FLAGS if self.json_fields else ()
        return tuple(sorted(self.flags + extra, key=lambda f: f.long))

    def inherited_flags(self) -> tuple[Flag, ...]:
        return (HELP_FLAG, REPO_FLAG) if self.repo_flag else (HELP_FLAG,)

    def usage_line(self) -> str:
        return f"gh {self.path.rsplit(' ', 1)[0]} {self.use} [flags]".replace("  ", " ")


@dataclass(frozen=True)
class Group:
    """A command group such as ``gh pr``."""

    name: str
    short: str
    commands: tuple[Command, ...]
    long: str = ""

    def find(self, name: str) -> Command | None:
        return next((c for c in self.commands if c.name == name), None)


def _flag_rows(flags: Sequence[Flag]) -> list[str]:
    cells = []
    for flag in flags:
        short = f"-{flag.short}, " if flag.short else "    "
        meta = flag.shown_metavar()
        cells.append((f"  {short}--{flag.long}" + (f" {meta}" if meta else ""), flag))
    width = max((len(text) for text, _ in cells), default=0)
    rows = []
    for text, flag in cells:
        help_text = flag.help
        if flag.choices:
            help_text += f": {{{'|'.join(flag.choices)}}}"
        if flag.default not in (None, False, "", [], ()):
            shown = f'"{flag.default}"' if isinstance(flag.default, str) else flag.default
            help_text += f" (default {shown})"
        rows.append(f"{text.ljust(width)}   {help_text}")
    return rows


def flag_usage_block(command: Command) -> str:
    """The block cobra prints after a flag error: usage line and the command's flags."""
    lines = [f"Usage:  {command.usage_line()}", ""]
    flags = command.all_flags()
    if flags:
        lines += ["Flags:", *_flag_rows(flags), "  "]
    return "\n".join(lines) + "\n"


def command_help(command: Command) -> str:
    """``gh <group> <command> --help``."""
    parts = [
        (command.long or command.short).rstrip(),
        "",
        "USAGE",
        f"  {command.usage_line()}",
    ]
    flags = command.all_flags()
    if flags:
        parts += ["", "FLAGS", *_flag_rows(flags)]
    parts += ["", "INHERITED FLAGS", *_flag_rows(command.inherited_flags())]
    if command.json_fields:
        parts += ["", "JSON FIELDS", *_wrap_words(command.json_fields)]
    parts += [
        "",
        "LEARN MORE",
        "  Use `gh <command> <subcommand> --help` for more information about a command.",
        "  Read the manual at https://cli.github.com/manual",
        "",
    ]
    return "\n".join(parts)


def _wrap_words(words: Sequence[str], width: int = 78) -> list[str]:
    lines: list[str] = []
    current = " "
    for word in words:
        piece = f" {word},"
        if len(current) + len(piece) > width:
            lines.append(current)
            current = " "
        current += piece
    lines.append(current.rstrip(","))
    return lines


def group_help(group: Group) -> str:
    """``gh <group>`` or ``gh <group> --help``."""
    width = max(len(c.name) for c in group.commands) + 2
    rows = [f"  {(c.name + ':').ljust(width)} {c.short}" for c in group.commands]
    return "\n".join(
        [
            group.long or group.short,
            "",
            "USAGE",
            f"  gh {group.name} <command> [flags]",
            "",
            "COMMANDS",
            *rows,
            "",
            "INHERITED FLAGS",
            *_flag_rows((HELP_FLAG,)),
            "",
            "LEARN MORE",
            "  Use `gh <command> <subcommand> --help` for more information about a command.",
            "  Read the manual at https://cli.github.com/manual",
            "",
        ]
    )


def group_usage_block(group: Group) -> str:
    """What cobra prints after ``unknown command "x" for "gh pr"``."""
    names = sorted(c.name for c in group.commands)
    return f"Usage:  gh {group.name} <command> [flags]\n\nAvailable commands:\n" + "".join(
        f"  {name}\n" for name in names
    )


def json_fields_help(fields: Sequence[str]) -> str:
    """What gh prints for ``--json`` without a value."""
    return "Specify one or more comma-separated fields for `--json`:\n" + "".join(
        f"  {name}\n" for name in sorted(fields)
    )


# ---------------------------------------------------------------- parsing


def _convert(flag: Flag, raw: str, command: Command) -> Any:
    if flag.kind == "int":
        try:
            return int(raw)
        except ValueError:
            raise GhError(
                f'invalid argument "{raw}" for "{flag.names()}" flag: '
                f'strconv.ParseInt: parsing "{raw}": invalid syntax',
                usage=flag_usage_block(command),
            ) from None
    if flag.kind == "enum" and raw not in flag.choices:
        raise GhError(
            f'invalid argument "{raw}" for "{flag.names()}" flag: valid values are '
            f"{{{'|'.join(flag.choices)}}}",
            usage=flag_usage_block(command),
        )
    if flag.kind == "bool":
        folded = raw.lower()
        if folded in ("1", "t", "true"):
            return True
        if folded in ("0", "f", "false"):
            return False
        raise GhError(
            f'invalid argument "{raw}" for "{flag.names()}" flag: '
            f'strconv.ParseBool: parsing "{raw}": invalid syntax',
            usage=flag_usage_block(command),
        )
    return raw


def _store(parsed: Parsed, flag: Flag, value: Any) -> None:
    """Set a flag; list flags take comma-separated values and accumulate when repeated."""
    if flag.kind in ("strings", "array"):
        text = str(value)
        items = (
            [p.strip() for p in text.split(",") if p.strip()] if flag.kind == "strings" else [text]
        )
        earlier = parsed.values.get(flag.long) or [] if flag.long in parsed.given else []
        parsed.values[flag.long] = [*earlier, *items]
    else:
        parsed.values[flag.long] = value
    parsed.given.add(flag.long)


def parse_flags(command: Command, argv: Sequence[str]) -> Parsed:
    """Parse ``argv`` (the words after the command path) the way pflag would."""
    flags = command.all_flags() + command.inherited_flags()
    by_long = {f.long: f for f in flags}
    by_short = {f.short: f for f in flags if f.short}
    parsed = Parsed(values={f.long: _default(f) for f in flags}, args=[])
    usage = flag_usage_block(command)
    index = 0
    while index < len(argv):
        word = argv[index]
        index += 1
        if word == "--":
            parsed.args.extend(argv[index:])
            break
        if word.startswith("--") and len(word) > 2:
            name, eq, inline = word[2:].partition("=")
            flag = by_long.get(name)
            if flag is None:
                raise GhError(f"unknown flag: --{name}", usage=usage)
            if not flag.takes_value:
                _store(parsed, flag, _convert(flag, inline, command) if eq else True)
                continue
            if not eq:
                if index >= len(argv):
                    if name == "json" and command.json_fields:
                        raise GhError(json_fields_help(command.json_fields))
                    raise GhError(f"flag needs an argument: --{name}", usage=usage)
                inline = argv[index]
                index += 1
            _store(parsed, flag, _convert(flag, inline, command))
        elif word.startswith("-") and len(word) > 1:
            index = _parse_shorts(word, argv, index, by_short, parsed, command)
        else:
            parsed.args.append(word)
    return parsed


def _parse_shorts(
    word: str,
    argv: Sequence[str],
    index: int,
    by_short: dict[str, Flag],
    parsed: Parsed,
    command: Command,
) -> int:
    letters = word[1:]
    position = 0
    while position < len(letters):
        letter = letters[position]
        flag = by_short.get(letter)
        if flag is None:
            raise GhError(
                f"unknown shorthand flag: '{letter}' in {word}", usage=flag_usage_block(command)
            )
        rest = letters[position + 1 :]
        if not flag.takes_value:
            if rest.startswith("="):
                _store(parsed, flag, _convert(flag, rest[1:], command))
                return index
            _store(parsed, flag, True)
            position += 1
            continue
        if rest:
            value = rest[1:] if rest.startswith("=") else rest
        elif index < len(argv):
            value = argv[index]
            index += 1
        else:
            raise GhError(
                f"flag needs an argument: '{letter}' in -{letter}", usage=flag_usage_block(command)
            )
        _store(parsed, flag, _convert(flag, value, command))
        return index
    return index


def _default(flag: Flag) -> Any:
    if flag.kind == "bool":
        return bool(flag.default)
    if flag.kind in ("strings", "array"):
        return list(flag.default or [])
    return flag.default
