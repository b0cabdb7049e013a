"""Answers, keywords, map-reduce, DRIFT and judge calls, and the model client."""
