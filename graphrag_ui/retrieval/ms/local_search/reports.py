"""GraphRAG local search, step 2: the Reports section (``LocalSearchMixedContext._build_community_context``).

The communities of the selected entities by (#matched entities, rating), rated at or above
``min_community_rank``, one row at a time until the first that does not fit the budget; that report and
every one after it are the section's tail, made on read (a ``core.candidates.ColumnTail`` of rows). Tokens counted as GraphRAG
does (header, then one row at a time); the table goes through pandas-style minimal CSV quoting.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from graphrag_ui.base.i18n import Reason, lmsg, msg
from graphrag_ui.index.model import Community, Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import ColumnTail, runs
from graphrag_ui.retrieval.ms.indexer_adapters import EntityView, LevelView, index_view
from graphrag_ui.retrieval.ms.local_search.rows import Row, Section, ids_of
from graphrag_ui.retrieval.ms.text import count, csv_line


def _rank(c: Community) -> float | None:
    value = c.extra.get("rank", c.rating)
    return None if value is None else float(value)


def _matched(lv: LevelView, selected: list[EntityView]) -> tuple[dict[str, int], list[Community]]:
    """How many selected entities each community has, and its reports by (that count, rank)."""
    matches: dict[str, int] = {}
    for view in selected:
        for cid in view.community_ids:
            matches[cid] = matches.get(cid, 0) + 1
    ranks = _ranks(lv)
    comms = [lv.reports[cid] for cid in matches if cid in lv.reports]
    comms.sort(key=lambda c: (matches[c.id], ranks[c.id] or 0.0), reverse=True)
    return matches, comms


class Matching:
    """``_matched`` for every prefix of one selection, as columns: the communities in the order the entities first
    name them (that of ``matches``), each entity's (community, entity) pairs, the reported ones' ranks. A prefix's
    counts are a ``bincount`` of its pairs and its order a stable ``lexsort`` by (−count, −rank) — the stable sort
    by (count, rank) descending that ``_matched`` makes. In a sweep once per widest selection (``reuse.prefixed``)."""

    def __init__(self, lv: LevelView, selected: list[EntityView]) -> None:
        index: dict[str, int] = {}
        pairs: list[int] = []
        self.pairs_upto, self.seen_upto = [0], [0]  # after the first m entities: pairs, distinct communities
        for view in selected:
            for cid in view.community_ids:
                pairs.append(index.setdefault(cid, len(index)))
            self.pairs_upto.append(len(pairs))
            self.seen_upto.append(len(index))
        self.cids = list(index)
        self.pairs = np.array(pairs, dtype=np.int64)
        self.reported = np.array([j for j, cid in enumerate(self.cids) if cid in lv.reports], dtype=np.int64)
        ranks = _ranks(lv)
        rank = [ranks[self.cids[j]] or 0.0 for j in self.reported.tolist()]
        self.rank = np.array(rank, dtype=np.float64)
        self.exact = not np.isnan(self.rank).any()  # a NaN rating: Python's comparisons, not numpy's order
        self.comms = [lv.reports[self.cids[j]] for j in self.reported.tolist()]

    def matched(self, lv: LevelView, selected: list[EntityView]) -> tuple[dict[str, int], list[Community]]:
        m = len(selected)
        if not self.exact:
            return _matched(lv, selected)
        seen = self.seen_upto[m]
        counts = np.bincount(self.pairs[: self.pairs_upto[m]], minlength=seen)
        matches = dict(zip(self.cids[:seen], counts.tolist(), strict=True))
        n = int(np.searchsorted(self.reported, seen))
        order = np.lexsort((-self.rank[:n], -counts[self.reported[:n]]))
        comms = self.comms
        return matches, [comms[i] for i in order.tolist()]


def _ranks(lv: LevelView) -> dict[str, float | None]:
    """Each report's rank at the level, once per level view (a sweep sorts the same reports at every step)."""
    found = lv.memo.get("ms.local report ranks")
    if found is None:
        found = lv.memo["ms.local report ranks"] = {cid: _rank(c) for cid, c in lv.reports.items()}
    return found


def _sorted(index: Index, lv: LevelView, selected: list[EntityView]) -> tuple[dict[str, int], list[Community]]:
    """``_matched``; in a sweep from the widest selection's ``Matching`` (a step's entities are its first ones)."""
    if not reuse.active():
        return _matched(lv, selected)
    name = f"ms.local matching at level {lv.level}"
    matching = reuse.prefixed(name, id(index), ids_of(selected), lambda: Matching(lv, selected), lambda w, n: w)
    return matching.matched(lv, selected)


def build_reports(
    index: Index,
    selected: list[EntityView],
    lv: LevelView,
    budget: int,
    *,
    include_rank: bool,
    use_summary: bool,
    min_rank: float,
) -> Section:
    """Communities of the selected entities, by (#matched entities, rating), until the budget is full."""
    section = Section("", 0, budget)
    iv = index_view(index)
    if not selected or not lv.reports:
        return section
    ranks = _ranks(lv)
    ids = ids_of(selected)  # a budget step matches the same reports (read only)
    matches, comms = reuse.once(("ms.local reports", id(index), lv.level, ids), lambda: _sorted(index, lv, selected))
    for cid in matches:
        if cid not in lv.reports:
            section.rows.append(
                Row(cid, cid, -1, dropped=lmsg("no community report at level ≤ {level}", level=lv.level))
            )
    header = ["id", "title", "summary" if use_summary else "content"] + (["rank"] if include_rank else [])
    used = count("-----Reports-----\n" + "|".join(header) + "\n")
    kept: list[list[str]] = []
    kept_lines: list[str] = []  # their CSV lines (the writer keeps no state between rows)
    kept_rows: list[Row] = []
    for order, c in enumerate(comms):
        row, cells, line = _report_row(iv, c, order, matches, min_rank, use_summary, include_rank)
        if not row.dropped and used + row.tokens > budget:  # it and every report after it are left out
            section.tail = _reports_tail(
                iv, comms, order, matches, ranks, min_rank, use_summary, include_rank, used, budget
            )
            break
        section.rows.append(row)
        if row.dropped:
            continue
        used += row.tokens
        row.in_context = True
        kept.append(cells)
        kept_lines.append(line)
        kept_rows.append(row)
    section.used = used if kept else 0
    # a tail starts with a rated report that did not fit (its row has tokens): the rating did not leave all out
    if not kept and comms and section.tail is None and all(row.dropped and not row.tokens for row in section.rows):
        unrated = sum(1 for c in comms if ranks[c.id] is None)
        section.notes.append(  # nothing reached the budget: the rating filter left every report out
            msg(
                "no matched community report is rated at or above min_community_rank {limit} ({unrated} of "
                '{n} have no rating): the section is left out (GraphRAG would print a literal "[]" line here)',
                limit=f"{min_rank:g}",
                unrated=unrated,
                n=len(comms),
            )
        )
        return section
    if not kept:
        section.notes.append(
            msg(
                "no community report fits the Reports budget of {budget} tokens: the section is left out "
                '(GraphRAG would print a literal "[]" line here)',
                budget=budget,
            )
        )
        return section
    order = list(range(len(kept)))
    if include_rank:  # GraphRAG re-sorts the cut batch by the rank column (pandas, descending); ours is stable
        order.sort(key=lambda i: float(kept[i][-1]), reverse=True)
    section.rows = [kept_rows[i] for i in order] + [r for r in section.rows if not r.in_context]
    section.text = "-----Reports-----\n" + csv_line(header) + "".join(kept_lines[i] for i in order)
    return section


def _report_row(
    iv: Any, c: Community, order: int, matches: dict[str, int], min_rank: float, use_summary: bool, include_rank: bool
) -> tuple[Row, list[str], str]:
    """A report's row, table cells and CSV line; dropped below ``min_rank`` (then no tokens are counted)."""
    rank = _rank(c)
    row = Row(
        c.id, c.id, order, why=lmsg("matched by {n} selected entities, rating {rating}", n=matches[c.id], rating=rank)
    )
    if rank is None or rank < min_rank:
        row.dropped = _below(rank, min_rank)
        return row, [], ""
    row.tokens, cells, line = _cells(iv, c, rank, use_summary, include_rank)
    return row, cells, line


def _cells(iv: Any, c: Community, rank: float, use_summary: bool, include_rank: bool) -> tuple[int, list[str], str]:
    """A report's tokens, table cells and CSV line, made once per (report, columns) and kept with the index: a sweep's
    steps list the same reports again (the report object is checked: another under the same id is made anew)."""
    key = (c.id, use_summary, include_rank)
    found = iv.report_rows.get(key)
    if found is None or found[0] is not c:
        text = c.extra.get("summary", "") if use_summary else c.extra.get("full_content", c.report)
        cells = [c.id, c.title, text] + ([str(rank)] if include_rank else [])
        found = iv.report_rows[key] = (c, iv.tokens("|".join(cells) + "\n"), cells, csv_line(cells))
    return found[1], found[2], found[3]


def _below(rank: float | None, min_rank: float) -> Reason:
    return lmsg("below threshold (rating {rating} < min_community_rank {limit})", rating=rank, limit=f"{min_rank:g}")


def _over(used: int, tokens: int, limit: int) -> Reason:
    return lmsg("over budget (Reports: {used}+{tokens} > {limit} tokens)", used=used, tokens=tokens, limit=limit)


_BELOW, _OVER_REPORTS = _below(0, 0).template, _over(0, 0, 0).template  # what ``binding`` counts a tail's rows by


def _reports_tail(
    iv: Any,
    comms: list[Community],
    start: int,
    matches: dict[str, int],
    ranks: dict[str, float | None],
    min_rank: float,
    use_summary: bool,
    include_rank: bool,
    used: int,
    budget: int,
) -> ColumnTail:
    """Reports ``start``.. once one did not fit: each below ``min_rank`` or over the budget, made on read."""

    def make(i: int) -> Row:
        row, *_made = _report_row(iv, comms[start + i], start + i, matches, min_rank, use_summary, include_rank)
        if not row.dropped:
            row.dropped = _over(used, row.tokens, budget)
        return row

    rest = comms[start:]
    below = [_BELOW if (rank := ranks[c.id]) is None or rank < min_rank else _OVER_REPORTS for c in rest]
    return ColumnTail(len(rest), lambda: [c.id for c in rest], make, runs(below))
