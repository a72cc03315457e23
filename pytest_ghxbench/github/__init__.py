"""The ``github`` backend: real GitHub through a token (SPEC §11)."""
