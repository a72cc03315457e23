"""Jails for agents: bubblewrap namespaces with one way out (SPEC §16), and the host names the
sandbox proxy's policy compares."""
