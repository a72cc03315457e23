"""Clients that ignore the proxy variables reach the sandbox from a jail all the same.

Inside a jail, GitHub's names resolve (through the jail's own ``/etc/hosts``) to an address
where the bridge listens on port 443 and tunnels through the item's gate, so a client that
connects to ``https://api.github.com`` itself, trusting the session's CA, is answered by the
item's world, as one that honours ``HTTPS_PROXY`` is. Here the proxy variables are removed
from the jailed command's environment and curl is told to use no proxy; node's ``https`` and
``fetch`` (Node 20) use none anyway, nor does the reference GitHub MCP server from npm.

The controls show the probes can fail: a name that is not GitHub's, and a GitHub name in a jail
without the mapping (``github_names=False``), are not reached; and what goes in this way is
checked by the gate like the rest (a client foreign to the item's mode is refused).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import textwrap
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_ghxbench.isolation import mounts
from pytest_ghxbench.isolation.jail import ItemJail, github_names_unavailable
from pytest_ghxbench.isolation.mounts import GITHUB_ADDRESS, GITHUB_NAMES, runtime_root
from pytest_ghxbench.isolation.probe import probe
from pytest_ghxbench.sandbox.api import policy
from pytest_ghxbench.sandbox.api.policy import HostPolicy
from pytest_ghxbench.sandbox.api.tls import INTERCEPTED_NAMES
from pytest_ghxbench.sandbox.backend import SandboxBackend, SandboxSession
from tests.agent_clis.harness import agent_cli
from tests.isolation.support import REQUIRE_ENV, require_jail

pytestmark = pytest.mark.timeout(300)

REPO = "acme-labs/tinykv"
API = "https://api.github.com"
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY")
CURL = (
    'curl -sS -m 20 --noproxy "*" -w "\\n%{http_code} %{remote_ip}" '
    '-H "Authorization: token $GH_TOKEN"'
)
NODE = textwrap.dedent(
    """
    const https = require("https");
    const headers = {authorization: `token ${process.env.GH_TOKEN}`, "user-agent": "node"};
    const url = process.argv[1];
    const viaHttps = () => new Promise((done) => {
      https.get(url, {headers}, (res) => {
        let body = "";
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => done([res.statusCode, body]));
      }).on("error", (error) => done([0, error.code || error.message]));
    });
    const viaFetch = () => fetch(url, {headers}).then(
      async (res) => [res.status, await res.text()],
      (error) => [0, (error.cause && error.cause.code) || error.message],
    );
    Promise.all([viaHttps(), viaFetch()]).then(([https, fetch]) =>
      console.log(JSON.stringify({https, fetch})));
    """
)


@dataclass
class Item:
    session: SandboxSession
    jail: ItemJail
    env: dict[str, str]
    cwd: Path

    def run(self, script: str, *args: str, github_names: bool = True) -> str:
        """``sh -c script`` in the item's jail (with or without GitHub's names), with no proxy
        variables; its stdout (stderr appended)."""
        jail = dataclasses.replace(self.jail, github_names=github_names)
        argv = jail.command(["/bin/sh", "-c", script, "sh", *args], cwd=self.cwd)
        done = subprocess.run(
            argv, env=self.env, cwd=self.cwd, capture_output=True, text=True, timeout=120
        )
        return done.stdout + done.stderr


def without_proxy(env: Mapping[str, str]) -> dict[str, str]:
    base = {"LANG": "C.UTF-8", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    return {k: v for k, v in {**base, **env}.items() if k not in PROXY_VARIABLES}


@pytest.fixture(scope="module")
def backend() -> Iterator[SandboxBackend]:
    isolation = probe()
    found = SandboxBackend()
    found.isolate(isolation, HostPolicy())
    yield found
    found.close()


@pytest.fixture
def open_item(backend: SandboxBackend, tmp_path: Path) -> Iterator[Callable[[str], Item]]:
    """Opens an item of a mode, with its jail; closed when the test ends."""
    opened: list[SandboxSession] = []

    def open_one(mode: str) -> Item:
        unavailable = github_names_unavailable(require_jail())
        if unavailable is not None:
            reason = f"GitHub's names cannot be mapped in this machine's jails: {unavailable}"
            if os.environ.get(REQUIRE_ENV) == "1":
                pytest.fail(f"{REQUIRE_ENV}=1 but {reason}")
            pytest.skip(reason)
        session = backend.open_session(f"hardcoded[{mode}]", tmp_path / mode, mode)
        opened.append(session)
        env = without_proxy(session.env)
        cwd = session.working_directory()
        jail = session.jail()
        assert jail is not None
        return Item(session, jail, env, cwd)

    yield open_one
    for session in opened:
        session.close()


def curl(item: Item, url: str, *, github_names: bool = True, agent: str = "curl") -> str:
    return item.run(f'{CURL} -A "$2" "$1"', url, agent, github_names=github_names)


def test_every_mapped_name_is_one_the_proxy_intercepts_and_its_certificate_covers() -> None:
    for name in GITHUB_NAMES:
        assert policy.is_github(name), name
        parent = name.partition(".")[2]
        assert name in INTERCEPTED_NAMES or f"*.{parent}" in INTERCEPTED_NAMES, name


def test_the_jails_hosts_file_maps_githubs_names_over_the_machines(tmp_path: Path) -> None:
    machine = tmp_path / "hosts"
    machine.write_text("127.0.0.1 localhost\n140.82.112.6 api.github.com box # pinned\n")
    copy = tmp_path / "copy"
    mounts._write_hosts(machine, copy)
    lines = copy.read_text().splitlines()
    assert lines[:2] == ["127.0.0.1 localhost", "140.82.112.6\tbox"], lines
    assert [line for line in lines if "api.github.com" in line] == [
        f"{GITHUB_ADDRESS}\tapi.github.com"
    ]
    assert machine.read_text().count("api.github.com") == 1  # the machine's file is unchanged


def test_curl_ignoring_the_proxy_reaches_the_items_world(open_item: Callable[[str], Item]) -> None:
    item = open_item("agent_direct")
    body, _, status = curl(item, f"{API}/repos/{REPO}").rpartition("\n")
    assert status == f"200 {GITHUB_ADDRESS}", (status, body[-2000:])
    assert json.loads(body)["full_name"] == REPO
    assert ("GET", f"{API}/repos/{REPO}", 200) in item.session.api_requests
    raw = item.run('cat /etc/hosts; echo "HTTPS_PROXY=${HTTPS_PROXY-unset}"')
    assert f"{GITHUB_ADDRESS}\tapi.github.com" in raw and "HTTPS_PROXY=unset" in raw, raw


def test_node_https_and_fetch_ignoring_the_proxy_reach_the_items_world(
    open_item: Callable[[str], Item],
) -> None:
    item = open_item("agent_direct")
    issue = item.session.world.issue(3)
    assert issue is not None
    seen = json.loads(item.run('exec node -e "$1" "$2"', NODE, f"{API}/repos/{REPO}/issues/3"))
    for client in ("https", "fetch"):
        status, body = seen[client]
        assert status == 200, (client, body)
        assert json.loads(body)["title"] == issue.title, (client, body[:500])


def test_names_that_are_not_mapped_are_not_reached(open_item: Callable[[str], Item]) -> None:
    item = open_item("agent_direct")
    # GitHub's name without the mapping: no such host in the jail (curl's exit 6), in node too
    unmapped = curl(item, f"{API}/repos/{REPO}", github_names=False)
    assert "Could not resolve host: api.github.com" in unmapped, unmapped
    seen = json.loads(
        item.run('exec node -e "$1" "$2"', NODE, f"{API}/repos/{REPO}", github_names=False)
    )
    assert seen["https"][0] == 0 and seen["fetch"][0] == 0, seen
    # a name that is not GitHub's, and one of GitHub's the jail does not map, with the mapping
    for url in ("https://example.com/", "https://not-mapped.github.com/"):
        failed = curl(item, url)
        assert "Could not resolve host" in failed, (url, failed)
    # the bridge answers on port 443 only
    plain = item.run('curl -sS -m 5 --noproxy "*" -o /dev/null http://api.github.com/')
    assert "curl: (7) Failed to connect to api.github.com port 80" in plain, plain


def test_the_agent_runs_as_the_user_with_no_more_capabilities(
    open_item: Callable[[str], Item],
) -> None:
    # not run as root, the bridge alone holds the capability to listen on port 443
    item = open_item("agent_direct")
    script = 'id -u; id -g; sed -n "s/^CapEff:[[:space:]]*//p" /proc/self/status'
    mapped, unmapped = (item.run(script, github_names=flag).split() for flag in (True, False))
    assert mapped == unmapped, (mapped, unmapped)
    assert mapped[:2] == [str(os.getuid()), str(os.getgid())], mapped
    if os.getuid() != 0:
        assert int(mapped[2], 16) == 0, mapped


def test_the_gate_checks_what_comes_in_this_way(open_item: Callable[[str], Item]) -> None:
    item = open_item("agent_direct")
    refused = curl(item, f"{API}/repos/{REPO}", agent="github-mcp-server/0.12.1")
    body, _, status = refused.rpartition("\n")
    assert status == f"403 {GITHUB_ADDRESS}", refused
    assert "which mode agent_direct does not offer" in body, body
    assert any("made by github-mcp-server" in line for line in item.session.mode_violations)


def test_the_reference_mcp_server_from_npm_answers_jailed(
    open_item: Callable[[str], Item], tmp_path: Path
) -> None:
    from pytest_ghxbench.adapters.openai_chat.tools import McpHost

    program = agent_cli("mcp-server-github")
    item = open_item("mcp")
    registry = item.session.backend.server().registry
    slot = registry.get(item.session.token())
    assert slot is not None
    env = {**item.env, "GITHUB_PERSONAL_ACCESS_TOKEN": registry.client_token(slot, "mcp")}
    issue = item.session.world.issue(3)
    assert issue is not None
    arguments = {"owner": "acme-labs", "repo": "tinykv", "issue_number": 3}
    replies = {}
    for mapped in (True, False):
        jail = dataclasses.replace(item.jail, github_names=mapped)
        command = jail.command([program], cwd=item.cwd, read_only=[runtime_root(program)])
        log = tmp_path / f"mcp-{mapped}.log"
        host = McpHost(command, env, cwd=item.cwd, timeout_s=60, log=log)
        try:
            replies[mapped] = host.call("get_issue", arguments, 60)
        finally:
            host.close()
    found = replies[True]
    assert found.ok, (found.text[:2000], (tmp_path / "mcp-True.log").read_text()[-2000:])
    assert json.loads(found.text)["title"] == issue.title
    assert ("GET", f"{API}/repos/{REPO}/issues/3", 200) in item.session.api_requests
    assert item.session.mode_violations == []
    # the control: without the mapping the server's requests go nowhere
    assert not replies[False].ok and "fetch failed" in replies[False].text, replies[False].text
