"""The answer traced to its context."""
