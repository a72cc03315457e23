"""The environment of one sandbox item: its mode's interface and nothing else.

Every item gets a private ``HOME`` (so a gh logged in to real GitHub on the machine, its config
and its keyring are never seen), the sandbox's proxy for all traffic (GitHub's hosts are
answered by the sandbox, never forwarded) and a CA bundle that trusts the proxy's certificates.
What differs by mode:

- ``agent_direct``: the real ``gh`` first on ``PATH``, pointed at ``github.localhost`` with the
  item's token (``GH_TOKEN``) and ``GH_REPO`` set to the world's repository;
- ``mcp``: ``github-mcp-server`` on ``PATH`` is a launcher that starts the configured server
  with the item's token and host; the shell itself holds no GitHub token and no gh or ghx;
- ``ghx``: ``ghx`` on ``PATH`` (the built-in capability CLI or the configured build), pointed
  at the sandbox the way gh is (``GH_HOST``, ``GH_TOKEN``, ``GH_REPO``).

- a declared mode (``[tool.ghxbench.modes]``, docs/modes.md): a kind cli mode's program linked
  into ``bin/`` under its own name with its ``env`` (templates filled) in the agent's
  environment, as gh's; a kind mcp mode's server behind a launcher that alone holds its ``env``.

The other modes' programs (declared ones' too) are shadowed in the item's ``bin/`` by scripts
that refuse (exit 127), so a copy elsewhere on ``PATH`` (the harness's virtualenv has gh) is
never reached.

git works in every mode: the HOME's ``.gitconfig`` holds the viewer's identity and, for the
sandbox's git URLs, an ``Authorization`` header with the item's git-only token (which the API
refuses), sent with every request as ``actions/checkout`` does. A header rather than a
credential helper because gh runs git with ``-c credential.helper=`` (dropping every helper
but its own), and gh's own helper answers only for ``https`` while ``GH_HOST=github.localhost``
makes gh clone over ``http``.
"""

from __future__ import annotations

import base64
import os
import shlex
from collections.abc import Mapping
from pathlib import Path

from pytest_ghxbench.api import ModeSpec
from pytest_ghxbench.backends.launcher import MCP_COMMAND_ENV, write_launcher
from pytest_ghxbench.modes import ModeTable, render_env
from pytest_ghxbench.sandbox.clients import GH, GHX, MCP_SERVER, Clients

__all__ = [
    "GIT_URL_ROOTS",
    "SANDBOX_HOST",
    "foreign_programs",
    "gh_variables",
    "git_credentials",
    "git_variables",
    "item_environment",
    "launcher_name",
    "mcp_server_variables",
    "mode_specs",
    "own_programs",
    "proxy_environment",
    "template_values",
]

SANDBOX_HOST = "github.localhost"
"""The GitHub host items see; gh derives ``api.github.localhost`` and plain HTTP from it."""

GIT_URL_ROOTS = (f"http://{SANDBOX_HOST}/", f"https://{SANDBOX_HOST}/", "https://github.com/")
"""Where git reaches the sandbox: gh's URLs for ``GH_HOST`` (plain HTTP through the proxy, or
HTTPS), and github.com's own through the intercepting proxy."""
_GIT_USER = "x-access-token"

_CA_VARIABLES = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
_QUIET_GH = {
    "GH_PROMPT_DISABLED": "1",
    "GH_NO_UPDATE_NOTIFIER": "1",
    "GH_NO_EXTENSION_UPDATE_NOTIFIER": "1",
    "GH_SPINNER_DISABLED": "1",
}


def proxy_environment(proxy_url: str, bundle: Path, ca_file: Path) -> dict[str, str]:
    """Route every client through the sandbox's proxy and trust its CA."""
    env = {name: proxy_url for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")}
    # Loopback stays direct (model servers of local runtimes); GitHub's names never are.
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,::1"
    env.update({name: str(bundle) for name in _CA_VARIABLES})
    env["NODE_EXTRA_CA_CERTS"] = str(ca_file)
    return env


def gh_variables(token: str, repo: str) -> dict[str, str]:
    """What points gh at the sandbox: its host (plain HTTP through the proxy), the token and the
    repository commands default to."""
    return {"GH_HOST": SANDBOX_HOST, "GH_TOKEN": token, "GH_REPO": repo}


def git_variables(bundle: Path) -> dict[str, str]:
    """What git needs beyond the proxy: the CA bundle (git's libcurl reads neither
    ``SSL_CERT_FILE`` nor ``CURL_CA_BUNDLE``) and no prompts."""
    return {"GIT_SSL_CAINFO": str(bundle), "GIT_TERMINAL_PROMPT": "0"}


def git_credentials(token: str, *, encoded: bool = True) -> dict[str, str]:
    """git configuration that authenticates every request to the sandbox with ``token``:
    ``encoded``, as HTTP Basic (what ``actions/checkout`` writes); otherwise as a bearer token,
    readable (what ``ghxbench sandbox serve`` prints, beside ``GH_TOKEN``)."""
    header = _auth_header(token) if encoded else f"AUTHORIZATION: bearer {token}"
    return {f"http.{root}.extraheader": header for root in GIT_URL_ROOTS}


def _auth_header(token: str) -> str:
    basic = base64.b64encode(f"{_GIT_USER}:{token}".encode()).decode("ascii")
    return f"AUTHORIZATION: basic {basic}"


def _git_config(token: str, identity: tuple[str, str]) -> str:
    lines = ["[user]", f"\tname = {_quoted(identity[0])}", f"\temail = {_quoted(identity[1])}"]
    for root in GIT_URL_ROOTS:
        lines += [f'[http "{root}"]', f"\textraheader = {_auth_header(token)}"]
    return "\n".join(lines) + "\n"


def _quoted(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def mcp_server_variables(token: str) -> dict[str, str]:
    """What points GitHub's MCP server at the sandbox (the Enterprise Server layout)."""
    return {"GITHUB_PERSONAL_ACCESS_TOKEN": token, "GITHUB_HOST": f"http://{SANDBOX_HOST}"}


def template_values(token: str, repo: str, workdir: Path) -> dict[str, str]:
    """What a mode's ``env`` templates name, for one item (see
    :data:`pytest_ghxbench.modes.TEMPLATE_NAMES`)."""
    api = f"http://api.{SANDBOX_HOST}"
    return {
        "token": token,
        "api_url": api,
        "graphql_url": f"{api}/graphql",
        "host": SANDBOX_HOST,
        "repo": repo,
        "workdir": str(workdir),
    }


def item_environment(
    *,
    mode: str | None,
    token: str,
    proxy_url: str,
    bundle: Path,
    ca_file: Path,
    repo: str,
    workdir: Path,
    clients: Clients,
    git_token: str,
    identity: tuple[str, str],
    tokens: Mapping[str, str] | None = None,
    modes: ModeTable | None = None,
    checkout: Path | None = None,
) -> dict[str, str]:
    """The variables an item of ``mode`` runs its tools with (added on top of a scrubbed
    environment by the adapter). Writes the item's HOME and ``bin/`` under ``workdir``;
    ``git_token`` and ``identity`` (name, email) go to the HOME's ``.gitconfig``. ``tokens``:
    a token per client (``gh``, ``mcp``, ``ghx``, a declared mode's name), each given only to
    that client (``token`` where a client has none of its own). ``modes``: the mode table
    (the built-in modes without one); ``checkout``: the agent's working directory."""
    table = modes or ModeTable.builtin()
    home = workdir / "home"
    config = home / ".config"
    (config / "gh").mkdir(parents=True, exist_ok=True)
    gitconfig = home / ".gitconfig"
    gitconfig.write_text(_git_config(git_token, identity), encoding="utf-8")
    gitconfig.chmod(0o600)
    bin_dir = workdir / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    proxy = proxy_environment(proxy_url, bundle, ca_file)
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(config),
        "GH_CONFIG_DIR": str(config / "gh"),
        **_QUIET_GH,
        **proxy,
        **git_variables(bundle),
    }
    own = dict(tokens or {})
    for spec in mode_specs(mode, table):
        values = template_values(own.get(spec.client_id, token), repo, checkout or workdir)
        variables = render_env(spec.env, values)
        if spec.kind == "mcp":
            # The token lives only in this launcher, never on a command line or in the
            # agent's env.
            command = clients.server_command(spec)
            launcher = write_launcher(
                bin_dir / launcher_name(spec),
                {**variables, **proxy},
                command[:1],
                pass_arguments=True,
            )
            env[MCP_COMMAND_ENV] = shlex.join([str(launcher), *command[1:]])
            continue
        if spec.builtin and spec.name == "ghx":  # this package's ghx, or the --ghx-ghx build
            script = bin_dir / spec.cli_name
            script.write_text(clients.ghx_script(), encoding="utf-8")
            script.chmod(0o755)
        else:
            _link(bin_dir / spec.cli_name, clients.cli_program(spec) or "")
        if mode is not None or spec.name == "agent_direct":
            env.update(variables)
    for program in sorted(foreign_programs(table) - own_programs(mode, table)):
        _block(bin_dir / program, program, mode)
    current = os.environ.get("PATH", os.defpath)
    env["PATH"] = f"{bin_dir}{os.pathsep}{current}" if current else str(bin_dir)
    return env


_RUNTIMES = frozenset({"node", "npx", "python", "python3", "uv", "uvx", "sh", "bash", "env"})
"""Interpreters an MCP server's command may start with: never refused by name."""


def mode_specs(mode: str | None, table: ModeTable) -> list[ModeSpec]:
    """The interfaces an item of ``mode`` has (gh and ghx for no mode)."""
    return [table[mode]] if mode is not None else [table["agent_direct"], table["ghx"]]


def launcher_name(spec: ModeSpec) -> str:
    """The name of a kind mcp mode's launcher in the item's ``bin/``."""
    return MCP_SERVER if spec.builtin else f"ghxbench-mcp-{spec.name}"


def own_programs(mode: str | None, table: ModeTable) -> frozenset[str]:
    """The names in an item's ``bin/`` that are its own clients: never refused."""
    specs = mode_specs(mode, table)
    return frozenset(launcher_name(s) if s.kind == "mcp" else s.cli_name for s in specs)


def foreign_programs(table: ModeTable) -> frozenset[str]:
    """The client programs of every mode of ``table`` (what an item of one mode must not run
    but its own): gh, ghx, github-mcp-server and every declared mode's."""
    names = {GH, GHX, MCP_SERVER, *table.programs()}
    for spec in table.declared:
        if spec.kind == "mcp":
            names.add(launcher_name(spec))
            first = Path(spec.command[0]).name
            if first not in _RUNTIMES:
                names.add(first)
    return frozenset(names)


def _block(target: Path, program: str, mode: str | None) -> None:
    # Shadows any copy further down PATH (the harness's venv has gh and github-mcp-server).
    target.unlink(missing_ok=True)
    target.write_text(
        "#!/bin/sh\n"
        f"echo '{program}: not available in this item: mode {mode} offers only its own "
        "interface' >&2\n"
        "exit 127\n",
        encoding="utf-8",
    )
    target.chmod(0o755)


def _link(target: Path, program: str) -> None:
    target.unlink(missing_ok=True)
    target.symlink_to(program)
