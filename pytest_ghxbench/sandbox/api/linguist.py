"""Which language a file is in, as GitHub's linguist tells (by file name and extension), and
whether linguist counts it in a repository's languages: programming languages only (Markdown,
YAML, TOML, JSON, HTML, CSS are not counted), documentation and vendored paths left out.
Linguist's content heuristics and ``.gitattributes`` overrides are not modelled."""

from __future__ import annotations

import re

from pytest_ghxbench.sandbox.git import GitRepo
from pytest_ghxbench.sandbox.state import World

__all__ = ["counted_language", "language_bytes", "language_of", "primary_language"]

_EXTENSIONS = {
    "Python": "py pyi pyw",
    "Cython": "pyx pxd",
    "Shell": "sh bash zsh ksh",
    "PowerShell": "ps1 psm1",
    "Batchfile": "bat cmd",
    "JavaScript": "js mjs cjs jsx",
    "TypeScript": "ts mts cts",
    "TSX": "tsx",
    "Go": "go",
    "Rust": "rs",
    "C": "c h",
    "C++": "cc cpp cxx c++ hh hpp hxx",
    "C#": "cs",
    "Objective-C": "m",
    "Java": "java",
    "Kotlin": "kt kts",
    "Scala": "scala sc",
    "Groovy": "groovy gradle",
    "Swift": "swift",
    "Ruby": "rb rake gemspec",
    "PHP": "php",
    "Perl": "pl pm",
    "Lua": "lua",
    "R": "r",
    "Julia": "jl",
    "Haskell": "hs",
    "OCaml": "ml mli",
    "Elixir": "ex exs",
    "Erlang": "erl hrl",
    "Clojure": "clj cljs cljc",
    "Dart": "dart",
    "Zig": "zig",
    "Nix": "nix",
    "HCL": "tf hcl",
    "CMake": "cmake",
    "Makefile": "mk mak",
    "Dockerfile": "dockerfile",
    "Assembly": "asm nasm",
    "Fortran": "f90 f95 f03",
    "SQL": "sql",
}
_PROGRAMMING = set(_EXTENSIONS) | {"Just"}
_OTHER_KINDS = {
    "Markdown": "md markdown",
    "reStructuredText": "rst",
    "Text": "txt",
    "YAML": "yml yaml",
    "TOML": "toml",
    "JSON": "json",
    "INI": "ini cfg",
    "HTML": "html htm",
    "CSS": "css",
    "SCSS": "scss",
    "XML": "xml",
    "Jupyter Notebook": "ipynb",
}
"""Languages linguist knows but does not count (markup, data, prose): found by code search's
``language:``, left out of the statistics."""
_BY_EXTENSION = {
    ext: name
    for table in (_EXTENSIONS, _OTHER_KINDS)
    for name, exts in table.items()
    for ext in exts.split()
}
_BY_NAME = {
    "makefile": "Makefile",
    "gnumakefile": "Makefile",
    "dockerfile": "Dockerfile",
    "containerfile": "Dockerfile",
    "cmakelists.txt": "CMake",
    "rakefile": "Ruby",
    "gemfile": "Ruby",
    "justfile": "Just",
}
_LEFT_OUT = re.compile(
    r"(^|/)(node_modules|vendor|third[-_]party|\.venv|venv)/"
    r"|^([Dd]ocs?|[Dd]ocumentation)/|(^|/)([Ee]xamples|[Dd]emos?)/"
)


def language_of(path: str) -> str | None:
    """The language of the file at ``path`` by its name or extension, of any kind."""
    name = path.rsplit("/", 1)[-1].lower()
    if name in _BY_NAME:
        return _BY_NAME[name]
    if "." not in name.lstrip("."):
        return None
    return _BY_EXTENSION.get(name.rsplit(".", 1)[-1])


def counted_language(path: str) -> str | None:
    """The language linguist counts the file at ``path`` under: a programming language, and
    not documentation or vendored code."""
    language = language_of(path)
    if language not in _PROGRAMMING or _LEFT_OUT.search(path):
        return None
    return language


def language_bytes(git: GitRepo) -> dict[str, int]:
    """Bytes of code per language in the default branch's tree, most first (``GET
    /languages``); the first is the repository's primary language."""
    head = git.resolve(git.default_branch)
    entries = (git.tree(head, recursive=True) if head else None) or []
    totals: dict[str, int] = {}
    for entry in entries:
        if entry.type != "blob" or entry.mode == "120000":
            continue
        language = counted_language(entry.path)
        if language is not None:
            totals[language] = totals.get(language, 0) + (entry.size or 0)
    return dict(sorted(totals.items(), key=lambda item: (-item[1], item[0])))


def primary_language(world: World) -> str | None:
    """The repository's language, as search finds it: the one with the most bytes of code on
    the default branch (the seed's when the repository has no code)."""
    counted = language_bytes(world.git)
    return next(iter(counted), None) or world.repository.primary_language
