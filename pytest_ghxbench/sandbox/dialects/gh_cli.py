"""The ``gh`` dialect: the GitHub CLI's commands, flags and ``--json`` fields over a sandbox
:class:`~pytest_ghxbench.sandbox.state.World`.

:func:`run_gh` runs one command line (the words after ``gh``) and returns what gh would print
with stdout on a pipe (an agent's shell tool), its exit status, and whether the world changed.
Commands live in the ``gh_*`` modules of this package, one per command group; reads render the
world in gh's export shapes (:mod:`.gh_render`), writes go through the sandbox capabilities
where one exists. ``gh api`` serves the REST paths and a GraphQL endpoint (:mod:`.gh_api`).

Not a TTY: no colours, no prompts, tables are tab-separated, JSON is compact. Interactive-only
paths (editors, browsers, prompts) fail with gh's "required when not running interactively"
errors or a short sandbox message.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from pytest_ghxbench.sandbox.dialects.gh_args import (
    Command,
    GhError,
    Group,
    command_help,
    group_help,
    group_usage_block,
    parse_flags,
)
from pytest_ghxbench.sandbox.dialects.gh_context import GhContext
from pytest_ghxbench.sandbox.dialects.gh_groups import ALIASES, GROUPS, TOP_COMMANDS, UNAVAILABLE
from pytest_ghxbench.sandbox.dialects.result import CliResult
from pytest_ghxbench.sandbox.state import World

__all__ = ["GH_USAGE", "GH_VERSION", "run_gh"]

GH_VERSION = "gh version 2.74.0 (2025-06-01)\nhttps://github.com/cli/cli/releases/tag/v2.74.0\n"

GH_USAGE = """Work seamlessly with GitHub from the command line.

USAGE
  gh <command> <subcommand> [flags]

CORE COMMANDS
  auth:          Authenticate gh and git with GitHub
  issue:         Manage issues
  pr:            Manage pull requests
  project:       Work with GitHub Projects.
  release:       Manage releases
  repo:          Manage repositories

GITHUB ACTIONS COMMANDS
  run:           View details about workflow runs
  workflow:      View details about GitHub Actions workflows

ADDITIONAL COMMANDS
  api:           Make an authenticated GitHub API request
  label:         Manage labels
  search:        Search for repositories, issues, and pull requests

FLAGS
  --help      Show help for command
  --version   Show gh version

EXAMPLES
  $ gh issue list --state open --json number,title
  $ gh pr view 123 --json reviews,statusCheckRollup
  $ gh run view 456 --log-failed
  $ gh api graphql -f query='query { viewer { login } }'

LEARN MORE
  Use `gh <command> <subcommand> --help` for more information about a command.
  Read the manual at https://cli.github.com/manual
"""

_NOT_IN_SANDBOX = (
    "alias",
    "attestation",
    "browse",
    "cache",
    "co",
    "codespace",
    "completion",
    "config",
    "extension",
    "gist",
    "gpg-key",
    "org",
    "ruleset",
    "secret",
    "ssh-key",
    "status",
    "variable",
)


def run_gh(world: World, argv: Sequence[str], stdin: str = "") -> CliResult:
    """Run ``gh ARGV...`` against ``world`` (mutating it in place for write commands)."""
    context = GhContext(world, stdin)
    try:
        return _dispatch(context, list(argv))
    except GhError as error:
        return CliResult(error.exit_code, error.stdout, error.stderr, context.mutated)
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        # A value the sandbox could not interpret must not crash the agent's shell (or the
        # in-process oracle); the message says what went wrong, as gh would for bad input.
        message = (
            f"gh: could not handle this command in the sandbox ({type(error).__name__}: {error})\n"
        )
        return CliResult(1, "", message, context.mutated)


def _is_help(words: Sequence[str]) -> bool:
    before_dashes = list(words[: words.index("--")]) if "--" in words else list(words)
    return "--help" in before_dashes or "-h" in before_dashes


def _dispatch(context: GhContext, argv: list[str]) -> CliResult:
    if not argv or argv[0] in ("--help", "-h"):
        return CliResult(0, GH_USAGE)
    if argv[0] in ("--version", "version"):
        return CliResult(0, GH_VERSION)
    if argv[0] == "help":
        return _help(argv[1:])
    top, rest = argv[0], argv[1:]
    if top in TOP_COMMANDS:
        return _run_command(context, TOP_COMMANDS[top], rest)
    group = GROUPS.get(top)
    if group is None:
        if top in _NOT_IN_SANDBOX:
            raise GhError(f"gh {top} is not available in the sandbox")
        raise _unknown(top, "gh", sorted([*GROUPS, *TOP_COMMANDS]))
    rest = _hoist_repo_flag(rest)
    if not rest or rest[0] in ("--help", "-h"):
        return CliResult(0, group_help(group))
    name = ALIASES.get((top, rest[0]), rest[0])
    command = group.find(name)
    if command is None and (top, name) in UNAVAILABLE:
        raise GhError(
            f"gh {top} {name} is not available in the sandbox: {UNAVAILABLE[(top, name)]}"
        )
    if command is None:
        raise _unknown(rest[0], f"gh {top}", [c.name for c in group.commands], group)
    return _run_command(context, command, rest[1:])


def _hoist_repo_flag(words: list[str]) -> list[str]:
    """``gh pr -R o/r view 7`` works in gh (``-R`` is a persistent flag of the group)."""
    if len(words) >= 3 and words[0] in ("-R", "--repo"):
        return [words[2], words[0], words[1], *words[3:]]
    if len(words) >= 2 and words[0].startswith("--repo="):
        return [words[1], words[0], *words[2:]]
    return words


def _unknown(word: str, parent: str, names: list[str], group: Group | None = None) -> GhError:
    message = f'unknown command "{word}" for "{parent}"'
    close = difflib.get_close_matches(word, names, n=2, cutoff=0.6)
    if close:
        message += "\n\nDid you mean this?\n" + "".join(f"\t{name}\n" for name in close)
    if group is not None:
        usage = group_usage_block(group)
    else:
        usage = "Usage:  gh <command> <subcommand> [flags]\n\nAvailable commands:\n" + "".join(
            f"  {name}\n" for name in names
        )
    return GhError(message, usage=usage)


def _run_command(context: GhContext, command: Command, words: list[str]) -> CliResult:
    if _is_help(words):
        return CliResult(0, command_help(command))
    parsed = parse_flags(command, words)
    count = len(parsed.args)
    if command.max_args == 0 and count:
        raise GhError(f'unknown command "{parsed.args[0]}" for "gh {command.path}"')
    if command.max_args is not None and count > command.max_args:
        raise GhError(f"accepts at most {command.max_args} arg(s), received {count}")
    if count < command.min_args:
        raise GhError(command.arg_error or f"accepts {command.min_args} arg(s), received {count}")
    return command.handler(context, parsed)


def _help(words: list[str]) -> CliResult:
    if not words:
        return CliResult(0, GH_USAGE)
    if words[0] in TOP_COMMANDS:
        return CliResult(0, command_help(TOP_COMMANDS[words[0]]))
    group = GROUPS.get(words[0])
    if group is None:
        raise GhError(f'unknown help topic "{words[0]}"')
    if len(words) > 1:
        command = group.find(ALIASES.get((words[0], words[1]), words[1]))
        if command is not None:
            return CliResult(0, command_help(command))
    return CliResult(0, group_help(group))
