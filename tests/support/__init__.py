"""Shared test helpers: fixtures, scripted servers, sample-index builders."""
