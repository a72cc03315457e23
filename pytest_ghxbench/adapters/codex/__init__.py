"""The ``codex`` adapter: ``codex exec --json`` (see docs/adapters.md).

Import :mod:`pytest_ghxbench.adapters.codex.adapter` for ``CodexAdapter``."""
