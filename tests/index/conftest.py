"""Fixtures the index tests share."""

from __future__ import annotations

import pytest

from graphrag_ui.index import store
from tests.support.store_fixtures import small_index


@pytest.fixture()
def saved(tmp_path):
    """(a small index, the folder it was saved to): a test may change or damage the folder."""
    index = small_index()
    out = tmp_path / "idx"
    store.save(index, out)
    return index, out
