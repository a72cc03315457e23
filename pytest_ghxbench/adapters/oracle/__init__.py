"""The oracle adapter: the reference agent of the sandbox (see docs/oracle.md).

Import :mod:`pytest_ghxbench.adapters.oracle.adapter` for ``OracleAdapter`` and
``tool_surface_tokens``; this package module stays empty so importing it is free.
"""
