"""The ``copilot`` adapter: GitHub Copilot CLI's headless JSON mode (see docs/adapters.md).

Import :mod:`pytest_ghxbench.adapters.copilot.adapter` for ``CopilotAdapter``."""
