"""Shared test settings."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# Property tests judge behaviour, not speed: no per-example deadline and no health check on
# how long examples take to generate (a loaded 2-core CI machine running `-n 2` would
# otherwise flake). On CI, runs are derandomized so a red build is reproducible; locally
# Hypothesis keeps exploring new examples.
settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
    print_blob=True,
)
settings.load_profile("ci" if os.environ.get("CI") else "default")

# pytester's in-process runs restore sys.modules afterwards, and a C extension first imported
# inside one of them (numpy, loaded by the harness only in benchmark sessions) cannot be loaded
# again by the next. Loading the harness here keeps those modules in the outer process.
import pytest_ghxbench.hooks.session_plugin  # noqa: E402, F401
