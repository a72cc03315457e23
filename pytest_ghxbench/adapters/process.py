"""What a CLI agent process is started with: a scrubbed environment, its secrets (to redact),
its working directory, the runtime's executable and version, and the MCP server command its
backend names (which a backend writes with :mod:`pytest_ghxbench.backends.launcher`).

Running the process to its deadline is :mod:`pytest_ghxbench.adapters.agent_process`.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_ghxbench.backends.launcher import MCP_COMMAND_ENV, command_words

if TYPE_CHECKING:
    from pytest_ghxbench.api import RunRequest

__all__ = [
    "BASE_ENV_KEYS",
    "adapter_table",
    "backend_mcp_command",
    "command_words",  # from backends.launcher: adapters read configured commands with it
    "executable_version",
    "locate_runtime",
    "mcp_server_command",
    "provider_model",
    "redact",
    "scrubbed_env",
    "secret_values",
    "working_directory",
]

BASE_ENV_KEYS = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TERM",
    "TMPDIR",
    "TZ",
    "SYSTEMROOT",
)
"""Variables of the harness's environment every agent process inherits; nothing else does
unless an adapter passes it explicitly (credentials) or the backend provides it."""

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)", re.IGNORECASE)
_MIN_SECRET_LENGTH = 6


def scrubbed_env(
    extra: Mapping[str, str],
    passthrough: Iterable[str] = (),
    base: Mapping[str, str] | None = None,
    prefixes: Iterable[str] = (),
) -> dict[str, str]:
    """The environment of an agent process: :data:`BASE_ENV_KEYS`, ``passthrough`` names and
    names starting with one of ``prefixes`` (a runtime's own settings, e.g. ``CLAUDE_``) from
    ``base`` (default: the harness's environment), then ``extra`` (the backend's variables,
    which win)."""
    source = os.environ if base is None else base
    starts = tuple(prefixes)
    env = {key: source[key] for key in (*BASE_ENV_KEYS, *passthrough) if key in source}
    if starts:
        env.update({key: value for key, value in source.items() if key.startswith(starts)})
    env.update(extra)
    return env


def secret_values(env: Mapping[str, str]) -> list[str]:
    """Values of variables whose names look like credentials (…KEY, …TOKEN, …SECRET…)."""
    values = {
        value
        for name, value in env.items()
        if _SECRET_NAME.search(name) and len(value) >= _MIN_SECRET_LENGTH
    }
    return sorted(values, key=len, reverse=True)


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every secret value replaced by ``[redacted]``."""
    for secret in secrets:
        if secret and secret in text:
            text = text.replace(secret, "[redacted]")
    return text


def working_directory(request: RunRequest) -> Path:
    """Where the agent starts: the backend session's checkout of the repository when it makes
    one (the sandbox's, a clone as a CI job has), else the item's scratch directory."""
    where = getattr(request.backend, "working_directory", None)
    return Path(where()) if callable(where) else request.workdir


def executable_version(path: str, timeout_s: float = 15.0) -> str | None:
    """The first line ``path --version`` prints, or ``None`` if it fails."""
    try:
        done = subprocess.run(
            [path, "--version"],
            capture_output=True,
            timeout=timeout_s,
            check=False,
            start_new_session=True,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (done.stdout or done.stderr).decode("utf-8", errors="replace").strip()
    return text.splitlines()[0] if text and done.returncode == 0 else None


def backend_mcp_command(env: Mapping[str, str]) -> list[str] | None:
    """The MCP server command line the item's backend asks for, or ``None`` (the sandbox's)."""
    return command_words(env.get(MCP_COMMAND_ENV, ""))


def mcp_server_command(env: Mapping[str, str]) -> tuple[str, list[str], dict[str, str]]:
    """``(command, args, env)`` of the MCP server for an item whose backend env is ``env``: the
    backend's own (see :data:`MCP_COMMAND_ENV`; it needs no extra variables). A backend that
    names none gives mcp items no server: that is a usage error, raised as
    :class:`~pytest_ghxbench.api.AdapterUnavailable`."""
    own = backend_mcp_command(env)
    if not own:
        from pytest_ghxbench.api import AdapterUnavailable

        raise AdapterUnavailable(
            f"the item's backend names no MCP server ({MCP_COMMAND_ENV} is not set); mcp items "
            "need a backend that serves one (sandbox, github)"
        )
    return own[0], own[1:], {}


def provider_model(model: str | None, default_provider: str) -> tuple[str, str | None]:
    """Split ``"provider/model"`` (the ``--ghx-model`` form); a bare name gets the default
    provider. ``None`` stays ``None`` (the runtime's own default model)."""
    if not model:
        return default_provider, None
    provider, sep, name = model.partition("/")
    return (provider, name) if sep and name else (default_provider, model)


def adapter_table(config: object, *names: str) -> dict[str, object]:
    """The ``[tool.ghxbench.adapters.<name>]`` table for the first of ``names`` present
    (``claude-code`` or ``claude_code``), or ``{}``."""
    from pytest_ghxbench.options import resolve_settings

    tables = resolve_settings(config).tables.get("adapters") or {}  # type: ignore[arg-type]
    for name in names:
        table = tables.get(name)
        if isinstance(table, Mapping):
            return dict(table)
    return {}


def locate_runtime(runtime: str, command: str, product: str) -> tuple[str, str | None]:
    """The path and ``--version`` of a CLI runtime's binary; ``AdapterUnavailable`` naming the
    config key to set when it is not on PATH."""
    import shutil

    from pytest_ghxbench.api import AdapterUnavailable

    binary = shutil.which(command)
    if binary is None:
        raise AdapterUnavailable(
            f"{runtime}: executable {command!r} not found on PATH "
            f"(install {product} or set [tool.ghxbench.adapters.{runtime}] binary)"
        )
    return binary, executable_version(binary)
