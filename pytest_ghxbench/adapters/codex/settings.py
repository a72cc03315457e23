"""What the codex adapter reads of the user's Codex setup: ``$CODEX_HOME/config.toml``, with
``-c key=value`` overrides.

Codex's settings belong to the user. The adapter reads them only to pass the right variables
through (``CODEX_*``, ``OPENAI_*`` and every variable a configured model provider names with
``env_key`` or ``env_http_headers``) and to check before the first item that the selected
provider has its credentials.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "BUILTIN_KEYLESS_PROVIDERS",
    "CodexSettings",
    "codex_home",
    "config_overrides",
    "credentials_problem",
    "read_settings",
]

BUILTIN_KEYLESS_PROVIDERS = ("ollama", "lmstudio", "oss")
"""Built-in providers that need no credentials (local servers)."""


def codex_home(environ: Mapping[str, str]) -> Path:
    """``$CODEX_HOME``, else ``~/.codex`` of the harness's user (an item's HOME is private)."""
    explicit = environ.get("CODEX_HOME")
    if explicit:
        return Path(explicit).expanduser()
    return Path(environ.get("HOME") or os.path.expanduser("~")) / ".codex"


def _toml_value(text: str) -> Any:
    """A ``-c`` value as Codex reads it: TOML, else the raw string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def config_overrides(args: Sequence[str]) -> list[tuple[list[str], Any]]:
    """The ``-c``/``--config`` ``key=value`` pairs in ``args`` as (dotted path, value)."""
    pairs: list[tuple[list[str], Any]] = []
    words = list(args)
    for index, word in enumerate(words):
        if word in ("-c", "--config") and index + 1 < len(words):
            text = words[index + 1]
        elif word.startswith("--config="):
            text = word.partition("=")[2]
        else:
            continue
        key, sep, value = text.partition("=")
        if sep and key.strip():
            pairs.append(([part.strip().strip('"') for part in key.split(".")], _toml_value(value)))
    return pairs


def _apply(config: dict[str, Any], path: list[str], value: Any) -> None:
    node = config
    for part in path[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    node[path[-1]] = value


@dataclass(frozen=True)
class CodexSettings:
    """The parts of the user's Codex configuration the adapter needs."""

    home: Path
    provider: str
    """The selected model provider (``openai`` unless configured)."""
    provider_table: Mapping[str, Any] | None
    """The selected provider's ``[model_providers.<id>]`` table, if it is a custom one."""
    providers: tuple[str, ...]
    """The ids of the configured ``[model_providers]``."""
    model: str | None
    """The configured ``model``, if any."""
    variables: tuple[str, ...]
    """Every variable a configured provider names (``env_key``, ``env_http_headers`` values)."""
    problem: str | None = None
    """Why the config file could not be read, if it could not."""

    def key_variable(self) -> str | None:
        """The variable holding the selected provider's key, if it names one."""
        table = self.provider_table or {}
        key = table.get("env_key")
        return key if isinstance(key, str) and key else None


def _provider_variables(providers: Mapping[str, Any]) -> list[str]:
    names: list[str] = []
    for table in providers.values():
        if not isinstance(table, Mapping):
            continue
        if isinstance(table.get("env_key"), str):
            names.append(table["env_key"])
        headers = table.get("env_http_headers")
        if isinstance(headers, Mapping):
            names += [value for value in headers.values() if isinstance(value, str)]
    return names


def read_settings(environ: Mapping[str, str], args: Sequence[str] = ()) -> CodexSettings:
    """The user's settings: ``config.toml`` under :func:`codex_home`, then ``-c`` overrides
    found in ``args`` (the configured ``extra_args``)."""
    home = codex_home(environ)
    config: dict[str, Any] = {}
    problem = None
    path = home / "config.toml"
    if path.is_file():
        try:
            config = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            problem = f"cannot read {path}: {exc}"
    for key, value in config_overrides(args):
        _apply(config, key, value)
    providers = config.get("model_providers")
    providers = providers if isinstance(providers, Mapping) else {}
    provider = config.get("model_provider")
    profiles = config.get("profiles")
    profile = profiles.get(config.get("profile")) if isinstance(profiles, Mapping) else None
    if isinstance(profile, Mapping) and isinstance(profile.get("model_provider"), str):
        provider = profile["model_provider"]
    provider = provider if isinstance(provider, str) and provider else "openai"
    table = providers.get(provider)
    model = config.get("model")
    if isinstance(profile, Mapping) and isinstance(profile.get("model"), str):
        model = profile["model"]
    return CodexSettings(
        home=home,
        provider=provider,
        provider_table=table if isinstance(table, Mapping) else None,
        providers=tuple(str(name) for name in providers),
        model=model if isinstance(model, str) and model else None,
        variables=tuple(dict.fromkeys(_provider_variables(providers))),
        problem=problem,
    )


def credentials_problem(
    settings: CodexSettings, environ: Mapping[str, str], openai_vars: Iterable[str]
) -> str | None:
    """Why the selected provider cannot authenticate, or ``None`` when it can (or needs no
    credentials)."""
    if settings.problem:
        return settings.problem
    table = settings.provider_table
    if table is not None:
        key = settings.key_variable()
        if key and not environ.get(key):
            return (
                f"model provider {settings.provider!r} reads its key from {key}, which is not set"
            )
        if not table.get("requires_openai_auth"):
            return None
    elif settings.provider in BUILTIN_KEYLESS_PROVIDERS:
        return None
    names = list(openai_vars)
    if any(environ.get(name) for name in names) or (settings.home / "auth.json").is_file():
        return None
    return f"no credentials: set {' or '.join(names)}, or run `codex login` once"
