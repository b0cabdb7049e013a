"""A retrieval's results: the grids, their marks, budgets, the change line, the sweep view."""
