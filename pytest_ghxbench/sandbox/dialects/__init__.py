"""The sandbox's interface dialects: what each mode's agent sees and sends.

``gh`` command lines and their JSON, ``ghx`` envelopes, and MCP tools (:mod:`.mcp_tools`, the
tool catalogue named and shaped like the GitHub MCP server's).
"""

from __future__ import annotations
