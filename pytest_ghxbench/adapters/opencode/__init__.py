"""The ``opencode`` adapter: drives OpenCode through one ``opencode serve`` per session."""
