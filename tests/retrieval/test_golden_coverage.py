"""The goldens exercise every section of every mode's context: with rows, and left empty by a budget.

A byte-for-byte golden proves a section only if the reference wrote rows into it (issue 31: no DRIFT golden
had a Relationships table, so an extra empty claims part after it went unseen), and proves the budget cut
only if some budget left the section empty. ``golden_sections.coverage()`` reads every golden file; this
test fails when a reference mode (every registry mode, per release) has a section that no golden case fills,
or that no golden case leaves empty, in English and in Chinese, except where the reference cannot do it
(named with the reason, and checked to stay so). ``.venv/bin/python tests/support/golden_sections.py`` prints the table.
"""

from __future__ import annotations

import pytest

from graphrag_ui.retrieval.registry import get_mode, mode_names
from tests.support.golden_sections import EMPTY, ROWS, SECTIONS, all_cases, corpus_of, coverage

# (mode, section) -> why no golden can have rows there
NEVER_ROWS = {
    (f"ms.local@{v}", "Claims"): "the golden indexes have no covariates (GraphRAG extracts claims only with "
    "extract_claims.enabled, off by default) and ms.local does not import them (docs/differences/ms.md)"
    for v in ("2.3.0", "2.7.0", "3.3.0")
}
# (mode, section) -> why no budget can leave it empty while the mode still returns a context
NEVER_EMPTY = {
    ("nano.local", "Entities"): "nano 0.0.8.2 cuts reports, relationships and text units by budget, never the "
    "entities (_build_local_query_context); with no entity it returns None, not a context",
    **{
        (f"ms.global@{v}", "map batches"): "build_community_context puts a report bigger than the batch budget "
        "into a batch of its own, so a budget never empties the batches"
        for v in ("2.3.0", "2.7.0", "3.3.0")
    },
}

CASES = list(all_cases())
TABLE = coverage(CASES)
BY_CORPUS = {lang: coverage([c for c in CASES if corpus_of(c[1]) == lang]) for lang in ("en", "zh")}
PAIRS = [(mode, section) for mode, sections in SECTIONS.items() for section in sections]


def test_every_reference_mode_and_release_is_listed():
    listed = {name.split("@")[0] for name in SECTIONS}
    modes = {name for name in mode_names() if get_mode(name).reference and name != "lightrag.bypass"}
    assert modes == listed  # bypass sends no context: it has no section
    for mode, sections in SECTIONS.items():
        assert sections and sum(1 for m, _, _ in CASES if m == mode) >= 8, mode


EXEMPT = {ROWS: NEVER_ROWS, EMPTY: NEVER_EMPTY}
WHAT = {ROWS: "has rows in", EMPTY: "leaves empty"}
CHECKS = [(mode, section, state) for mode, section in PAIRS for state in (ROWS, EMPTY)]


@pytest.mark.parametrize(("mode", "section", "state"), CHECKS, ids=[f"{m}:{s}:{st}" for m, s, st in CHECKS])
def test_some_golden_case_has_rows_in_the_section_and_some_leaves_it_empty(mode, section, state):
    n = TABLE[mode][section][state]
    if (mode, section) in EXEMPT[state]:
        assert n == 0, f"{mode} {section}: {n} cases now {WHAT[state]} it: drop it from the exemptions"
        return
    for lang, table in BY_CORPUS.items():  # in English and in Chinese
        assert table[mode][section][state] > 0, f"no {lang} golden case of {mode} {WHAT[state]} its {section} section"


def test_exemptions_name_real_sections():
    assert set(NEVER_ROWS) | set(NEVER_EMPTY) <= set(PAIRS)
