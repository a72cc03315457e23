"""A scripted stand-in for a CLI agent (``claude`` or ``codex``) in tests.

The script is a JSON file named by ``GHXBENCH_FAKE_SCRIPT``:
``{"record": path, "version": str, "steps": [...]}``. On start the fake writes its argv, pid,
process group and environment names to ``record``; ``--version`` prints ``version``. Steps:
``{"event": obj}`` prints obj as one JSON line, ``{"line": str}`` prints str as is,
``{"sleep": s}``, ``{"stderr": str}``, ``{"run": [argv]}`` runs a command from PATH (its stdout
becomes ``$LAST_OUTPUT``), ``{"spawn_sleeper": s}`` starts a child that sleeps s seconds,
``{"exit": code}``, ``{"kill": signum}`` (the fake kills itself). In printed text, ``$ENV{NAME}``
is the value of NAME and ``$LAST_OUTPUT`` the last command's output.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from typing import Any


def _expand(value: Any, last_output: str) -> Any:
    if isinstance(value, str):
        value = re.sub(r"\$ENV\{(\w+)\}", lambda m: os.environ.get(m.group(1), ""), value)
        return value.replace("$LAST_OUTPUT", last_output)
    if isinstance(value, list):
        return [_expand(v, last_output) for v in value]
    if isinstance(value, dict):
        return {k: _expand(v, last_output) for k, v in value.items()}
    return value


def main() -> int:
    with open(os.environ["GHXBENCH_FAKE_SCRIPT"], encoding="utf-8") as handle:
        script = json.load(handle)
    if sys.argv[1:] == ["--version"]:
        print(script.get("version", "fake 0.0.0"))
        return 0
    if script.get("record"):
        with open(script["record"], "w", encoding="utf-8") as handle:
            json.dump(
                {
                    "argv": sys.argv,
                    "pid": os.getpid(),
                    "pgid": os.getpgid(0),
                    "env": sorted(os.environ),
                    "cwd": os.getcwd(),
                },
                handle,
            )
    last_output = ""
    for step in script.get("steps", []):
        if "event" in step:
            print(json.dumps(_expand(step["event"], last_output)), flush=True)
        elif "line" in step:
            print(_expand(step["line"], last_output), flush=True)
        elif "stderr" in step:
            print(step["stderr"], file=sys.stderr, flush=True)
        elif "sleep" in step:
            time.sleep(step["sleep"])
        elif "run" in step:
            done = subprocess.run(step["run"], capture_output=True, text=True, check=False)
            last_output = done.stdout.strip()
        elif "spawn_sleeper" in step:
            subprocess.Popen(
                [sys.executable, "-c", f"import time; time.sleep({step['spawn_sleeper']})"]
            )
        elif "kill" in step:
            os.kill(os.getpid(), step["kill"])
        elif "exit" in step:
            return int(step["exit"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
