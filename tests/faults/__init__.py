"""Abuse and failure cases across surfaces: hostile text, bounds, servers, secrets."""
