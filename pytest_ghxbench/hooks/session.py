"""Per-session state: the resolved adapter, backend, manifest, scenario catalog and profile.

Built once in ``pytest_configure`` (in every xdist worker too); every usage problem found here is
a ``pytest.UsageError`` (exit status 4) naming the valid choices.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_ghxbench.adapters.registry import available_adapters, available_backends, choose
from pytest_ghxbench.api import Adapter, Backend, ModeSpec
from pytest_ghxbench.attempt.redact import Redactor, secret_values_from_env
from pytest_ghxbench.attempt.transcripts import TranscriptWriter
from pytest_ghxbench.metrics.profiles import (
    Profile,
    ProfileError,
    apply_model_expectations,
    build_profiles,
)
from pytest_ghxbench.option_specs import KNOWN_MODES
from pytest_ghxbench.options import Settings
from pytest_ghxbench.records.store import RunDir, new_run_id, runs_root
from pytest_ghxbench.runs.resume import WORKER_KEY, Resume, ResumeError, open_resume
from pytest_ghxbench.scenario.loader import (
    LoadedScenario,
    ScenarioCatalog,
    ScenarioError,
    load_catalog,
)
from pytest_ghxbench.scenario.manifest import ManifestError, load_manifest

RUN_ID_KEY = "ghxbench_run_id"
_MTIME_WINDOW_NS = 100_000_000  # 0.1 s: far above any filesystem timestamp granularity


@dataclass
class GhxSession:
    settings: Settings
    adapter: Adapter
    backend: Backend | None
    modes: tuple[str, ...]
    catalog: ScenarioCatalog
    manifest: Mapping[str, Any] | None
    manifest_source: str
    profiles: dict[str, Profile]
    run_id: str
    git: dict[str, str | None]
    redactor: Redactor
    process_name: str = "main"
    extra: dict[str, Any] = field(default_factory=dict)
    resume: Resume | None = None
    """What a ``--ghx-resume`` session continues (its run directory is that run's)."""

    def errors_for(self, path: Path) -> list[ScenarioError]:
        key = path.resolve()
        return [e for e in self.catalog.errors if Path(e.path).resolve() == key]

    def scenario_at(self, path: Path) -> LoadedScenario | None:
        index = self.extra.get("by_path")
        if index is None:
            index = {ls.path.resolve(): ls for ls in self.catalog.scenarios.values()}
            self.extra["by_path"] = index
        found: LoadedScenario | None = index.get(path.resolve())
        return found

    def scenario_set_of(self, scenario_id: str) -> str | None:
        if self.settings.scenario_set is not None:
            return self.settings.scenario_set
        return self.catalog.set_of(scenario_id)

    @property
    def profile(self) -> Profile:
        return apply_model_expectations(
            self.profiles[self.settings.gate_profile],
            self.settings.tables.get("expectations"),
            self.settings.model or getattr(self.adapter, "model", None),
        )

    @property
    def run_dir(self) -> RunDir:
        found: RunDir | None = self.extra.get("run_dir")
        if found is None:
            if self.resume is not None:
                found = self.resume.run
            else:
                found = RunDir(runs_root(self.settings.results_dir) / self.run_id)
            self.extra["run_dir"] = found
        return found

    @property
    def rows_path(self) -> Path:
        return self.run_dir.rows_path

    @property
    def transcripts_dir(self) -> Path:
        return self.run_dir.transcripts_dir

    @property
    def transcripts(self) -> TranscriptWriter:
        writer = self.extra.get("transcripts")
        if writer is None:
            path = self.transcripts_dir / f"{self.process_name}.jsonl"
            writer = self.extra["transcripts"] = TranscriptWriter(path, self.redactor)
        assert isinstance(writer, TranscriptWriter)
        return writer

    def fresh_workdir(self) -> Path:
        """An empty scratch directory for one attempt. Attempts in a process run one after
        another, so one directory per process is reused, emptied when an attempt left files.

        Whether it is still empty is read from the directory's own stat: adding or removing an
        entry changes its mtime. Timestamps come from a coarse kernel clock, so within a short
        window after the last change the directory is listed instead."""
        workdir: Path | None = self.extra.get("workdir")
        try:
            st = os.stat(workdir) if workdir is not None else None
        except OSError:
            st = None
        if workdir is None or st is None:
            workdir = self.extra["workdir"] = Path(tempfile.mkdtemp(prefix="ghxbench-"))
            self.extra["workdir_mtime"] = os.stat(workdir).st_mtime_ns
            return workdir
        baseline = self.extra["workdir_mtime"]
        recent = time.time_ns() - baseline < _MTIME_WINDOW_NS
        if st.st_mtime_ns != baseline or recent:
            with os.scandir(workdir) as entries:
                dirty = next(entries, None) is not None
            if dirty:
                shutil.rmtree(workdir, ignore_errors=True)
                workdir.mkdir()
                self.extra["workdir_mtime"] = os.stat(workdir).st_mtime_ns
        return workdir

    def close(self) -> None:
        writer = self.extra.pop("transcripts", None)
        if writer is not None:
            writer.close()
        workdir = self.extra.pop("workdir", None)
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
        close = getattr(self.adapter, "close", None)
        if callable(close):
            try:
                close()
            except Exception as exc:  # the verdict is already decided; say so, don't crash
                warnings.warn(
                    f"ghxbench: adapter {self.adapter.name!r} close() raised "
                    f"{type(exc).__name__}: {exc}",
                    stacklevel=1,
                )


def _git_info(root: Path, redactor: Redactor) -> dict[str, str | None]:
    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(
                ["git", *args], cwd=root, capture_output=True, text=True, timeout=5, check=False
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout.strip() or None if out.returncode == 0 else None

    repo = git("config", "--get", "remote.origin.url")
    return {"repo": redactor.text(repo) if repo else None, "commit": git("rev-parse", "HEAD")}


def resolve_profiles(config: pytest.Config, settings: Settings) -> dict[str, Profile]:
    contributed: list[Mapping[str, Any]] = []
    for result in config.hook.pytest_ghxbench_profiles(config=config):
        for name, values in (result or {}).items():
            contributed.append({"name": name, **values})
    try:
        profiles = build_profiles(settings.tables.get("profiles"), extra=contributed)
        # validate expectations eagerly so a typo is a usage error, not a late crash
        for profile in profiles.values():
            apply_model_expectations(profile, settings.tables.get("expectations"), settings.model)
    except ProfileError as exc:
        raise pytest.UsageError(f"ghxbench: {exc}") from exc
    if settings.gate_profile not in profiles:
        raise pytest.UsageError(
            f"ghxbench: unknown gate profile {settings.gate_profile!r} for --gate-profile; "
            f"valid: {', '.join(sorted(profiles))}"
        )
    return profiles


def supported_modes(settings: Settings, adapter: Adapter) -> tuple[str, ...]:
    """The modes ``adapter`` drives: the ones it names, and every mode of the table whose kind
    it drives (its optional ``kinds``, e.g. ``("cli", "mcp")``) and that it does not refuse."""
    kinds = tuple(getattr(adapter, "kinds", ()) or ())
    table = settings.mode_table
    drives = [
        name
        for name in table
        if table[name].kind in kinds and _refusal(adapter, table[name]) is None
    ]
    return tuple(dict.fromkeys([*adapter.modes, *drives]))


def _refusal(adapter: Adapter, spec: ModeSpec) -> str | None:
    """Why ``adapter`` cannot drive ``spec``'s mode although it drives its kind (its optional
    ``refuses(spec)``: the oracle has no plans in a foreign CLI's words), or ``None``."""
    refuses = getattr(adapter, "refuses", None)
    if spec.name in adapter.modes or not callable(refuses):
        return None
    found = refuses(spec)
    return found if isinstance(found, str) else None


def _resolve_modes(settings: Settings, adapter: Adapter) -> tuple[str, ...]:
    supported = supported_modes(settings, adapter)
    assert settings.modes is not None
    if settings.modes == ("all",):
        return supported
    unknown = [m for m in settings.modes if m not in supported]
    if unknown:
        table = settings.mode_table
        declared = [m for m in unknown if m in table]
        kinds = tuple(getattr(adapter, "kinds", ()) or ())
        if declared and table[declared[0]].kind in kinds:
            refusal = _refusal(adapter, table[declared[0]])
            raise pytest.UsageError(
                f"ghxbench: adapter {adapter.name!r} cannot run mode {declared[0]!r}: {refusal}"
            )
        if declared:
            spec = table[declared[0]]
            drives = ", ".join(kinds) or "no declared modes"
            why = f" ({declared[0]!r} is a kind {spec.kind} mode, and the adapter drives {drives})"
        else:
            why = " (declare other modes in [tool.ghxbench.modes])"
        raise pytest.UsageError(
            f"ghxbench: unknown mode(s) {', '.join(map(repr, unknown))} for --ghx-mode; adapter "
            f"{adapter.name!r} supports: {', '.join(supported)} (or 'all'){why}"
        )
    return tuple(dict.fromkeys(settings.modes))


def _check_gate_modes(settings: Settings, adapter: Adapter) -> None:
    """The gate's baseline and candidate are modes: the adapter's, the mode table's, or modes
    configured in ``[tool.ghxbench.mode_instructions]`` (rows of earlier runs may hold them)."""
    configured = settings.tables.get("mode_instructions") or {}
    valid = tuple(
        dict.fromkeys(
            [*adapter.modes, *KNOWN_MODES, *settings.mode_table.names(), *map(str, configured)]
        )
    )
    for flag, mode in (
        ("--gate-baseline", settings.baseline),
        ("--gate-candidate", settings.candidate),
    ):
        if mode not in valid:
            raise pytest.UsageError(
                f"ghxbench: unknown mode {mode!r} for {flag}; valid: {', '.join(valid)}"
            )
    if settings.baseline == settings.candidate:
        raise pytest.UsageError(
            f"ghxbench: --gate-baseline and --gate-candidate are both {settings.baseline!r}; "
            "the gate compares two different modes"
        )


def _scenario_root(settings: Settings) -> Path:
    root = settings.scenario_root
    if settings.shipped_suite:
        from pytest_ghxbench.suite import ShippedDataMissing, require_shipped_suite

        try:
            return require_shipped_suite()
        except ShippedDataMissing as exc:
            raise pytest.UsageError(f"ghxbench: {exc}") from exc
    if not root.is_dir():
        raise pytest.UsageError(
            f"ghxbench: scenario root {root} is not a directory "
            "(set --ghx-scenarios or ghx_scenarios)"
        )
    return root


def _backend_manifest(backend: Backend) -> Mapping[str, Any] | None:
    """The backend's own manifest; a data file it cannot read (the sandbox seed) is a usage
    error naming the file."""
    from pytest_ghxbench.backends import ManifestError

    try:
        return backend.manifest()
    except ManifestError as exc:
        raise pytest.UsageError(f"ghxbench: backend {backend.name!r}: {exc}") from exc


def _preflight(config: pytest.Config, kind: str, component: Adapter | Backend) -> None:
    """Run the component's optional ``preflight(config)``; unavailability is a usage error."""
    preflight = getattr(component, "preflight", None)
    if not callable(preflight):
        return
    from pytest_ghxbench.api import AdapterUnavailable

    try:
        preflight(config)
    except AdapterUnavailable as exc:
        raise pytest.UsageError(f"ghxbench: {kind} {component.name!r} unavailable: {exc}") from exc


def build_session(config: pytest.Config, settings: Settings) -> GhxSession:
    adapters = available_adapters(config)
    adapter: Adapter = choose("adapter", settings.adapter, adapters, "--ghx-adapter")
    modes = _resolve_modes(settings, adapter)
    _check_gate_modes(settings, adapter)
    backends = available_backends(config)
    backend: Backend = choose("backend", settings.backend, backends, "--ghx-backend")
    profiles = resolve_profiles(config, settings)

    catalog = load_catalog(_scenario_root(settings))
    if settings.scenario_set is not None and settings.scenario_set not in catalog.sets:
        choices = ", ".join(sorted(catalog.sets)) or "none (no scenario-sets file)"
        raise pytest.UsageError(
            f"ghxbench: unknown scenario set {settings.scenario_set!r} for --scenario-set; "
            f"valid: {choices}"
        )

    manifest: Mapping[str, Any] | None
    if settings.fixture_manifest is not None:
        try:
            manifest = load_manifest(settings.fixture_manifest)
        except ManifestError as exc:
            raise pytest.UsageError(f"ghxbench: --fixture-manifest: {exc}") from exc
        source = str(settings.fixture_manifest)
    else:
        manifest = _backend_manifest(backend)
        source = f"backend {backend.name!r}"

    if not hasattr(config, "workerinput"):  # once per session: in the controller only
        _preflight(config, "adapter", adapter)
        _preflight(config, "backend", backend)

    redactor = Redactor(secret_values_from_env())
    workerinput = getattr(config, "workerinput", None)
    run_id = workerinput.get(RUN_ID_KEY) if workerinput else None
    resume = _resume(settings, adapter, backend, workerinput)
    process = str(workerinput.get("workerid", "main")) if workerinput else "main"
    if resume is not None:
        run_id = resume.spec.run_id
        process = f"{process}.{resume.tag}"
    return GhxSession(
        settings=settings,
        adapter=adapter,
        backend=backend,
        modes=modes,
        catalog=catalog,
        manifest=manifest,
        manifest_source=source,
        profiles=profiles,
        run_id=run_id or new_run_id(),
        git=_git_info(config.rootpath, redactor),
        redactor=redactor,
        process_name=process,
        resume=resume,
    )


def _resume(
    settings: Settings, adapter: Adapter, backend: Backend, workerinput: Any
) -> Resume | None:
    if settings.resume is None:
        return None
    try:
        return open_resume(
            settings.resume,
            adapter=adapter.name,
            backend=backend.name,
            model=settings.model or getattr(adapter, "model", None),
            shard=str(settings.shard) if settings.shard is not None else None,
            worker=workerinput.get(WORKER_KEY) if workerinput else None,
        )
    except ResumeError as exc:
        raise pytest.UsageError(f"ghxbench: --ghx-resume: {exc}") from None
