"""The ``openai`` adapter: a chat-completions tool-calling loop (see docs/adapters.md).

Import :mod:`pytest_ghxbench.adapters.openai_chat.adapter` for ``OpenAIAdapter``; this package
module stays empty so importing it (and the ``openai`` SDK) costs nothing until it is used.
"""
