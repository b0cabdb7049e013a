"""ms.drift's primer pieces against the numpy / pandas calls GraphRAG makes (``np.array_split``,
``DataFrame.nlargest``), including the edges the goldens do not reach: empty folds, ties, zero vectors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from graphrag_ui.index.model import Community
from graphrag_ui.retrieval.ms.drift_search import primer


@pytest.mark.parametrize("n", range(0, 13))
@pytest.mark.parametrize("folds", range(0, 8))
def test_fold_sizes_are_array_split_lengths(n, folds):
    want = [n] if (folds or 1) == 1 else [len(p) for p in np.array_split(np.arange(n), folds)]
    assert primer.fold_sizes(n, folds) == want


def _reports(n: int) -> list[Community]:
    return [Community(str(i), 0, None, f"r{i}", f"text {i}", None) for i in range(n)]


def test_ranking_is_nlargest_with_ties_in_list_order_and_nan_last():
    rng = np.random.default_rng(3)
    matrix = rng.integers(-2, 3, size=(40, 4)).astype(np.float64)  # small integers: many exact ties
    matrix[7] = matrix[30] = 0.0  # zero vectors: NaN similarity
    query = np.array([1.0, 0.0, 1.0, 0.0])
    sims = primer.similarities(matrix, query)
    ranked = primer.rank_reports(_reports(40), sims)
    df = pd.DataFrame({"id": [str(i) for i in range(40)], "similarity": sims})
    for k in (1, 5, 20, 39, 40, 60):
        assert [r.community.id for r in ranked[:k]] == df.nlargest(k, "similarity")["id"].tolist()
    assert [r.community.id for r in ranked[-2:]] == ["7", "30"]


def test_template_choice_is_the_seeded_draw():
    import random

    reports = _reports(9)
    for seed in range(20):
        assert reports[primer.pick_template(reports, seed)] is random.Random(seed).choice(reports)
