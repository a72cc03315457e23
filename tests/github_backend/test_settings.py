"""`[tool.ghxbench.backends.github]`: values, overrides from the environment, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ghxbench.github.backend import BackendConfigError, GitHubBackend, GitHubSettings


def test_defaults_and_environment_overrides(tmp_path: Path) -> None:
    settings = GitHubSettings.from_config(None, {}, tmp_path)
    assert settings.api_url == "https://api.github.com" and settings.repo is None
    assert settings.manifest_path == tmp_path / ".ghxbench" / "fixture-manifest.github.json"
    table = {"repo": "acme/one", "api_url": "https://ghe.example.com/api/v3/", "manifest": "m.json"}
    env = {"GHXBENCH_GITHUB_REPO": "acme/two"}
    settings = GitHubSettings.from_config(table, env, tmp_path)
    assert settings.repo == "acme/two"  # the environment wins over the file
    assert settings.api_url == "https://ghe.example.com/api/v3"
    assert settings.manifest_path == tmp_path / "m.json"


def test_the_token_comes_from_the_first_set_variable(tmp_path: Path) -> None:
    settings = GitHubSettings.from_config({"token_env": ["BENCH_PAT", "GH_TOKEN"]}, {}, tmp_path)
    assert settings.token({"GH_TOKEN": "b" * 20, "BENCH_PAT": "a" * 20}) == "a" * 20
    assert settings.token({"GH_TOKEN": "b" * 20}) == "b" * 20
    assert settings.token({}) is None


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"repository": "a/b"}, "unknown key(s) repository; valid: repo, api_url, token_env"),
        ({"repo": "just-a-name"}, "repo must be 'owner/name', got 'just-a-name'"),
        ({"api_url": "ftp://example.com"}, "api_url must be an http(s) URL"),
        ({"token_env": []}, "token_env must be a variable name or a list of them"),
        ({"manifest": 3}, "manifest must be a path, got 3"),
    ],
)
def test_bad_values_name_the_key(table: dict[str, object], message: str, tmp_path: Path) -> None:
    with pytest.raises(BackendConfigError, match=r"\[tool\.ghxbench\.backends\.github\]") as info:
        GitHubSettings.from_config(table, {}, tmp_path)
    assert message in str(info.value)


def test_enterprise_sessions_point_gh_at_the_host(tmp_path: Path) -> None:
    settings = GitHubSettings("acme/fixtures", "https://ghe.example.com/api/v3")
    backend = GitHubBackend(settings, env={"GH_TOKEN": "t" * 20})
    env = backend.open_session("item", tmp_path).env
    assert env["GH_HOST"] == "ghe.example.com" and env["GH_REPO"] == "acme/fixtures"
    assert env["GH_TOKEN"] == env["GITHUB_TOKEN"] == env["GITHUB_PERSONAL_ACCESS_TOKEN"]
    public = GitHubBackend(GitHubSettings("acme/fixtures"), env={"GH_TOKEN": "t" * 20})
    assert "GH_HOST" not in public.open_session("item", tmp_path).env
    assert "t" * 20 not in repr(public.client())
