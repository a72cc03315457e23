"""The ``bash`` tool that real agents get in the CLI modes, executed without a shell.

A model asks for ``command``; it is split with :func:`shlex.split` and run directly, so it can only
ever start the mode's own binary (``gh`` or ``ghx``, looked up on the item's ``PATH``). Anything a
shell would interpret — pipes, redirections, command lists, substitutions, variable expansions,
unquoted newlines — is refused with a message the model can read and act on, as are paths in
place of the binary and ``gh`` subcommands that run other programs or print credentials. The
process gets a scrubbed environment, a timeout and truncated output, and runs in the item's jail
when the tool is given the jail's shell.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_ghxbench.isolation.shell import JailShell

__all__ = [
    "DEFAULT_MAX_OUTPUT_CHARS",
    "DEFAULT_TIMEOUT_S",
    "BashOutcome",
    "BashTool",
    "CommandRefused",
    "parse_command",
    "scrubbed_env",
    "truncate",
]

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_OUTPUT_CHARS = 16_000

# Variables a CLI needs to behave normally; everything else from the harness's own environment
# (API keys above all) stays out. The backend's variables (``request.env``) are added on top.
_KEPT_VARIABLES = (
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TERM",
    "TMPDIR",
    "TZ",
    "SYSTEMROOT",
)
_FIXED_VARIABLES = {
    "GH_PROMPT_DISABLED": "1",
    "GH_NO_UPDATE_NOTIFIER": "1",
    "GH_PAGER": "cat",
    "PAGER": "cat",
    "NO_COLOR": "1",
}
# gh subcommands that run other programs, open editors/browsers, or print credentials.
_REFUSED_GH_SUBCOMMANDS = frozenset(
    {"alias", "auth", "codespace", "cs", "config", "extension", "extensions", "ext", "browse"}
)
_OPERATORS = "|&;<>()"
_NAME_START = re.compile(r"[A-Za-z_{(0-9?!#*@$-]")


class CommandRefused(ValueError):
    """The command cannot be run by the tool; the message is meant for the model."""


@dataclass(frozen=True)
class BashOutcome:
    """What one tool call produced. ``output`` is what the model is shown."""

    output: str
    ok: bool
    exit_code: int | None = None
    refused: bool = False
    timed_out: bool = False
    truncated: bool = False
    duration_ms: float = 0.0


def _refuse(command: str, why: str, binary: str) -> CommandRefused:
    return CommandRefused(
        f"refused: {why}. This tool runs exactly one `{binary}` command without a shell: "
        f"no pipes, redirections, `;`/`&&`, substitutions or variables. "
        f"Command was: {command!r}"
    )


def _check_shell_syntax(command: str, binary: str) -> None:
    """Refuse anything a shell would treat specially outside single quotes."""
    quote: str | None = None
    escaped = False
    for index, char in enumerate(command):
        if escaped:
            escaped = False
            continue
        if quote == "'":
            if char == "'":
                quote = None
            continue
        if char == "\\":
            escaped = True
            continue
        if char == "`":
            raise _refuse(command, "backtick command substitution is not supported", binary)
        if char == "$" and _NAME_START.match(command, index + 1):
            raise _refuse(command, "`$` substitutions and variables are not supported", binary)
        if quote == '"':
            if char == '"':
                quote = None
            continue
        if char in "'\"":
            quote = char
        elif char in "\n\r":
            raise _refuse(
                command, "a newline separates commands; send one command per call", binary
            )
        elif char in _OPERATORS:
            raise _refuse(command, f"the shell operator {char!r} is not supported", binary)
    if "\x00" in command:
        raise _refuse(command, "NUL characters are not allowed", binary)


def _is_path_escape(word: str) -> bool:
    """``../`` at the start of the word or of a ``flag=value`` / ``key=@file`` value."""
    candidates = {word, word.lstrip("@")}
    if "=" in word:
        value = word.split("=", 1)[1]
        candidates |= {value, value.lstrip("@")}
    return any(c == ".." or c.startswith("../") or "/../" in c for c in candidates)


def parse_command(command: str, binary: str) -> list[str]:
    """The argument vector of ``command`` if the tool may run it, else :class:`CommandRefused`.

    The first word must be ``binary`` itself (not a path to it or to anything else)."""
    if not command.strip():
        raise _refuse(command, "the command is empty", binary)
    _check_shell_syntax(command, binary)
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise _refuse(command, f"it cannot be split into words ({exc})", binary) from None
    if words[0] != binary:
        raise _refuse(command, f"only `{binary}` can be run, not {words[0]!r}", binary)
    for word in words[1:]:
        if word.startswith("--exec") or word in ("-c", "--shell"):
            raise _refuse(command, f"the flag {word!r} runs other programs", binary)
        if _is_path_escape(word):
            raise _refuse(command, f"the path {word!r} leaves the working directory", binary)
    if binary == "gh":
        subcommand = next((w for w in words[1:] if not w.startswith("-")), None)
        if subcommand in _REFUSED_GH_SUBCOMMANDS:
            raise _refuse(command, f"`gh {subcommand}` is not available in this benchmark", binary)
    return words


def scrubbed_env(extra: Mapping[str, str], base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a tool process: a few harmless variables of ``base`` (default: this
    process's environment), the fixed non-interactive settings, then ``extra`` (the backend's)."""
    source = os.environ if base is None else base
    env = {name: source[name] for name in _KEPT_VARIABLES if name in source}
    env.update(_FIXED_VARIABLES)
    env.update(extra)
    return env


def truncate(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters with a marker saying how much was dropped."""
    if len(text) <= limit:
        return text, False
    dropped = len(text) - limit
    return f"{text[:limit]}\n[output truncated: {dropped} more characters]", True


class BashTool:
    """Runs one binary's commands for an agent (see the module docstring)."""

    def __init__(
        self,
        binary: str,
        env: Mapping[str, str],
        cwd: Path | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
        shell: JailShell | None = None,
    ) -> None:
        """``shell``: run commands in the item's jail (it was started with ``env`` and
        ``cwd``)."""
        self.binary = binary
        self.env = dict(env)
        self.cwd = cwd
        self.timeout_s = timeout_s
        self.max_output_chars = max_output_chars
        self.shell = shell

    def run(self, command: str, timeout_s: float | None = None) -> BashOutcome:
        """Run ``command`` (refusing what the tool does not allow) and describe the outcome."""
        started = time.monotonic()
        try:
            words = parse_command(command, self.binary)
        except CommandRefused as exc:
            return BashOutcome(output=str(exc), ok=False, refused=True)
        executable = shutil.which(self.binary, path=self.env.get("PATH", ""))
        if executable is None:
            return BashOutcome(output=f"error: `{self.binary}` is not installed", ok=False)
        limit = self.timeout_s if timeout_s is None else min(timeout_s, self.timeout_s)
        if self.shell is not None:
            done = self.shell.run([executable, *words[1:]], max(limit, 0.001))
            stdout, stderr, code = done.stdout, done.stderr, done.exit_code
            timed_out = done.timed_out
        else:
            stdout, stderr, code, timed_out = _execute(
                [executable, *words[1:]], self.env, self.cwd, max(limit, 0.001)
            )
        text = _render(stdout, stderr, code, timed_out, limit)
        text, truncated = truncate(text, self.max_output_chars)
        return BashOutcome(
            output=text,
            ok=code == 0 and not timed_out,
            exit_code=code,
            timed_out=timed_out,
            truncated=truncated,
            duration_ms=(time.monotonic() - started) * 1000.0,
        )


def _execute(
    argv: Sequence[str], env: Mapping[str, str], cwd: Path | None, timeout_s: float
) -> tuple[str, str, int | None, bool]:
    process = subprocess.Popen(
        list(argv),
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,  # so a timeout can kill the shim and everything it started
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout_s)
        return stdout, stderr, process.returncode, False
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):  # it may have ended in between
            os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        return stdout, stderr, None, True


def _render(stdout: str, stderr: str, code: int | None, timed_out: bool, limit: float) -> str:
    parts = [stdout.rstrip("\n")] if stdout else []
    if stderr:
        parts.append("[stderr]\n" + stderr.rstrip("\n"))
    if timed_out:
        parts.append(f"[timed out after {limit:g} s]")
    elif code:
        parts.append(f"[exit status {code}]")
    return "\n".join(parts) if parts else "[no output]"
