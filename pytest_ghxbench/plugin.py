"""pytest entry point (placeholder until the lifecycle lands)."""
