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
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_ghxbench.isolation.mounts import Mounts
from pytest_ghxbench.isolation.probe import Isolation

__all__ = ["BRIDGE", "JAIL_DIR", "ItemJail", "JailError", "jail_failure"]

JAIL_DIR = "/run/ghxbench"
"""Where the jail sees its own directory: the gate's socket, the bridge's log, the executor's
files."""

BRIDGE = r"""
log=/run/bridge.log
wait_for=
for spec in "$@"; do
  shift
  case $spec in
    --) break ;;
    proxy=*)
      proxy=${spec#proxy=}
      socat -d -d TCP-LISTEN:"$proxy",bind=127.0.0.1,reuseaddr,fork \
        UNIX-CONNECT:/run/ghxbench/proxy.sock 2>>"$log" &
      wait_for="$wait_for $proxy" ;;
    tunnel=*)
      port=${spec#tunnel=}
      socat -d -d TCP-LISTEN:"$port",bind=127.0.0.1,reuseaddr,fork \
        PROXY:127.0.0.1:127.0.0.1:"$port",proxyport="$proxy" 2>>"$log" &
      wait_for="$wait_for $port" ;;
    serve=*)
      socat UNIX-LISTEN:/run/ghxbench/serve.sock,unlink-early,fork \
        TCP:127.0.0.1:"${spec#serve=}" 2>>"$log" & ;;
  esac
done
listening() {  # socat has said it listens on 127.0.0.1:$1
  [ -f "$log" ] || return 1
  while IFS= read -r line; do
    case $line in *" listening on AF=2 127.0.0.1:$1") return 0 ;; esac
  done <"$log"
  return 1
}
tries=0
for port in $wait_for; do
  until listening "$port"; do
    tries=$((tries + 1))
    if [ "$tries" -gt 2700 ]; then
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
exec "$@"
"""
"""The jail's first process: start the bridges, wait until they listen, then exec ARGV.

Arguments: ``proxy=PORT`` (first), ``tunnel=PORT`` per loopback model server, ``serve=PORT``
to reach a server the jailed process runs on that port (its Unix socket is ``serve.sock`` in
the jail's directory), ``--``, ARGV. socat says when it listens (``-d -d`` writes it to the
bridge's log, with each connection after): the kernel's ``/proc/net/tcp`` would say so too,
but reading it walks the whole machine's connection table, tens of milliseconds a time.

The log is the jail's own (``/run`` is a fresh tmpfs in every jail), not in the item's
directory that all of the item's jails share: one command after another each start a jail, and
a log kept from the previous one would say "listening" before this jail's socat does."""


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
        return [
            self.isolation.bwrap,
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            *mounts.arguments(self.run_dir),
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
