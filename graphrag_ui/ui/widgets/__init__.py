"""Inputs shared by pages: the question, parameter sliders and ranges, links, uploads, index jobs."""
