"""The ``gemini`` adapter: Google's Gemini CLI in headless ``stream-json`` mode (see
docs/adapters.md).

Import :mod:`pytest_ghxbench.adapters.gemini.adapter` for ``GeminiAdapter``."""
