"""The Evaluate page's parts: the question set, the plan, the run, the results and the drill-down."""
