"""Chromium tests of the running app (Playwright, Debian's chromium)."""
