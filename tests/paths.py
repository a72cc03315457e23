"""Where the shared reference data lives: ``shared/`` beside the repository checkout."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("GHXBENCH_SHARED", REPO_ROOT.parent / "shared"))
EXTERNAL = SHARED / "external"
EXTERNAL_SCENARIOS = EXTERNAL / "ghx-scenarios"
EVAL_DIR = EXTERNAL / "ghx-eval-2026-03-03"
