"""Streamlit building blocks, by topic: ``shell`` (every page's frame, state, guards), ``widgets`` (inputs
shared by pages), ``results`` (grids, budgets, change line, sweep), ``answer`` (answers, stages, citations),
``graph`` (the interactive graph) and ``evaluate`` (the Evaluate page's parts). Pages only read widgets,
call the package and render with these."""
