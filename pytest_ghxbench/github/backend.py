"""The ``github`` backend: items run against a real repository with the user's token.

Configuration (``[tool.ghxbench.backends.github]`` in ``pyproject.toml``; each key also has an
environment variable that wins over the file):

- ``repo`` (``GHXBENCH_GITHUB_REPO``): ``owner/name`` of the fixture repository; defaults to
  the manifest's ``repo``.
- ``api_url`` (``GITHUB_API_URL``): REST base URL; ``https://api.github.com`` by default,
  ``https://HOST/api/v3`` for GitHub Enterprise Server.
- ``token_env``: names of the variables the token is read from, first set wins; default
  ``["GH_TOKEN", "GITHUB_TOKEN"]``. The token is never read from a file.
- ``manifest``: the fixture manifest ``ghxbench fixtures seed --backend github`` wrote;
  default ``.ghxbench/fixture-manifest.github.json`` under the rootdir.

Once per session, in the process that owns it (the xdist controller), :meth:`preflight` does
what ``gh auth status`` does and a little more: the token is set, GitHub accepts it, and the
repository exists and the token may push to it. Any failure is one usage error before any item
runs. Items then get the token in ``GH_TOKEN``/``GITHUB_TOKEN`` (and
``GITHUB_PERSONAL_ACCESS_TOKEN``, which GitHub's MCP server reads) plus ``GH_REPO``; the
agent's tools are the user's own ``gh``/``ghx`` binaries on ``PATH``. Workflow checkpoints are
verified through the ghx capabilities (:mod:`pytest_ghxbench.ghx`) with the same token, the
same code that verifies them on the sandbox.
"""

from __future__ import annotations

import os
import shlex
import shutil
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_ghxbench.api import AdapterUnavailable
from pytest_ghxbench.backends.launcher import command_words, write_launcher
from pytest_ghxbench.ghx.client import DEFAULT_API_URL, GitHubClient, GitHubError
from pytest_ghxbench.modes import ModeTable

__all__ = ["DEFAULT_MANIFEST", "GitHubBackend", "GitHubSession", "GitHubSettings"]

DEFAULT_MANIFEST = Path(".ghxbench") / "fixture-manifest.github.json"
DEFAULT_TOKEN_ENV = ("GH_TOKEN", "GITHUB_TOKEN")
DEFAULT_MCP_COMMAND = ("github-mcp-server", "stdio")
_MCP_LAUNCHER = "ghxbench-github-mcp"


class BackendConfigError(ValueError):
    """``[tool.ghxbench.backends.github]`` has a value of the wrong kind."""


@dataclass(frozen=True)
class GitHubSettings:
    repo: str | None = None
    api_url: str = DEFAULT_API_URL
    token_env: tuple[str, ...] = DEFAULT_TOKEN_ENV
    manifest_path: Path = DEFAULT_MANIFEST
    mcp_command: tuple[str, ...] = DEFAULT_MCP_COMMAND

    @classmethod
    def from_config(
        cls, table: Mapping[str, Any] | None, env: Mapping[str, str], root: Path
    ) -> GitHubSettings:
        table = dict(table or {})
        where = "[tool.ghxbench.backends.github]"
        unknown = sorted(set(table) - {"repo", "api_url", "token_env", "manifest", "mcp_command"})
        if unknown:
            raise BackendConfigError(
                f"{where}: unknown key(s) {', '.join(unknown)}; "
                "valid: repo, api_url, token_env, manifest, mcp_command"
            )
        repo = env.get("GHXBENCH_GITHUB_REPO") or table.get("repo")
        if repo is not None and (not isinstance(repo, str) or repo.count("/") != 1):
            raise BackendConfigError(f"{where}: repo must be 'owner/name', got {repo!r}")
        api_url = env.get("GITHUB_API_URL") or table.get("api_url") or DEFAULT_API_URL
        if not isinstance(api_url, str) or urllib.parse.urlsplit(api_url).scheme not in (
            "http",
            "https",
        ):
            raise BackendConfigError(f"{where}: api_url must be an http(s) URL, got {api_url!r}")
        token_env = table.get("token_env", list(DEFAULT_TOKEN_ENV))
        if isinstance(token_env, str):
            token_env = [token_env]
        if not (
            isinstance(token_env, list) and token_env and all(isinstance(n, str) for n in token_env)
        ):
            raise BackendConfigError(
                f"{where}: token_env must be a variable name or a list of them, got {token_env!r}"
            )
        manifest = table.get("manifest")
        if manifest is not None and not isinstance(manifest, str):
            raise BackendConfigError(f"{where}: manifest must be a path, got {manifest!r}")
        manifest_path = Path(manifest) if manifest else DEFAULT_MANIFEST
        if not manifest_path.is_absolute():
            manifest_path = root / manifest_path
        configured = table.get("mcp_command", list(DEFAULT_MCP_COMMAND))
        mcp_command = command_words(configured)
        if mcp_command is None:
            raise BackendConfigError(
                f"{where}: mcp_command must be a command line (string or list of strings), "
                f"got {configured!r}"
            )
        return cls(repo, api_url.rstrip("/"), tuple(token_env), manifest_path, tuple(mcp_command))

    def token(self, env: Mapping[str, str]) -> str | None:
        for name in self.token_env:
            value = env.get(name)
            if value:
                return value
        return None


@dataclass
class GitHubSession:
    """One item's view: the token and repository for the agent's tools, and checkpoint
    verification through the GitHub API."""

    client: GitHubClient
    repo: str | None
    env: Mapping[str, str] = field(default_factory=dict)

    def run_task(self, task: str, input: Mapping[str, Any]) -> Mapping[str, Any]:
        """Capability ``task`` on GitHub (lenient input: unknown keys are ignored, as checkpoint
        inputs overlay a scenario's whole bound input)."""
        from pytest_ghxbench.ghx import run_capability

        return run_capability(self.client, task, input, strict=False)

    def close(self) -> None:
        """Nothing to release: GitHub state is shared and cleaned by ``ghxbench fixtures``."""


class GitHubBackend:
    """Real GitHub. ``env`` (default ``os.environ``) is where the token and overrides are read."""

    name = "github"

    def __init__(
        self,
        settings: GitHubSettings,
        *,
        env: Mapping[str, str] | None = None,
        client_factory: Callable[[str, str], GitHubClient] | None = None,
        modes: ModeTable | None = None,
    ) -> None:
        self.settings = settings
        self.modes = modes or ModeTable.builtin()
        self._env = os.environ if env is None else env
        self._client_factory = client_factory or (lambda token, url: GitHubClient(token, url))
        self._manifest: Mapping[str, Any] | None = None
        self._manifest_loaded = False
        self.login: str | None = None
        self.scopes: tuple[str, ...] = ()

    # ----------------------------------------------------------------- protocol

    def manifest(self) -> Mapping[str, Any] | None:
        """The manifest written by ``ghxbench fixtures seed --backend github``, or ``None``
        when there is none yet (scenarios that bind resources are then skipped)."""
        if not self._manifest_loaded:
            self._manifest_loaded = True
            path = self.settings.manifest_path
            if path.is_file():
                from pytest_ghxbench.scenario.manifest import load_manifest

                self._manifest = load_manifest(path)
        return self._manifest

    def open_session(self, item_id: str, workdir: Path, mode: str | None = None) -> GitHubSession:
        token = self._require_token()
        repo = self.repo()
        env = {
            "GH_TOKEN": token,
            "GITHUB_TOKEN": token,
            "GITHUB_PERSONAL_ACCESS_TOKEN": token,
        }
        if repo:
            env["GH_REPO"] = repo
        host = self._host()
        if host is not None:  # GitHub Enterprise Server: gh talks to this host, with these
            env["GH_HOST"] = host
            env["GH_ENTERPRISE_TOKEN"] = env["GITHUB_ENTERPRISE_TOKEN"] = token
        env["GHXBENCH_MCP_COMMAND"] = shlex.quote(str(self._mcp_launcher(workdir, token, host)))
        spec = self.modes.get(mode) if mode is not None else None
        if spec is not None and not spec.builtin:
            from pytest_ghxbench.github.modes import declared_environment

            env.update(
                declared_environment(
                    spec, token=token, api_url=self.settings.api_url, repo=repo, workdir=workdir
                )
            )
        return GitHubSession(self.client(), repo, env)

    def _mcp_launcher(self, workdir: Path, token: str, host: str | None) -> Path:
        """A script in the item's scratch directory that starts the MCP server with the token
        in its environment, so no runtime has to put the token on a command line."""
        variables = {"GITHUB_PERSONAL_ACCESS_TOKEN": token}
        if host is not None:
            variables["GITHUB_HOST"] = "https://" + host
        return write_launcher(workdir / _MCP_LAUNCHER, variables, self.settings.mcp_command)

    # ----------------------------------------------------------------- preflight

    def preflight(self, config: Any = None) -> None:
        """Once per session: token present and accepted, repository reachable and writable.
        Raises :class:`AdapterUnavailable` with what to fix."""
        token = self.settings.token(self._env)
        if token is None:
            names = " or ".join(self.settings.token_env)
            raise AdapterUnavailable(
                f"no GitHub token: set {names} (a token with repo scope for the fixture "
                "repository; `gh auth token` prints the one gh uses)"
            )
        client = self.client()
        try:
            answer = client.request("GET", "/user")
        except GitHubError as exc:
            raise AdapterUnavailable(_explain(exc)) from None
        user = answer.data if isinstance(answer.data, Mapping) else {}
        self.login = str(user.get("login") or "unknown")
        scopes = {k.lower(): v for k, v in answer.headers.items()}.get("x-oauth-scopes", "")
        self.scopes = tuple(s.strip() for s in scopes.split(",") if s.strip())
        repo = self.repo()
        if repo is None:
            raise AdapterUnavailable(
                "no fixture repository: set [tool.ghxbench.backends.github] repo = "
                "'owner/name' (or GHXBENCH_GITHUB_REPO), or seed fixtures with "
                "`ghxbench fixtures seed --backend github --repo owner/name`"
            )
        try:
            info = client.rest("GET", f"/repos/{repo}")
        except GitHubError as exc:
            if exc.status == 404:
                raise AdapterUnavailable(
                    f"repository {repo} not found, or not visible to @{self.login}"
                ) from None
            raise AdapterUnavailable(_explain(exc)) from None
        self._check_mcp_server(config)
        permissions = info.get("permissions") if isinstance(info, Mapping) else None
        if isinstance(permissions, Mapping) and not permissions.get("push", False):
            raise AdapterUnavailable(
                f"@{self.login} cannot push to {repo}: mutation scenarios would fail; use a "
                "token with write access to the fixture repository"
            )

    def _check_mcp_server(self, config: Any) -> None:
        if config is None:
            return
        from pytest_ghxbench.options import selected_modes

        if "mcp" not in selected_modes(config):
            return
        program = self.settings.mcp_command[0]
        if shutil.which(program) is None:
            raise AdapterUnavailable(
                f"mode mcp on the github backend runs {' '.join(self.settings.mcp_command)!r} "
                f"but {program!r} is not on PATH: install GitHub's MCP server or set "
                "[tool.ghxbench.backends.github] mcp_command"
            )

    def describe(self) -> str:
        """One line for the report header."""
        scopes = ", ".join(self.scopes) if self.scopes else "fine-grained or unknown scopes"
        who = f"@{self.login}" if self.login else "token not checked yet"
        repo = self.repo() or "(no repository)"
        return f"github {repo} at {self.settings.api_url} as {who} ({scopes})"

    # ----------------------------------------------------------------- helpers

    def repo(self) -> str | None:
        if self.settings.repo:
            return self.settings.repo
        manifest = self.manifest()
        repo = manifest.get("repo") if manifest is not None else None
        if isinstance(repo, Mapping):
            full_name = repo.get("full_name")
            if isinstance(full_name, str) and full_name.count("/") == 1:
                return full_name
        return None

    def client(self) -> GitHubClient:
        return self._client_factory(self._require_token(), self.settings.api_url)

    def _require_token(self) -> str:
        token = self.settings.token(self._env)
        if token is None:
            raise AdapterUnavailable(f"no GitHub token in {', '.join(self.settings.token_env)}")
        return token

    def _host(self) -> str | None:
        host = urllib.parse.urlsplit(self.settings.api_url).netloc
        return None if host in ("api.github.com", "") else host


def _explain(exc: GitHubError) -> str:
    if exc.status == 401:
        return f"GitHub rejected the token ({exc.message}); check it with `gh auth status`"
    if exc.status == 403:
        return f"the token may not do this ({exc.message})"
    if exc.status == 0:
        return exc.message  # "cannot reach <api_url>: <reason>"
    return str(exc)


def settings_from_config(config: Any) -> GitHubSettings:
    """The backend's settings from a pytest config (``[tool.ghxbench.backends.github]``)."""
    from pytest_ghxbench.options import resolve_settings

    tables: Mapping[str, Any] = resolve_settings(config).tables
    table = (tables.get("backends") or {}).get("github")
    root = Path(str(config.rootpath))
    return GitHubSettings.from_config(table, os.environ, root)
