"""The oracle's reference price and model-time estimate (documented in docs/oracle.md).

The oracle runs no model, so what a model would have cost and how long it would have thought
are estimated from the token counts of the transcript a real agent would have produced. The
constants are a reference point, not a measurement: they make modes comparable with each other,
and they stay fixed so that rows are reproducible.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_ghxbench.api import Tokens

__all__ = [
    "CACHED_PREFILL_TOKENS_PER_S",
    "DECODE_TOKENS_PER_S",
    "PREFILL_TOKENS_PER_S",
    "REFERENCE_PRICE",
    "TURN_OVERHEAD_MS",
    "Price",
    "cost_usd",
    "model_time_ms",
]


@dataclass(frozen=True)
class Price:
    """USD per million tokens of uncached input, cached input (cache reads) and output."""

    input_per_mtok: float
    cached_input_per_mtok: float
    output_per_mtok: float


REFERENCE_PRICE = Price(input_per_mtok=2.50, cached_input_per_mtok=1.25, output_per_mtok=10.00)
"""A mid-size hosted tool-calling model's list price (the shape of gpt-4o's 2024 pricing)."""

TURN_OVERHEAD_MS = 400.0
"""Fixed cost of one model call: request round trip and time to first token."""
PREFILL_TOKENS_PER_S = 5_000.0
"""Uncached input tokens processed per second."""
CACHED_PREFILL_TOKENS_PER_S = 50_000.0
"""Cache-read input tokens processed per second (ten times faster than uncached input)."""
DECODE_TOKENS_PER_S = 80.0
"""Output tokens generated per second."""


def cost_usd(tokens: Tokens, price: Price = REFERENCE_PRICE) -> float:
    """The price of ``tokens`` (rounded to 1e-9 USD so that sums print reproducibly)."""
    total = (
        tokens.input * price.input_per_mtok
        + tokens.cache_read * price.cached_input_per_mtok
        + (tokens.output + tokens.reasoning) * price.output_per_mtok
    ) / 1_000_000
    return round(total, 9)


def model_time_ms(tokens: Tokens, turns: int) -> float:
    """The estimated time a model spends on ``turns`` calls that used ``tokens`` in total."""
    if turns < 0:
        raise ValueError(f"model_time_ms: turns must be >= 0, got {turns}")
    seconds = (
        tokens.input / PREFILL_TOKENS_PER_S
        + tokens.cache_read / CACHED_PREFILL_TOKENS_PER_S
        + (tokens.output + tokens.reasoning) / DECODE_TOKENS_PER_S
    )
    return round(turns * TURN_OVERHEAD_MS + seconds * 1000.0, 3)
