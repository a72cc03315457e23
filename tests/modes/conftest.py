"""Fixtures of the declared-mode tests: the real CLIs' scripted model server."""

from tests.agent_clis.conftest import serve_model

__all__ = ["serve_model"]
