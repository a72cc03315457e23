"""Gate profiles: named threshold sets for the ten checks of the dual gate (SPEC sections 7, 14).

Four profiles are built in: the seed's ``verify_pr`` and ``verify_release``, which compare point
estimates with their thresholds (method ``"point"``), and ``verify_pr_stat`` and
``verify_release_stat``, which compare one-sided confidence bounds (method ``"interval"``, see
:mod:`pytest_ghxbench.metrics.stat_gate`). Configuration can override
their thresholds, add new profiles (a new profile starts from ``verify_pr`` unless it says
``extends = "<profile>"``), and replace thresholds for a specific model through an expectations
table keyed by ``provider/model``. Plugins may contribute whole profiles.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = [
    "BUILTIN_PROFILES",
    "CHECK_NAMES",
    "CHECK_OPERATORS",
    "DEFAULT_BASE_PROFILE",
    "EXTENDS_KEY",
    "INTERVAL",
    "METHODS",
    "MIN_SAMPLES_KEY",
    "POINT",
    "Profile",
    "ProfileError",
    "apply_model_expectations",
    "build_profiles",
]

CHECK_NAMES: tuple[str, ...] = (
    "reliability_success_rate_non_inferior",
    "reliability_output_validity",
    "reliability_runner_failure_rate",
    "reliability_timeout_stall_rate",
    "reliability_retry_rate",
    "efficiency_coverage",
    "efficiency_tokens_active_reduction",
    "efficiency_latency_reduction",
    "efficiency_tool_call_reduction",
    "efficiency_cost_reduction",
)

# How each check's value is compared with its threshold. The success-rate check compares the
# candidate-minus-baseline difference with the negated allowed drop.
CHECK_OPERATORS: Mapping[str, str] = MappingProxyType(
    {
        "reliability_success_rate_non_inferior": ">=",
        "reliability_output_validity": ">=",
        "reliability_runner_failure_rate": "<=",
        "reliability_timeout_stall_rate": "<=",
        "reliability_retry_rate": "<=",
        "efficiency_coverage": ">=",
        "efficiency_tokens_active_reduction": ">=",
        "efficiency_latency_reduction": ">=",
        "efficiency_tool_call_reduction": ">=",
        "efficiency_cost_reduction": ">=",
    }
)

MIN_SAMPLES_KEY = "min_samples_per_scenario_per_mode"
EXTENDS_KEY = "extends"
DEFAULT_BASE_PROFILE = "verify_pr"

# How a profile decides its checks: on point estimates (the seed's rule) or on one-sided
# confidence bounds. A profile made with ``extends`` inherits its parent's method.
POINT = "point"
INTERVAL = "interval"
METHODS: tuple[str, ...] = (POINT, INTERVAL)


class ProfileError(ValueError):
    """A profile definition, override or expectation is invalid."""


@dataclass(frozen=True)
class Profile:
    """A named set of gate thresholds.

    ``thresholds`` maps every name in :data:`CHECK_NAMES` to its threshold as written in the
    SPEC table; for ``reliability_success_rate_non_inferior`` it is the allowed drop in
    percentage points (3 means the candidate may be at most 3 pp below the baseline).
    """

    name: str
    thresholds: Mapping[str, float]
    min_samples_per_scenario_per_mode: int
    description: str = field(default="", compare=False)
    method: str = POINT

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ProfileError(f"profile name must be a non-empty string, got {self.name!r}")
        context = f"profile {self.name!r}"
        if self.method not in METHODS:
            raise ProfileError(
                f"{context}: method must be one of {', '.join(METHODS)}, got {self.method!r}"
            )
        unknown = sorted(set(self.thresholds) - set(CHECK_NAMES))
        if unknown:
            raise ProfileError(
                f"{context}: unknown check {unknown[0]!r}; valid checks: {', '.join(CHECK_NAMES)}"
            )
        missing = [name for name in CHECK_NAMES if name not in self.thresholds]
        if missing:
            raise ProfileError(f"{context}: missing thresholds for {', '.join(missing)}")
        thresholds = {
            name: _number(context, name, self.thresholds[name], CHECK_NAMES) for name in CHECK_NAMES
        }
        minimum = _min_samples(context, self.min_samples_per_scenario_per_mode, CHECK_NAMES)
        object.__setattr__(self, "thresholds", MappingProxyType(thresholds))
        object.__setattr__(self, "min_samples_per_scenario_per_mode", minimum)

    def with_values(self, values: Mapping[str, Any], *, name: str | None = None) -> Profile:
        """A copy with some thresholds (and/or the minimum sample count) replaced."""
        thresholds = dict(self.thresholds)
        minimum = self.min_samples_per_scenario_per_mode
        for key, value in values.items():
            if key == MIN_SAMPLES_KEY:
                minimum = value
            else:
                thresholds[key] = value
        return Profile(name or self.name, thresholds, minimum, self.description, self.method)

    def to_json_dict(self) -> dict[str, Any]:
        """Plain-data form (for summaries and ``--help`` style listings)."""
        return {
            "name": self.name,
            "thresholds": dict(self.thresholds),
            MIN_SAMPLES_KEY: self.min_samples_per_scenario_per_mode,
            "method": self.method,
        }


def _number(context: str, key: str, value: Any, valid: Iterable[str]) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ProfileError(
            f"{context}: {key!r} must be a number, got {value!r} ({type(value).__name__}); "
            f"valid keys: {', '.join(valid)}"
        )
    if not math.isfinite(value):
        raise ProfileError(f"{context}: {key!r} must be a finite number, got {value!r}")
    return float(value)


def _min_samples(context: str, value: Any, valid: Iterable[str]) -> int:
    number = _number(context, MIN_SAMPLES_KEY, value, valid)
    if number < 1 or number != int(number):
        raise ProfileError(
            f"{context}: {MIN_SAMPLES_KEY!r} must be a whole number >= 1, got {value!r}"
        )
    return int(number)


def _profile(
    name: str, values: tuple[float, ...], minimum: int, description: str, method: str = POINT
) -> Profile:
    return Profile(name, dict(zip(CHECK_NAMES, values, strict=True)), minimum, description, method)


BUILTIN_PROFILES: Mapping[str, Profile] = MappingProxyType(
    {
        "verify_pr": _profile(
            "verify_pr", (3, 95, 7, 4, 20, 70, 10, 10, 15, 10), 3, "pull-request gate"
        ),
        "verify_release": _profile(
            "verify_release", (1, 96, 6, 3, 18, 75, 12, 12, 18, 15), 5, "release gate"
        ),
        # The same limits, decided on one-sided 95% bounds (stat_gate.py); the efficiency
        # thresholds are what the lower bound of the reduction must clear.
        "verify_pr_stat": _profile(
            "verify_pr_stat",
            (3, 95, 7, 4, 20, 70, 10, 10, 15, 10),
            3,
            "pull-request gate on confidence bounds",
            INTERVAL,
        ),
        "verify_release_stat": _profile(
            "verify_release_stat",
            (1, 96, 6, 3, 18, 75, 12, 12, 18, 15),
            4,
            "release gate on confidence bounds",
            INTERVAL,
        ),
    }
)


def _validate_values(context: str, values: Mapping[str, Any], *, allow_extends: bool) -> None:
    """Check keys and value types of an override mapping (without applying it)."""
    valid = ([EXTENDS_KEY] if allow_extends else []) + [MIN_SAMPLES_KEY, *CHECK_NAMES]
    if not isinstance(values, Mapping):
        raise ProfileError(
            f"{context}: expected a table of thresholds, got {type(values).__name__}; "
            f"valid keys: {', '.join(valid)}"
        )
    for key, value in values.items():
        if key not in valid:
            raise ProfileError(f"{context}: unknown key {key!r}; valid keys: {', '.join(valid)}")
        if key == EXTENDS_KEY:
            if not isinstance(value, str) or not value:
                raise ProfileError(
                    f"{context}: {EXTENDS_KEY!r} must be a profile name, got {value!r}"
                )
        elif key == MIN_SAMPLES_KEY:
            _min_samples(context, value, valid)
        else:
            _number(context, key, value, valid)


def _profile_from_mapping(entry: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise ProfileError(f"a contributed profile needs a 'name' string, got {entry!r}")
    return name, {key: value for key, value in entry.items() if key != "name"}


def build_profiles(
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    extra: Iterable[Profile | Mapping[str, Any]] = (),
) -> dict[str, Profile]:
    """All available profiles: the built-ins, then ``extra`` (plugins), then ``overrides`` (config).

    ``overrides`` maps a profile name to values to set, e.g.
    ``{"verify_pr": {"efficiency_coverage": 80}, "nightly": {"extends": "verify_release"}}``.
    Keys are check names, ``min_samples_per_scenario_per_mode`` and ``extends``; values must be
    numbers. An override of an existing profile changes only the keys it names. A name that is
    not yet a profile defines a new one, starting from ``verify_pr``'s values unless it names
    another profile (built-in, contributed, or itself new) with ``extends``. An existing profile
    with ``extends`` is rebuilt from the named profile plus its own keys. Mappings in ``extra``
    follow the same rules and carry their name under ``"name"``.
    Raises :class:`ProfileError` naming the profile, the bad key or value, and the valid keys.
    """
    profiles: dict[str, Profile] = dict(BUILTIN_PROFILES)
    for contributed in extra:
        if isinstance(contributed, Profile):
            profiles[contributed.name] = contributed
        elif isinstance(contributed, Mapping):
            name, values = _profile_from_mapping(contributed)
            _apply_overrides(profiles, {name: values})
        else:
            raise ProfileError(
                f"a contributed profile must be a Profile or a mapping, got {contributed!r}"
            )
    if overrides:
        _apply_overrides(profiles, overrides)
    return profiles


def _apply_overrides(
    profiles: dict[str, Profile], overrides: Mapping[str, Mapping[str, Any]]
) -> None:
    for name, values in overrides.items():
        if not isinstance(name, str) or not name.strip():
            raise ProfileError(f"profile name must be a non-empty string, got {name!r}")
        _validate_values(f"profile {name!r}", values, allow_extends=True)
    resolving: list[str] = []
    done: set[str] = set()

    def resolve(name: str) -> None:
        if name in resolving:
            cycle = " -> ".join([*resolving[resolving.index(name) :], name])
            raise ProfileError(f"profile {name!r}: 'extends' forms a cycle: {cycle}")
        values = overrides[name]
        parent_name = values.get(EXTENDS_KEY)
        if parent_name is None:
            base = profiles.get(name) or profiles[DEFAULT_BASE_PROFILE]
        else:
            if parent_name in overrides and parent_name not in done and parent_name != name:
                resolving.append(name)
                resolve(parent_name)
                resolving.pop()
            if parent_name not in profiles:
                raise ProfileError(
                    f"profile {name!r}: extends unknown profile {parent_name!r}; "
                    f"valid profiles: {', '.join(sorted(set(profiles) | set(overrides)))}"
                )
            base = profiles[parent_name]
        own = {key: value for key, value in values.items() if key != EXTENDS_KEY}
        profiles[name] = base.with_values(own, name=name)
        done.add(name)

    for name in overrides:
        if name not in done:
            resolve(name)


def apply_model_expectations(
    profile: Profile,
    expectations: Mapping[str, Mapping[str, Mapping[str, Any]]] | None,
    model: str | None,
) -> Profile:
    """The profile with the thresholds the expectations table sets for ``model``.

    ``expectations`` maps ``"provider/model"`` to profile names to ``{check: threshold}`` (and
    optionally ``min_samples_per_scenario_per_mode``). The whole table is validated, so a typo
    is reported even when the model does not match. When ``model`` has an entry for this
    profile's name, those values replace the profile's; otherwise the profile is returned as is.
    """
    if not expectations:
        return profile
    if not isinstance(expectations, Mapping):
        raise ProfileError(
            f"model expectations must be a table keyed by 'provider/model', got {expectations!r}"
        )
    for model_key, per_profile in expectations.items():
        if not isinstance(per_profile, Mapping):
            raise ProfileError(
                f"expectations for model {model_key!r}: expected a table keyed by profile name, "
                f"got {type(per_profile).__name__}"
            )
        for profile_name, values in per_profile.items():
            context = f"expectations for model {model_key!r}, profile {profile_name!r}"
            _validate_values(context, values, allow_extends=False)
    if model is None:
        return profile
    expected = expectations.get(model, {}).get(profile.name)
    if not expected:
        return profile
    return profile.with_values(expected)
