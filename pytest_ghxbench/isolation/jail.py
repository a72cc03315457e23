"""One item's jail: the bubblewrap command line that runs an agent's process in it.

Every process an adapter starts for an item runs as ``bwrap ... -- sh -c BRIDGE ... -- ARGV``:
new user, PID, mount, network and IPC namespaces (``--unshare-all``), a new session, killed
with its parent (``--die-with-parent``); when ARGV's process ends, bubblewrap ends and the
kernel ends everything else in the PID namespace, daemons included.

The network namespace holds only its own loopback. :data:`BRIDGE` (a shell script run before
ARGV) makes the one way out: socat listens on ``127.0.0.1:<proxy port>`` (the port the item's
proxy variables name outside too) and passes every connection to the item's gate, a Unix socket
bound in at ``/run/ghxbench/proxy.sock``. A model server on loopback (an allowed host) gets a
listener on its own port that tunnels through the proxy (``CONNECT``), so its URL works
unchanged. ARGV starts once every listener is up.

Clients that ignore the proxy variables and connect to GitHub's names themselves (node's
``https`` and ``fetch``, the reference MCP server) reach the same gate: the jail's
``/etc/hosts`` names :data:`~.mounts.GITHUB_ADDRESS` for each of :data:`~.mounts.GITHUB_NAMES`,
and the bridge listens there on port 443 and tunnels each connection through the proxy
(``CONNECT github.com:443``, which the proxy intercepts; the client's ``Host`` says which of
GitHub's hosts it asked for). Binding port 443 takes ``CAP_NET_BIND_SERVICE`` in the user
namespace that owns the jail's network namespace: bubblewrap, left to itself, runs the jail in
a second user namespace nested in that one (with no capability there), so a jail not started
by root is started as the first namespace's root, keeping that capability (and
``CAP_SETFCAP``, see :data:`_AS_ROOT`), and the bridge becomes the user in a nested namespace
of its own (``unshare --user``) before ARGV, which then runs as before: the user's own uid and
gid, no capabilities. Whether that works here is tried once per process
(:func:`github_names_unavailable`); where it does not, GitHub's names are not mapped and such
clients fail as they would without it.
"""

from __future__ import annotations

import copy
import functools
import os
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_ghxbench.isolation.mounts import GITHUB_ADDRESS, Mounts
from pytest_ghxbench.isolation.probe import Isolation

__all__ = [
    "BRIDGE",
    "JAIL_DIR",
    "ItemJail",
    "JailError",
    "github_names_unavailable",
    "jail_failure",
]

JAIL_DIR = "/run/ghxbench"
"""Where the jail sees its own directory: the gate's socket, the bridge's log, the executor's
files."""

BRIDGE = r"""
log=/run/bridge.log
wait_for=
user=
for spec in "$@"; do
  shift
  case $spec in
    --) break ;;
    proxy=*)
      proxy=${spec#proxy=}
      socat -d -d TCP-LISTEN:"$proxy",bind=127.0.0.1,reuseaddr,fork \
        UNIX-CONNECT:/run/ghxbench/proxy.sock 2>>"$log" &
      wait_for="$wait_for 127.0.0.1:$proxy" ;;
    tunnel=*)
      port=${spec#tunnel=}
      socat -d -d TCP-LISTEN:"$port",bind=127.0.0.1,reuseaddr,fork \
        PROXY:127.0.0.1:127.0.0.1:"$port",proxyport="$proxy" 2>>"$log" &
      wait_for="$wait_for 127.0.0.1:$port" ;;
    github=*)
      address=${spec#github=}
      socat -d -d TCP-LISTEN:443,bind="$address",reuseaddr,fork \
        PROXY:127.0.0.1:github.com:443,proxyport="$proxy" 2>>"$log" &
      wait_for="$wait_for $address:443" ;;
    user=*)
      user=${spec#user=} ;;
    serve=*)
      socat UNIX-LISTEN:/run/ghxbench/serve.sock,unlink-early,fork \
        TCP:127.0.0.1:"${spec#serve=}" 2>>"$log" & ;;
  esac
done
listening() {  # 0: socat has said it listens on $1 (ADDRESS:PORT); 2: a socat failed
  [ -f "$log" ] || return 1
  while IFS= read -r line; do
    case $line in
      *" listening on AF=2 $1") return 0 ;;
      *" E "*) return 2 ;;
    esac
  done <"$log"
  return 1
}
tries=0
for port in $wait_for; do
  until listening "$port"; do
    failed=$?
    tries=$((tries + 1))
    if [ "$failed" -eq 2 ] || [ "$tries" -gt 2700 ]; then
      echo "ghxbench jail: the network bridge did not start:" >&2
      while IFS= read -r line; do
        case $line in *" E "* | *" W "*) echo "$line" >&2 ;; esac
      done <"$log"
      exit 125
    fi
    # socat listens within milliseconds: look again at once (a sleep is a process, which
    # costs more than the wait), and only then every 2 ms
    [ "$tries" -gt 200 ] && sleep 0.002
  done
done
if [ -n "$user" ]; then
  exec unshare --user --map-user="${user%:*}" --map-group="${user#*:}" -- "$@"
fi
exec "$@"
"""
"""The jail's first process: start the bridges, wait until they listen, then exec ARGV.

Arguments: ``proxy=PORT`` (first), ``tunnel=PORT`` per loopback model server,
``github=ADDRESS`` to listen on ``ADDRESS:443`` for GitHub's names, ``user=UID:GID`` to run
ARGV as that user in a user namespace of its own, ``serve=PORT`` to reach a server the jailed
process runs on that port (its Unix socket is ``serve.sock`` in the jail's directory), ``--``,
ARGV. socat says when it listens (``-d -d`` writes it to the bridge's log, with each connection
after; an error there ends the wait at once): the kernel's ``/proc/net/tcp`` would say so too,
but reading it walks the whole machine's connection table, tens of milliseconds a time.

The log is the jail's own (``/run`` is a fresh tmpfs in every jail), not in the item's
directory that all of the item's jails share: one command after another each start a jail, and
a log kept from the previous one would say "listening" before this jail's socat does."""


_AS_ROOT = (
    "--uid", "0", "--gid", "0", "--cap-add", "CAP_NET_BIND_SERVICE", "--cap-add", "CAP_SETFCAP",
)  # fmt: skip
"""What lets the bridge of a jail not started by root listen on port 443 (see above), and then
become the user again: a user namespace may map its creator's uid 0 only where the creator
held ``CAP_SETFCAP``."""
_TRIAL_PROXY_PORT = 3128


def github_names_unavailable(bwrap: str) -> str | None:
    """Why the jails of ``bwrap`` cannot lead GitHub's names to their bridge here, or ``None``
    (they can); tried once per process, with a jail that does it."""
    return _trial(bwrap, os.getuid(), os.getgid())


@functools.lru_cache(maxsize=4)
def _trial(bwrap: str, uid: int, gid: int) -> str | None:
    with tempfile.TemporaryDirectory(prefix="ghxbench-trial-") as run_dir:
        bridges = [f"proxy={_TRIAL_PROXY_PORT}", f"github={GITHUB_ADDRESS}", *_as_user(uid, gid)]
        argv = [
            bwrap, "--unshare-all", "--die-with-parent", "--new-session", *_as_root(uid),
            *Mounts().arguments(Path(run_dir), github_names=True), "--chdir", "/",
            "--", "/bin/sh", "-c", BRIDGE, "ghxbench-jail", *bridges, "--", "id", "-u",
        ]  # fmt: skip
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"the trial jail did not run: {exc}"
    if done.returncode == 0 and done.stdout.strip() == str(uid):
        return None
    said = " ".join(done.stderr.split())[-300:] or f"exit status {done.returncode}"
    return f"the trial jail could not listen on {GITHUB_ADDRESS}:443 as uid {uid}: {said}"


def _as_root(uid: int) -> tuple[str, ...]:
    return () if uid == 0 else _AS_ROOT


def _as_user(uid: int, gid: int) -> list[str]:
    return [] if uid == 0 else [f"user={uid}:{gid}"]


class JailError(RuntimeError):
    """The jail could not be started; the message names bubblewrap's own."""


def jail_failure(stderr: str) -> str | None:
    """bubblewrap's message in a jailed process's stderr (the jail failed to start), or
    the bridge's, or ``None``."""
    lines = [line.strip() for line in stderr.splitlines()]
    for index, line in enumerate(lines):
        if line.startswith("bwrap: "):
            return f"the item's jail failed to start: {line}"
        if line.startswith("ghxbench jail: "):
            return f"the item's jail failed to start: {' '.join(lines[index:])[:500]}"
    return None


@dataclass
class ItemJail:
    """The jail of one item: what every jailed process of the item sees (``mounts``), its
    directory (``run_dir``, bound at :data:`JAIL_DIR`), the proxy's port and the loopback
    ports of the allowed model servers."""

    isolation: Isolation
    run_dir: Path
    proxy_port: int
    loopback_ports: Sequence[int]
    mounts: Mounts
    github_names: bool = True
    """Whether GitHub's names lead to the bridge in this jail, for clients that ignore the
    proxy variables (where this machine allows it: :func:`github_names_unavailable`)."""

    @property
    def serve_socket(self) -> Path:
        """Where the host reaches the server a jailed process runs (``serve_port``)."""
        return self.run_dir / "serve.sock"

    def command(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        read_only: Iterable[Path | str] = (),
        writable: Iterable[Path | str] = (),
        serve_port: int | None = None,
    ) -> list[str]:
        """The command line that runs ``argv`` in this jail, in ``cwd``; ``read_only`` and
        ``writable``: what this process needs beyond the item's own (its runtime, a
        configuration file). The caller passes the item's environment as usual."""
        assert self.isolation.bwrap is not None
        mounts = copy.deepcopy(self.mounts)
        mounts.add(read_only)
        mounts.add(writable, writable=True)
        bridges = [f"proxy={self.proxy_port}"]
        bridges += [f"tunnel={port}" for port in self.loopback_ports]
        if serve_port is not None:
            bridges.append(f"serve={serve_port}")
        uid, gid = os.getuid(), os.getgid()
        mapped = self.github_names and github_names_unavailable(self.isolation.bwrap) is None
        if mapped:
            bridges += [f"github={GITHUB_ADDRESS}", *_as_user(uid, gid)]
        return [
            self.isolation.bwrap,
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            *(_as_root(uid) if mapped else ()),
            *mounts.arguments(self.run_dir, github_names=mapped),
            "--chdir",
            str(cwd),
            "--",
            "/bin/sh",
            "-c",
            BRIDGE,
            "ghxbench-jail",
            *bridges,
            "--",
            *argv,
        ]
