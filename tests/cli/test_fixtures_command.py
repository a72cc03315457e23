"""`ghxbench fixtures`: the sandbox's manifest lifecycle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_ghxbench.cli.main import main


def test_seed_writes_the_manifest_scenarios_bind_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "manifest.json"
    assert main(["fixtures", "seed", "--out", str(target)]) == 0
    manifest = json.loads(target.read_text())
    assert manifest["repo"]["owner"] and manifest["resources"]["issue"]["number"]
    assert str(target) in capsys.readouterr().out


def test_status_checks_a_manifest_against_the_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "manifest.json"
    main(["fixtures", "seed", "--out", str(target)])
    capsys.readouterr()
    assert main(["fixtures", "status", "--fixture-manifest", str(target)]) == 0
    assert "0 problem(s)" in capsys.readouterr().out
    manifest = json.loads(target.read_text())
    manifest["resources"]["issue"]["number"] = 999
    target.write_text(json.dumps(manifest))
    assert main(["fixtures", "status", "--fixture-manifest", str(target)]) == 1
    out = capsys.readouterr().out
    assert "resources.issue.number = 999" in out and "differs from the seed" in out


def test_cleanup_and_unknown_backends(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fixtures", "cleanup"]) == 0
    assert "nothing to clean up" in capsys.readouterr().out
    assert main(["fixtures", "seed", "--backend", "gitlab"]) == 2
    assert "unknown backend 'gitlab'; valid: sandbox, github" in capsys.readouterr().err
