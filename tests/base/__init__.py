"""Translations, tokens, embedders, progress: the bottom layer."""
