"""The community files GitHub reads from a repository's default branch: pull request and issue
templates, the issue template chooser's configuration (contact links, blank issues) and the
security policy, looked up where GitHub looks for them (the root, ``.github/`` and ``docs/``,
names compared without case)."""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml

from pytest_ghxbench.sandbox.git.repo import GitRepo

__all__ = [
    "IssueTemplate",
    "chooser_config",
    "community_file",
    "issue_templates",
    "pull_request_templates",
]

_PLACES = ("", ".github/", "docs/")


@dataclass(frozen=True)
class IssueTemplate:
    filename: str
    name: str
    about: str | None
    title: str | None
    body: str
    labels: list[str] = field(default_factory=list)
    assignees: list[str] = field(default_factory=list)


def _files(repo: GitRepo, commit: str, directory: str) -> dict[str, str]:
    """Lower-cased name -> path of the files directly in ``directory`` at ``commit``."""
    found = repo.entry(commit, directory)
    if found is None or found.type != "tree":
        return {}
    entries = repo.tree(found.sha) or []
    return {e.name.lower(): f"{directory}{e.name}" for e in entries if e.type == "blob"}


def _dirs(repo: GitRepo, commit: str, directory: str) -> dict[str, str]:
    found = repo.entry(commit, directory)
    if found is None or found.type != "tree":
        return {}
    entries = repo.tree(found.sha) or []
    return {e.name.lower(): f"{directory}{e.name}/" for e in entries if e.type == "tree"}


def _text(repo: GitRepo, commit: str, path: str) -> str:
    return (repo.read(commit, path) or b"").decode("utf-8", "replace")


def community_file(repo: GitRepo, commit: str, *names: str) -> str | None:
    """The path of the first of ``names`` (``security.md``) in the root, ``.github/`` or
    ``docs/``, or None."""
    for place in _PLACES:
        files = _files(repo, commit, place)
        for name in names:
            if name in files:
                return files[name]
    return None


def _markdown(names: dict[str, str]) -> list[str]:
    return [path for name, path in sorted(names.items()) if name.endswith(".md")]


def pull_request_templates(repo: GitRepo, commit: str) -> list[tuple[str, str]]:
    """``(path, body)`` of each pull request template: ``pull_request_template.md`` in one of
    the usual places, and the files of a ``PULL_REQUEST_TEMPLATE`` directory."""
    found: list[str] = []
    single = community_file(repo, commit, "pull_request_template.md")
    if single is not None:
        found.append(single)
    for place in _PLACES:
        directory = _dirs(repo, commit, place).get("pull_request_template")
        if directory is not None:
            found += _markdown(_files(repo, commit, directory))
    return [(path, _text(repo, commit, path)) for path in found]


def _front_matter(text: str) -> tuple[dict[str, object], str]:
    if not text.startswith("---"):
        return {}, text
    head, marker, body = text[3:].partition("\n---")
    if not marker:
        return {}, text
    try:
        data = yaml.safe_load(head)
    except yaml.YAMLError:
        return {}, text
    return (data if isinstance(data, dict) else {}), body.partition("\n")[2]


def _names(value: object) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value] if isinstance(value, list) else []


def issue_templates(repo: GitRepo, commit: str) -> list[IssueTemplate]:
    """The Markdown issue templates of ``.github/ISSUE_TEMPLATE/`` (their front matter names
    them), in file name order."""
    directory = _dirs(repo, commit, ".github/").get("issue_template")
    paths = _markdown(_files(repo, commit, directory)) if directory else []
    templates = []
    for path in paths:
        meta, body = _front_matter(_text(repo, commit, path))
        filename = path.rsplit("/", 1)[-1]
        templates.append(
            IssueTemplate(
                filename=filename,
                name=str(meta.get("name") or filename.removesuffix(".md")),
                about=str(meta["about"]) if meta.get("about") else None,
                title=str(meta["title"]) if meta.get("title") else None,
                body=body,
                labels=_names(meta.get("labels")),
                assignees=_names(meta.get("assignees")),
            )
        )
    return templates


def chooser_config(repo: GitRepo, commit: str) -> dict[str, object]:
    """``.github/ISSUE_TEMPLATE/config.yml`` (``blank_issues_enabled``, ``contact_links``), or
    an empty mapping."""
    directory = _dirs(repo, commit, ".github/").get("issue_template")
    files = _files(repo, commit, directory) if directory else {}
    path = files.get("config.yml") or files.get("config.yaml")
    if path is None:
        return {}
    try:
        data = yaml.safe_load(_text(repo, commit, path))
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}
