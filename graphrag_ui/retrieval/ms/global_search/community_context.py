"""GraphRAG global search: the reports it loads and ``build_community_context`` in multi-batch mode.

``read_indexer_reports`` keeps the reports of level ≤ ``community_level`` in community_reports.parquet
row order; ``_compute_community_weights`` gives each the number of distinct text units of the entities
``read_indexer_entities`` placed in it, divided by the largest such number; reports rated below
``min_community_rank`` are left out; the rest are shuffled with ``random.seed(random_state)`` and
packed into batches: header and rows counted in cl100k tokens, a batch is cut before the row that
would cross ``max_context_tokens`` (a row bigger than the budget gets a batch of its own), and each
cut batch is re-sorted by (weight, rank), descending, and written as pandas ``to_csv(sep="|")``
without the ``-----Reports-----`` line (GraphRAG counts that line but only prints it in
single-batch mode).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from graphrag_ui.base.i18n import msg
from graphrag_ui.index.model import Community, Index
from graphrag_ui.retrieval.ms.indexer_adapters import index_view, level_view, unit_counts
from graphrag_ui.retrieval.ms.text import count, csv_table

WEIGHT = "occurrence weight"  # the factory's community_weight_name
RANK = "rank"  # the factory's community_rank_name


@dataclass
class ReportRow:
    community: Community
    weight: float | int | None  # None when no weight is computed
    rank: float | None
    tokens: int = 0
    batch: int = -1  # -1: not in any batch
    dropped: str = ""


@dataclass
class BatchText:
    index: int
    community_ids: list[str]  # in printed order
    text: str
    tokens: int  # as GraphRAG counts it (header line included)


@dataclass
class GlobalContext:
    reports: list[ReportRow]  # every loaded report, in the order GraphRAG packed them (dropped last)
    batches: list[BatchText] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _report_row(c: Community) -> int:
    row = c.extra.get("report_row")
    return -1 if row is None else int(row)


def level_reports(index: Index, level: int) -> list[Community]:
    """``read_indexer_reports``: reports of level ≤ ``level``, in community_reports.parquet order."""
    reports = list(level_view(index, level).reports.values())
    return sorted(reports, key=_report_row)  # stable: indexes without a report row keep community order


def community_weights(index: Index, level: int, reports: list[Community], normalize: bool) -> dict[str, float | int]:
    """``_compute_community_weights``: distinct text units of each report's loaded entities (/ max)."""
    counts = unit_counts(index, level)  # depends only on the level: counted once per index and level
    weights: dict[str, float | int] = {c.id: counts.get(c.id, 0) for c in reports}
    if normalize and weights:
        top = max(weights.values())
        if top == 0:
            raise ZeroDivisionError("no loaded entity has a text unit")
        weights = {k: v / top for k, v in weights.items()}
    return weights


def _rank(c: Community) -> float | None:
    value = c.extra.get("rank", c.rating)
    return None if value is None else float(value)


def _cells(row: ReportRow, weigh: bool, ranked: bool, summary: bool, show) -> list[str]:
    """A report's table cells; ``show`` is ``str`` for the counted row, ``_cell`` for the printed one."""
    c = row.community
    key = "summary" if summary else "full_content"
    cells = [c.id, c.title] + ([show(row.weight)] if weigh else [])
    cells.append(c.extra[key] if key in c.extra else c.report)
    return cells + ([show(row.rank)] if ranked else [])


def _cell(value: float | int) -> str:
    """What the re-sorted pandas column prints: the value as a float, Python's shortest repr."""
    return repr(float(value))


MEMO_BATCHES = 8  # batch sets kept per index and level (they do not depend on the question)


def build_batches(index: Index, reports: list[Community], level: int, **options) -> GlobalContext:
    """``build_community_context`` for these reports and options; the question plays no part in it,
    so the result is kept per index and level (a fresh copy of the rows is returned each time)."""
    memo = level_view(index, level).memo.setdefault("batches", {})
    key = (tuple(c.id for c in reports), tuple(sorted(options.items())))
    hit = memo.get(key)
    if hit is None:
        hit = _build_batches(index, reports, level, **options)
        if len(memo) >= MEMO_BATCHES:
            memo.pop(next(iter(memo)))
        memo[key] = hit
    return GlobalContext([replace(r) for r in hit.reports], list(hit.batches), list(hit.notes))


def _build_batches(
    index: Index,
    reports: list[Community],
    level: int,
    *,
    max_context_tokens: int,
    use_community_summary: bool = False,
    shuffle_data: bool = True,
    random_state: int = 86,
    include_community_rank: bool = True,
    include_community_weight: bool = True,
    normalize_community_weight: bool = True,
    min_community_rank: float = 0,
    has_entities: bool = True,
) -> GlobalContext:
    """The batches GraphRAG's ``build_community_context(single_batch=False)`` makes of ``reports``."""
    out = GlobalContext([])
    if not reports:
        return out
    weigh = include_community_weight and has_entities
    weights: dict[str, float | int] = {}
    if weigh:
        try:
            weights = community_weights(index, level, reports, normalize_community_weight)
        except ZeroDivisionError:
            out.notes.append(
                msg(
                    "no loaded entity has a text unit, so every occurrence weight is 0: GraphRAG divides by "
                    "that maximum and fails (ZeroDivisionError); the weights are shown as 0.0"
                )
            )
            weights = {c.id: 0.0 for c in reports}
    rows = [ReportRow(c, weights.get(c.id) if weigh else None, _rank(c)) for c in reports]
    kept = []
    for row in rows:
        if row.rank is None or row.rank < min_community_rank:
            row.dropped = msg(
                "below min_community_rank {limit} (rating {rating})", limit=f"{min_community_rank:g}", rating=row.rank
            )
        else:
            kept.append(row)
    if rows and not kept:
        out.notes.append(
            msg(
                "every community report at level {level} is rated below min_community_rank {limit} ({unrated} of "
                "{n} have no rating): GraphRAG's global search leaves them all out and has nothing to map",
                level=level,
                limit=f"{min_community_rank:g}",
                unrated=sum(1 for row in rows if row.rank is None),
                n=len(rows),
            )
        )
    if shuffle_data:
        random.Random(random_state).shuffle(kept)
    header = ["id", "title"] + ([WEIGHT] if weigh else [])
    header += ["summary" if use_community_summary else "content"] + ([RANK] if include_community_rank else [])
    head_tokens = count("-----Reports-----\n" + "|".join(header) + "\n")
    iv = index_view(index)
    batch: list[ReportRow] = []
    used = head_tokens
    lines = ["|".join(_cells(row, weigh, include_community_rank, use_community_summary, str)) + "\n" for row in kept]
    for row, tokens in zip(kept, iv.tokens_of(lines), strict=True):
        row.tokens = tokens
    for row in kept:
        if used + row.tokens > max_context_tokens:
            _cut(out, batch, header, used, weigh, include_community_rank, use_community_summary)
            batch, used = [], head_tokens
        batch.append(row)
        used += row.tokens
    _cut(out, batch, header, used, weigh, include_community_rank, use_community_summary)
    for b in out.batches:
        if b.tokens > max_context_tokens:
            out.notes.append(
                msg(
                    "batch {index} holds one report of {tokens} tokens, over max_context_tokens "
                    "{max_context_tokens}: GraphRAG sends it alone, over budget",
                    index=b.index + 1,
                    tokens=b.tokens,
                    max_context_tokens=max_context_tokens,
                )
            )
    out.reports = [r for b in out.batches for r in _batch_rows(kept, b)] + [r for r in rows if r.dropped]
    return out


def _batch_rows(kept: list[ReportRow], b: BatchText) -> list[ReportRow]:
    by_id = {r.community.id: r for r in kept if r.batch == b.index}
    return [by_id[cid] for cid in b.community_ids]


def _cut(out: GlobalContext, batch: list[ReportRow], header, used: int, weigh: bool, ranked: bool, summary: bool):
    """``_cut_batch``: sort the batch by (weight, rank) descending (pandas' multi-key sort is stable;
    we sort stably for one key too) and print it as pandas minimal-quoted CSV."""
    if not batch:
        return
    order = sorted(
        batch,
        key=lambda r: tuple([float(r.weight)] if weigh else []) + tuple([float(r.rank)] if ranked else []),
        reverse=True,
    )
    if not (weigh or ranked):
        order = list(batch)
    number = len(out.batches)
    lines = []
    for r in order:
        r.batch = number
        lines.append(_cells(r, weigh, ranked, summary, _cell))
    out.batches.append(BatchText(number, [r.community.id for r in order], csv_table(header, lines), used))
