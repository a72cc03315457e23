"""Names in ``-m`` expressions."""

from __future__ import annotations

import pytest

from pytest_ghxbench.hooks.markers import expression_names


@pytest.mark.parametrize(
    ("expression", "names"),
    [
        ("mutation", ["mutation"]),
        ("mutaton or (ghx and not slow)", ["mutaton", "ghx", "slow"]),
        ("smoke(level=1, name='x y') and repo", ["smoke", "repo"]),
        ("pr-review and agent_direct", ["pr-review", "agent_direct"]),
        ("not not a", ["a"]),
    ],
)
def test_expression_names(expression: str, names: list[str]) -> None:
    assert expression_names(expression) == names
