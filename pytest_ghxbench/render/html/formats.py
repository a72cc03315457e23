"""Lenient reading of JSON values and their display formats ("—" for what is missing)."""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "DASH",
    "as_int",
    "as_number",
    "as_text",
    "fmt_cost",
    "fmt_int",
    "fmt_metric",
    "fmt_pct",
    "fmt_seconds",
    "fmt_value",
]

DASH = "—"


def as_number(value: Any) -> float | None:
    """A finite int or float (not a bool) as a float, else ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def as_int(value: Any) -> int | None:
    number = as_number(value)
    return None if number is None else int(number)


def as_text(value: Any) -> str | None:
    """A non-empty string, else ``None``."""
    return value if isinstance(value, str) and value else None


def fmt_int(value: Any) -> str:
    number = as_number(value)
    if number is None:
        return DASH
    if number != int(number):
        return f"{number:,.1f}"
    return f"{int(number):,}"


def fmt_seconds(ms: Any) -> str:
    number = as_number(ms)
    if number is None:
        return DASH
    if abs(number) < 1000:
        return f"{number:,.0f} ms"
    return f"{number / 1000:,.2f} s"


def fmt_cost(usd: Any) -> str:
    number = as_number(usd)
    if number is None:
        return DASH
    return f"${number:,.4f}" if abs(number) < 100 else f"${number:,.2f}"


def fmt_pct(value: Any, digits: int = 1) -> str:
    number = as_number(value)
    return DASH if number is None else f"{number:,.{digits}f} %"


def fmt_value(value: Any) -> str:
    """Any JSON value, briefly: numbers to a sensible precision, lists joined."""
    if value is None:
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    number = as_number(value)
    if number is not None:
        if number == int(number) and abs(number) < 1e15:
            return f"{int(number):,}"
        return f"{number:,.4g}" if abs(number) < 1 else f"{number:,.2f}"
    if isinstance(value, (int, float)):  # NaN or infinity
        return DASH
    if isinstance(value, list):
        return ", ".join(fmt_value(item) for item in value) or DASH
    return str(value)


def fmt_metric(metric: str, value: Any) -> str:
    """A summary metric by its name: ``*_rate``/``*_pct`` as percent, latency in seconds,
    cost in dollars, the rest as numbers."""
    if metric.endswith(("_rate", "_pct")) or metric == "pass_hat_k" or metric.startswith("cv_"):
        return fmt_pct(value)
    if metric.endswith("_ms"):
        return fmt_seconds(value)
    if metric.endswith("_usd"):
        return fmt_cost(value)
    return fmt_value(value)
