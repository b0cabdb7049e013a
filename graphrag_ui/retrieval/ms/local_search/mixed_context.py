"""GraphRAG local search, step 3: the Entities/Relationships section (Reports: ``reports``, Sources: ``sources``).

Each builder follows ``LocalSearchMixedContext`` (graphrag 2.7.0 = 3.3.0) row for row: the same
ordering rules, the same "stop at the first row that does not fit" budget rule, tokens counted the
same way (whole header, then one row at a time; the local section re-counts whole texts), the same
text layout (raw ``|`` joins; the Reports table goes through pandas-style minimal CSV quoting).
Every candidate comes back with whether it made it and, if not, why.
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass

from graphrag_ui.base.i18n import Reason, lmsg, msg
from graphrag_ui.index.model import Index, Relation
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import ColumnTail
from graphrag_ui.retrieval.ms.indexer_adapters import EntityView, IndexView, index_view, relations_of
from graphrag_ui.retrieval.ms.local_search.rows import Row, Section, ids_of, names_of
from graphrag_ui.retrieval.ms.text import count, count_text


@dataclass
class LocalResult:
    text: str
    entities: Section
    relations: Section
    accepted: int  # how many selected entities' relationships are in the table
    used: int  # entity table + relationship table tokens, as GraphRAG checks them against the budget
    links: dict[str, int]  # relation id -> GraphRAG's `links` attribute after this query


def _sort_by_rank(rels: list[Relation], rank: dict[str, int]) -> list[Relation]:
    return sorted(rels, key=lambda r: rank[r.id], reverse=True)


def filter_relationships(
    index: Index, prefix: list[EntityView], top_k: int, links: dict[str, int]
) -> tuple[list[Relation], dict[str, str]]:
    """``_filter_relationships``: in-network first, then out-network by (links, rank), capped.

    ``links`` is GraphRAG's per-relationship ``attributes["links"]``; it is updated in place exactly
    when GraphRAG writes it, and starts empty for every query (GraphRAG keeps it on shared objects).
    Returns the selection and, for every touched relation left out, the reason.
    """
    rank = index_view(index).rel_rank
    names = {v.entity.name for v in prefix}
    cands = relations_of(index, [v.entity.name for v in prefix])
    in_net = [r for r in cands if r.source in names and r.target in names]
    if len(in_net) > 1:
        in_net = _sort_by_rank(in_net, rank)
    out = [r for r in cands if r.source in names and r.target not in names]
    out += [r for r in cands if r.target in names and r.source not in names]
    out = _sort_by_rank(out, rank)
    if len(out) <= 1:
        return in_net + out, {}
    partners: dict[str, set[str]] = {}
    for r in out:
        if r.source not in names:
            partners.setdefault(r.source, set()).add(r.target)
        if r.target not in names:
            partners.setdefault(r.target, set()).add(r.source)
    for r in out:
        links[r.id] = len(partners[r.source]) if r.source in partners else len(partners[r.target])
    out.sort(key=lambda r: (links[r.id], rank[r.id]), reverse=True)
    cap = top_k * len(prefix)
    beyond = msg("beyond top_k (out-network cap top_k_relationships×{n} = {cap})", n=len(prefix), cap=cap)
    dropped = {r.id: beyond for r in out[cap:]}
    return in_net + out[:cap], dropped


@dataclass
class RelationTable:
    """A selection's Relationships table before the budget: header, rows, their tokens running."""

    head: str  # the title and header line
    head_tokens: int
    lines: list[str]
    costs: list[int]  # tokens per row
    running: list[int]  # tokens of rows 0..j
    spaced: int  # the first row that starts with whitespace (len(lines): none)


def _relation_table(index: Index, rels: list[Relation], include_weight: bool, links: dict[str, int]) -> RelationTable:
    view = index_view(index)
    short = view.rel_short
    header = ["id", "source", "target", "description"] + (["weight"] if include_weight else [])
    if rels[0].id in links:  # the attribute columns come from the first selected relationship
        header.append("links")
    head = "-----Relationships-----\n" + "|".join(header) + "\n"
    lines, costs = [], []
    has_links = "links" in header
    cache = view.rel_lines
    for r in rels:
        key = (r.id, include_weight, has_links, links.get(r.id) if has_links else None)
        hit = cache.get(key)
        if hit is None:
            cells = [short[r.id], r.source, r.target, r.description or ""]
            if include_weight:
                cells.append(str(r.weight if r.weight else ""))
            if has_links:
                cells.append(str(links[r.id]) if links.get(r.id) else "")
            line = "|".join(cells) + "\n"
            hit = cache[key] = (line, view.tokens(line))
        lines.append(hit[0])
        costs.append(hit[1])
    spaced = next((j for j, line in enumerate(lines) if line[:1].isspace()), len(lines))
    return RelationTable(head, count(head), lines, costs, list(itertools.accumulate(costs)), spaced)


def _relationship_cut(table: RelationTable | None, budget: int) -> tuple[int, int]:
    """``build_relationship_context``'s cut of a prefix's table: (how many rows fit, tokens of its text).

    The rows are added until the first that does not fit. The text's token count is the header's plus
    the rows': cl100k never merges across a newline that is followed by a non-space character, and
    every row starts with its id or ``|`` (checked: a row starting with whitespace falls back to
    counting the whole text). The rows are written and counted once per table (in a sweep once per
    prefix, ``_prefix``), each budget is a cut of their running total, and the text itself is joined
    only for the prefix the local section keeps (``_relationship_text``)."""
    if table is None:
        return 0, 0
    n = bisect.bisect_right(table.running, budget - table.head_tokens)
    used = table.head_tokens + (table.running[n - 1] if n else 0)
    return n, used if table.spaced >= n else count_text(_relationship_text(table, n))


def _relationship_text(table: RelationTable | None, n: int) -> str:
    return "" if table is None else table.head + "".join(table.lines[:n])


def entity_row(iv: IndexView, view: EntityView, include_rank: bool) -> tuple[str, int]:
    """An entity's Entities table row and its tokens, kept on its view: a sweep's steps list it again."""
    cells = [view.short_id, view.entity.name, view.entity.description or ""]
    if include_rank:
        cells.append(str(view.rank))
    line = "|".join(cells) + "\n"
    found = view.rows[include_rank] = (line, iv.tokens(line))
    return found


@dataclass
class EntityTable:
    """A selection's Entities rows before the budget: lines, kept rows (read only), tokens running, and the first
    line that starts with whitespace (``len(lines)``: none)."""

    lines: list[str]
    rows: list[Row]
    running: list[int]
    spaced: int


def _entity_table(index: Index, iv: IndexView, selected: list[EntityView], rank: bool) -> EntityTable:
    """The Entities rows of ``selected`` as they would all be kept; a step's table is a cut of it (``build_local``).
    In a sweep once per widest selection: a narrower step's entities are its first ones (``reuse.prefixed``)."""

    def make() -> EntityTable:
        lines, rows, costs = [], [], []
        for order, view in enumerate(selected):
            line, tokens = view.rows.get(rank) or entity_row(iv, view, rank)
            lines.append(line)
            costs.append(tokens)
            rows.append(Row(view.entity.id, view.short_id, order, tokens, True))
        spaced = next((j for j, line in enumerate(lines) if line[:1].isspace()), len(lines))
        return EntityTable(lines, rows, list(itertools.accumulate(costs)), spaced)

    name = f"ms.local entity table {rank}"
    return reuse.prefixed(name, id(index), ids_of(selected), make, lambda wider, n: wider)


def _over(used: int, tokens: int, limit: int) -> Reason:
    return lmsg("over budget (Entities: {used}+{tokens} > {limit} tokens)", used=used, tokens=tokens, limit=limit)


def _entities_tail(
    iv: IndexView, selected: list[EntityView], start: int, rank: bool, used: int, budget: int
) -> ColumnTail:
    """Selected entities ``start``.. once one did not fit the Entities table: each over the budget."""

    def make(j: int) -> Row:
        view = selected[start + j]
        tokens = (view.rows.get(rank) or entity_row(iv, view, rank))[1]
        return Row(view.entity.id, view.short_id, start + j, tokens, dropped=_over(used, tokens, budget))

    n = len(selected) - start
    return ColumnTail(n, lambda: [v.entity.id for v in selected[start:]], make, [(_over(0, 0, 0).template, n)])


def build_local(
    index: Index,
    selected: list[EntityView],
    budget: int,
    *,
    top_k: int,
    include_entity_rank: bool,
    include_weight: bool,
    links: dict[str, int] | None = None,
    claims: bool = True,
) -> LocalResult:
    """``_build_local_context``: the entity table, then the relationship table rebuilt for growing
    prefixes of the selected entities until one no longer fits (that prefix is reverted).

    ``claims``: whether the engine has a claims covariate (``graphrag.api.local_search`` always passes
    ``{"claims": [...]}``, so ``ms.local``'s text carries its empty table); DRIFT's engine
    (``get_drift_search_engine``) passes no covariates, so its local steps have no claims part at all.

    ``links`` starts empty (fresh per query) unless a caller passes a dict it keeps across queries,
    which reproduces a reused GraphRAG engine (stale ``links``); only tests do that."""
    ents = Section("", 0, budget)
    rels = Section("", 0, budget)
    fresh = links is None
    links = {} if links is None else links
    entity_text, additive = "", True
    if selected:
        header = ["id", "entity", "description"] + (["number of relationships"] if include_entity_rank else [])
        entity_text = "-----Entities-----\n" + "|".join(header) + "\n"
        head_tokens = count(entity_text)
        iv = index_view(index)
        table = _entity_table(index, iv, selected, include_entity_rank)
        # the rows up to the first that does not fit: the running total's cut (every row costs ≥ 0 tokens)
        cut = bisect.bisect_right(table.running, budget - head_tokens, 0, len(selected))
        used = head_tokens + (table.running[cut - 1] if cut else 0)
        if cut < len(selected):  # it and every entity after it are left out: their rows made on read
            ents.tail = _entities_tail(iv, selected, cut, include_entity_rank, used, budget)
        ents.rows = table.rows[:cut]  # read only
        entity_text += "".join(table.lines[:cut])
        additive = table.spaced >= cut
        ents.used = used
    # GraphRAG counts the whole table again: header plus rows, as ``_relationship_cut`` argues, unless a row
    # starts with whitespace (then the whole text is counted, once per table in a sweep)
    if selected and additive:
        entity_tokens = ents.used
    else:
        entity_tokens = reuse.once(("ms.count", entity_text), lambda: count_text(entity_text))
    final = _Prefix([], {}, links, None)
    final_n = accepted = final_used = 0
    ids = ids_of(selected)
    # a fresh ``links`` holds what the prefixes' filters wrote: in a sweep each prefix is kept in a tree by entity
    # id (one lookup per entity, where a key of the whole prefix would hash it again for every longer one)
    shared = fresh and reuse.active()
    node = reuse.once(("ms.local prefixes", id(index), top_k, include_weight), dict) if shared else {}
    current = links
    for i in range(len(selected)):
        found = node.get(ids[i]) if shared else None
        if found is None:
            found = (_prefix(index, selected, i, top_k, include_weight, current, shared), {})
            if shared:
                node[ids[i]] = found
        prefix, node = found
        current = prefix.links
        n, rel_tokens = _relationship_cut(prefix.table, budget)
        total = entity_tokens + rel_tokens  # + the claims table GraphRAG counts: empty (0 tokens) or absent
        if total > budget:
            name = selected[i].entity.name
            rels.notes.append(
                msg(
                    "adding {name}'s relationships would make the local context {total} > {budget} tokens: reverted",
                    name=name,
                    total=total,
                    budget=budget,
                )
            )
            break
        final, final_n, accepted, final_used = prefix, n, i + 1, rel_tokens
    rels.used = final_used
    final_fit = list(zip(final.sel[:final_n], final.table.costs[:final_n], strict=True)) if final.table else []
    rel_text = _relationship_text(final.table, final_n)
    final_parts = ([rel_text, ""] if claims else [rel_text]) if accepted else []  # [relationships, claims (empty)]
    # in a sweep a kept prefix's rows, and their candidates with the links its last filter left, are the same at
    # every step that keeps it (``final`` and ``current`` are held by the prefix tree while the sweep runs)
    kept = reuse.once(("ms.local relation rows", id(final)), list) if shared and accepted else None
    _relation_rows(index, selected, accepted, final.sel, final_fit, final.drops, rels, budget, kept)
    if kept is not None:
        rels.made = reuse.once(("ms.local relation candidates", id(final), id(current)), list)
    text = entity_text + "\n\n" + "\n\n".join(final_parts)
    return LocalResult(text, ents, rels, accepted, entity_tokens + rels.used, current)


@dataclass
class _Prefix:
    """One prefix of the selected entities: its relationship selection, the reasons of the ones capped,
    ``links`` after its filter, and its table before the budget (None: no relationship)."""

    sel: list[Relation]
    drops: dict[str, str]
    links: dict[str, int]
    table: RelationTable | None


def _prefix(
    index: Index,
    selected: list[EntityView],
    i: int,
    top_k: int,
    include_weight: bool,
    links: dict[str, int],
    shared: bool,
) -> _Prefix:
    """``filter_relationships`` of the first ``i + 1`` selected entities and their table. ``shared`` (a sweep,
    fresh ``links``): once per (prefix, top_k, weight column) (``build_local``'s tree), as a step with more
    entities or another budget rebuilds the same prefixes; it then writes a copy of the previous prefix's ``links`` (the
    filter writes only the relations it reads, so each prefix's copy is what a single run holds there)."""
    written = dict(links) if shared else links
    sel, drops = filter_relationships(index, selected[: i + 1], top_k, written)
    return _Prefix(sel, drops, written, _relation_table(index, sel, include_weight, written) if sel else None)


def _touched(index: Index, names: tuple[str, ...]) -> list[int]:
    """How many relationships touch the first 1, 2, … of ``names`` (each counted once); in a sweep once per
    widest list: a narrower step's names are its first ones (``reuse.prefixed``)."""

    def make() -> list[int]:
        view = index_view(index)
        seen: set[str] = set()
        out = []
        for name in names:
            seen.update(view.relation_ids(index, name))
            out.append(len(seen))
        return out

    return reuse.prefixed("ms.local touched", id(index), names, make, lambda wider, n: wider[:n])


def _relation_rows(index, selected, accepted, sel, fit, drops, section: Section, budget: int, kept=None) -> None:
    """The selection's rows (those that fit made, in the table's order), then the touched relationships
    left out — over budget, beyond the cap or reverted — as the section's tail, made on read. ``kept``: in a
    sweep, the rows of this kept prefix made so far (the same at every step that keeps it; read only)."""
    made = section.rows if kept is None else kept
    short = index_view(index).rel_short
    if len(made) < len(fit):
        accepted_names = {v.entity.name for v in selected[:accepted]}
        for order in range(len(made), len(fit)):
            r, tokens = fit[order]
            inside = r.source in accepted_names and r.target in accepted_names
            why = msg("in-network") if inside else msg("out-network")
            made.append(Row(r.id, short[r.id], order, tokens, True, why=why))
    if kept is not None:
        section.rows = kept[: len(fit)]
    names = names_of(selected)
    touched = _touched(index, names)[-1] if names else 0
    if touched == len(fit):
        return
    over = lmsg(
        "over budget (Relationships: {used} used, next row does not fit in {limit})", used=section.used, limit=budget
    )
    reverted = lmsg("reverted (its entity's relationships did not fit the local budget)")
    beyond = next(iter(drops.values()), None)  # ``filter_relationships`` gives every capped one the same reason
    n_over = len(sel) - len(fit)
    start, made = len(fit), []

    def rest() -> list[Relation]:  # the selection's rows that did not fit, then the touched ones not selected
        if not made:
            position = {r.id for r in sel}
            made.append(sel[start:] + [r for r in relations_of(index, names) if r.id not in position])
        return made[0]

    def make(i: int) -> Row:
        r = rest()[i]
        return Row(r.id, short[r.id], start + i, dropped=over if i < n_over else drops.get(r.id, reverted))

    counts = [(over, n_over), (beyond, len(drops)), (reverted, touched - len(sel) - len(drops))]
    section.tail = ColumnTail(touched - start, lambda: [r.id for r in rest()], make, counts)
