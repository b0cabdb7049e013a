"""What the CLI and the UI both call: a query, mode readiness, a sweep, server jobs."""
