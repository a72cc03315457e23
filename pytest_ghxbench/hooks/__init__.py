"""The pytest hook implementations: the session plugin, collection, the row flow from workers
to the controller, junit, progress, markers and the session's end (summary, gate, exit status)."""
