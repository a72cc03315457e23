"""What a push to the sandbox is refused for, in GitHub's words: a real ``pre-receive`` hook
that git's ``receive-pack`` runs before it moves any ref.

- a file over 100 MB (GH001; over 50 MB is a warning);
- an update or deletion of a protected branch (GH006); the protected refs come from the world,
  in :data:`PROTECTED_ENV`, set by the server for each push.

After a push, a ``post-receive`` hook prints GitHub's hint for each new branch: the page that
opens a pull request from it, on the host the client pushed to (:data:`REPO_URL_ENV`).

Git itself refuses the rest as GitHub does: deleting the default branch
(``receive.denyDeleteCurrent``), updating ``refs/pull/*`` (hidden refs), a non-fast-forward
push without ``--force`` (the client does). The hooks directory is one per process, and the
served repositories are pointed at it with :func:`server_config` (git configuration through
the environment, so a repository on disk never names a directory that goes away with the
process).
"""

from __future__ import annotations

import threading
from pathlib import Path

from pytest_ghxbench.sandbox.git.repo import scratch_root

__all__ = [
    "DEFAULT_BRANCH_ENV",
    "PROTECTED_ENV",
    "REPO_URL_ENV",
    "hooks_dir",
    "server_config",
]

PROTECTED_ENV = "GHXBENCH_PROTECTED_REFS"
"""Space-separated full names of the protected branches (``refs/heads/main``)."""
REPO_URL_ENV = "GHXBENCH_REPO_URL"
"""The repository's page on the host the client pushed to (``https://github.com/o/r``)."""
DEFAULT_BRANCH_ENV = "GHXBENCH_DEFAULT_BRANCH"

# awk prints GitHub's lines for the new blobs over 50 MB and fails when one is over 100 MB.
_PRE_RECEIVE = r"""#!/bin/sh
# GitHub's refusals of a push (pytest-ghxbench sandbox).
zero=0000000000000000000000000000000000000000
updates=$(cat)
tips=$(printf '%s\n' "$updates" | awk -v z=$zero 'NF == 3 && $2 != z { print $2 }')
if [ -n "$tips" ]; then
  git rev-list --objects $tips --not --all |
  git cat-file --batch-check='%(objecttype) %(objectsize) %(rest)' |
  awk -v mb=1048576 -v hard="GitHub's file size limit of 100.00 MB" \
    -v soft="GitHub's recommended maximum file size of 50.00 MB" '
    $1 == "blob" && $2 > 50 * mb {
      n++; size[n] = $2; path[n] = $0; sub(/^[^ ]* [^ ]* /, "", path[n])
      if ($2 > 100 * mb) over = 1
    }
    END {
      if (!n) exit 0
      level = over ? "error" : "warning"
      print level ": See https://gh.io/lfs for more information."
      for (i = 1; i <= n; i++) {
        if (over && size[i] > 100 * mb)
          printf "error: File %s is %.2f MB; this exceeds %s\n", path[i], size[i] / mb, hard
        else if (!over)
          printf "warning: File %s is %.2f MB; this is larger than %s\n", path[i], size[i]/mb, soft
      }
      print level ": GH001: Large files detected. You may want to try Git Large File Storage" \
        " - https://git-lfs.github.com."
      exit over
    }' >&2 || exit 1
fi
status=0
while read -r old new ref; do
  case " $PROTECTED " in
    *" $ref "*)
      echo "error: GH006: Protected branch update failed for $ref." >&2
      if [ "$new" = "$zero" ]; then
        echo "error: Cannot delete this branch" >&2
      else
        echo "error: Changes must be made through a pull request." >&2
      fi
      status=1 ;;
  esac
done <<EOF
$updates
EOF
exit $status
""".replace("$PROTECTED", "$" + PROTECTED_ENV)

# GitHub's hint after a push that creates a branch other than the default one; receive-pack
# relays a hook's stderr to the client as ``remote:`` lines.
_POST_RECEIVE = r"""#!/bin/sh
# GitHub's hint for a new branch (pytest-ghxbench sandbox).
zero=0000000000000000000000000000000000000000
while read -r old new ref; do
  branch=${ref#refs/heads/}
  if [ "$branch" != "$ref" ] && [ "$old" = "$zero" ] && [ "$new" != "$zero" ] &&
     [ "$branch" != "$DEFAULT" ] && [ -n "$URL" ]; then
    printf '\nCreate a pull request for '"'"'%s'"'"' on GitHub by visiting:\n' "$branch" >&2
    printf '     %s/pull/new/%s\n\n' "$URL" "$branch" >&2
  fi
done
exit 0
""".replace("$DEFAULT", "$" + DEFAULT_BRANCH_ENV).replace("$URL", "$" + REPO_URL_ENV)

_SERVER_CONFIG = (
    ("receive.denyDeleteCurrent", "true"),
    ("receive.hideRefs", "refs/pull"),
    ("uploadpack.allowFilter", "true"),
    ("uploadpack.allowAnySHA1InWant", "true"),
)

_lock = threading.Lock()
_dir: Path | None = None


def hooks_dir() -> Path:
    """This process's hooks directory (written on first use, removed at exit)."""
    global _dir
    with _lock:
        if _dir is None:
            made = scratch_root() / "hooks"
            made.mkdir(exist_ok=True)
            for name, script in (("pre-receive", _PRE_RECEIVE), ("post-receive", _POST_RECEIVE)):
                hook = made / name
                hook.write_text(script, encoding="utf-8")
                hook.chmod(0o755)
            _dir = made
        return _dir


def server_config() -> dict[str, str]:
    """Environment variables that give git on the serving side GitHub's settings: the hooks,
    deleting the default branch refused, ``refs/pull/*`` read-only, partial clones allowed."""
    settings = (("core.hooksPath", str(hooks_dir())), *_SERVER_CONFIG)
    env = {"GIT_CONFIG_COUNT": str(len(settings))}
    for index, (key, value) in enumerate(settings):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env
