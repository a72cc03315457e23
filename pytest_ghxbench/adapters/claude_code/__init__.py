"""The ``claude-code`` adapter: Claude Code's headless ``stream-json`` mode (see docs/adapters.md).

Import :mod:`pytest_ghxbench.adapters.claude_code.adapter` for ``ClaudeCodeAdapter``."""
