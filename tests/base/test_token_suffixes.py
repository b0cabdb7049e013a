"""A known count plus a punctuation suffix: only the text's last pre-token is encoded again (``base.tokens``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graphrag_ui.base import tokens

SUFFIXES = (",", "]\n", "}", "\n")


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=40).map(lambda s: '"' + s + '"}'), st.sampled_from(["o200k_base", "cl100k_base"]))
def test_with_suffixes_counts_each_suffixed_text_exactly(text, name):
    n = tokens.count(text, name)
    expected = [tokens.count(text + suffix, name) for suffix in SUFFIXES]
    assert tokens.with_suffixes(text, n, SUFFIXES, name) == expected
    assert [tokens.with_suffix(text, n, suffix, name) for suffix in SUFFIXES] == expected
