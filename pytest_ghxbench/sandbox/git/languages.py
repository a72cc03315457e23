"""What a repository is written in, as GitHub's language bar counts it: the bytes of each
programming or markup language's files at a commit, leaving out documentation, vendored code and
data or prose formats (YAML, JSON, Markdown), as GitHub's Linguist does.

Only the common languages are known here, by file extension or name; the rest count for none.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal

from pytest_ghxbench.sandbox.git.repo import GitRepo

__all__ = ["Language", "language_named", "language_of", "language_sizes"]

Kind = Literal["programming", "markup", "data", "prose"]


@dataclass(frozen=True)
class Language:
    name: str
    kind: Kind
    color: str | None


_LANGUAGES = [
    Language("Python", "programming", "#3572A5"),
    Language("Shell", "programming", "#89e051"),
    Language("JavaScript", "programming", "#f1e05a"),
    Language("TypeScript", "programming", "#3178c6"),
    Language("Go", "programming", "#00ADD8"),
    Language("Rust", "programming", "#dea584"),
    Language("C", "programming", "#555555"),
    Language("C++", "programming", "#f34b7d"),
    Language("Java", "programming", "#b07219"),
    Language("Ruby", "programming", "#701516"),
    Language("Makefile", "programming", "#427819"),
    Language("Dockerfile", "programming", "#384d54"),
    Language("HTML", "markup", "#e34c26"),
    Language("CSS", "markup", "#663399"),
    Language("Markdown", "prose", "#083fa1"),
    Language("YAML", "data", "#cb171e"),
    Language("TOML", "data", "#9c4221"),
    Language("JSON", "data", "#292929"),
    Language("INI", "data", "#d1dbe0"),
    Language("Text", "prose", None),
]
_BY_NAME = {lang.name: lang for lang in _LANGUAGES}
_EXTENSIONS = {
    ".py": "Python", ".pyi": "Python", ".sh": "Shell", ".bash": "Shell", ".js": "JavaScript",
    ".mjs": "JavaScript", ".cjs": "JavaScript", ".ts": "TypeScript", ".tsx": "TypeScript",
    ".go": "Go", ".rs": "Rust", ".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++",
    ".hpp": "C++", ".java": "Java", ".rb": "Ruby", ".mk": "Makefile", ".html": "HTML",
    ".htm": "HTML", ".css": "CSS", ".md": "Markdown", ".markdown": "Markdown", ".yml": "YAML",
    ".yaml": "YAML", ".toml": "TOML", ".json": "JSON", ".ini": "INI", ".cfg": "INI",
    ".txt": "Text",
}  # fmt: skip
_FILENAMES = {"Makefile": "Makefile", "Dockerfile": "Dockerfile", "LICENSE": "Text"}
_DOCUMENTATION = ("docs/", "doc/", "Documentation/", "examples/")
_VENDORED = ("vendor/", "node_modules/", "third_party/", "third-party/")
_COUNTED: frozenset[Kind] = frozenset({"programming", "markup"})


def language_named(name: str) -> Language | None:
    return _BY_NAME.get(name)


def language_of(path: str) -> Language | None:
    """The language of a file, by its name or extension."""
    name = path.rsplit("/", 1)[-1]
    known = _FILENAMES.get(name)
    if known is None and "." in name:
        known = _EXTENSIONS.get("." + name.rsplit(".", 1)[-1].lower())
    return _BY_NAME[known] if known else None


def _counted(path: str) -> Language | None:
    inside = f"/{path}"
    if any(f"/{d}" in inside for d in (*_DOCUMENTATION, *_VENDORED)):
        return None
    language = language_of(path)
    return language if language is not None and language.kind in _COUNTED else None


_lock = threading.Lock()
_SIZES: OrderedDict[str, dict[str, int]] = OrderedDict()


def language_sizes(repo: GitRepo, commit: str) -> dict[str, int]:
    """Language name -> bytes at ``commit``, largest first (cached per tree: content decides)."""
    found = repo.entry(commit, "")
    if found is None:
        return {}
    with _lock:
        known = _SIZES.get(found.sha)
    if known is None:
        sizes: dict[str, int] = {}
        for entry in repo.tree(found.sha, recursive=True) or []:
            language = _counted(entry.path) if entry.type == "blob" else None
            if language is not None:
                sizes[language.name] = sizes.get(language.name, 0) + (entry.size or 0)
        known = dict(sorted(sizes.items(), key=lambda pair: (-pair[1], pair[0])))
        with _lock:
            _SIZES[found.sha] = known
            while len(_SIZES) > 256:
                _SIZES.popitem(last=False)
    return dict(known)
