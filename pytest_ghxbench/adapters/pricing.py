"""Model prices: cost of a session from its token counts.

:data:`REFERENCE_PRICES` are providers' published list prices (USD per million tokens) as of
:data:`PRICES_AS_OF`. They are a convenience, not a source of truth: prices change, and
``[tool.ghxbench.prices."provider/model"]`` (``input``, ``cached_input``, ``output``) overrides or
adds entries. Reasoning tokens are billed as output tokens.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_ghxbench.api import Tokens

__all__ = [
    "PRICES_AS_OF",
    "REFERENCE_PRICES",
    "Price",
    "PriceTableError",
    "cost_usd",
    "parse_prices",
    "price_for",
    "session_cost",
]

PRICES_AS_OF = "2025-08"


class PriceTableError(ValueError):
    """A configured price entry is malformed; the message names the entry and field."""


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    cached_input: float
    output: float


REFERENCE_PRICES: Mapping[str, Price] = {
    "openai/gpt-5": Price(1.25, 0.125, 10.00),
    "openai/gpt-5-mini": Price(0.25, 0.025, 2.00),
    "openai/gpt-5-nano": Price(0.05, 0.005, 0.40),
    "openai/gpt-4.1": Price(2.00, 0.50, 8.00),
    "openai/gpt-4.1-mini": Price(0.40, 0.10, 1.60),
    "openai/gpt-4.1-nano": Price(0.10, 0.025, 0.40),
    "openai/gpt-4o": Price(2.50, 1.25, 10.00),
    "openai/gpt-4o-mini": Price(0.15, 0.075, 0.60),
    "openai/o4-mini": Price(1.10, 0.275, 4.40),
    "anthropic/claude-opus-4-1": Price(15.00, 1.50, 75.00),
    "anthropic/claude-sonnet-4": Price(3.00, 0.30, 15.00),
    "anthropic/claude-3-5-haiku": Price(0.80, 0.08, 4.00),
    "google/gemini-2.5-pro": Price(1.25, 0.31, 10.00),
    "google/gemini-2.5-flash": Price(0.30, 0.075, 2.50),
}

_FIELDS = ("input", "cached_input", "output")
_warned: set[str] = set()


def parse_prices(table: Mapping[str, Any] | None, where: str) -> dict[str, Price]:
    """Price entries from a config table ``{"provider/model": {input, cached_input, output}}``.

    ``cached_input`` defaults to ``input``. ``where`` names the table in error messages."""
    prices: dict[str, Price] = {}
    for model, entry in (table or {}).items():
        if not isinstance(entry, Mapping):
            raise PriceTableError(
                f'{where}."{model}": expected a table with input, cached_input and output '
                f"(USD per million tokens), got {entry!r}"
            )
        unknown = sorted(set(entry) - set(_FIELDS))
        if unknown:
            raise PriceTableError(
                f'{where}."{model}": unknown field(s) {", ".join(unknown)}; '
                f"valid: {', '.join(_FIELDS)}"
            )
        values: dict[str, float] = {}
        for name in _FIELDS:
            raw = entry.get(name, entry.get("input") if name == "cached_input" else None)
            if isinstance(raw, bool) or not isinstance(raw, (int, float)):
                raise PriceTableError(
                    f'{where}."{model}".{name}: expected a number of USD per million tokens, '
                    f"got {raw!r}"
                )
            if not math.isfinite(raw) or raw < 0:
                raise PriceTableError(
                    f'{where}."{model}".{name}: expected a finite number >= 0, got {raw!r}'
                )
            values[name] = float(raw)
        prices[str(model)] = Price(**values)
    return prices


def price_for(model: str, overrides: Mapping[str, Price] | None = None) -> Price | None:
    """The price of ``model`` ("provider/model"): a configured one first, else the reference."""
    if overrides and model in overrides:
        return overrides[model]
    return REFERENCE_PRICES.get(model)


def cost_usd(tokens: Tokens, price: Price) -> float:
    """USD cost of ``tokens`` at ``price`` (reasoning billed as output; cache writes as input)."""
    billed = (
        (tokens.input + tokens.cache_write) * price.input
        + tokens.cache_read * price.cached_input
        + (tokens.output + tokens.reasoning) * price.output
    )
    return billed / 1_000_000


def session_cost(model: str, tokens: Tokens, overrides: Mapping[str, Price] | None = None) -> float:
    """The cost of a session of ``model``; 0 with a warning (once per model) if it has no price."""
    price = price_for(model, overrides)
    if price is None:
        if model not in _warned:
            _warned.add(model)
            warnings.warn(
                f"ghxbench: no price for model {model!r}; its cost is recorded as 0. Add "
                f'[tool.ghxbench.prices."{model}"] with input, cached_input and output '
                "(USD per million tokens).",
                stacklevel=2,
            )
        return 0.0
    return cost_usd(tokens, price)
