"""The test suite: one folder per part of the package (see docs/architecture.md)."""
