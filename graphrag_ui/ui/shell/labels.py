"""UI labels for values the code names by key: page titles, result kinds, table columns, roles, sources.

Each label is marked with ``msg`` here, so the gettext catalogue has it; ``label(table, key)``
shows it in the UI language (the key itself when the table lacks it: a column the table does not
name keeps its own name).
"""

from __future__ import annotations

from graphrag_ui.base.i18n import Msg, msg, pmsg
from graphrag_ui.retrieval.core.result import KEYWORD_SOURCES as KEYWORD_SOURCES  # the run line reads it here
from graphrag_ui.ui.shell.language import translate

PAGE_TITLES = {
    "explore": msg("Explore"),
    "compare": msg("Compare"),
    "evaluate": msg("Evaluate"),
    "recall": msg("Entity recall"),
    "graph": msg("Graph"),
    "index": msg("Index"),
    "settings": msg("Settings"),
}
KIND_LABELS = {
    "entities": msg("Entities"),
    "relations": msg("Relations"),
    "communities": msg("Communities"),
    "chunks": msg("Chunks"),
}
ROLE_LABELS = {
    "system": msg("system"),
    "user": pmsg("message role", "user"),
    "assistant": msg("assistant"),
}
# choice values of our own parameters shown in words (the value itself stays in the link; the
# references' own values, e.g. VECTOR / WEIGHT, are shown as spelled)
CHOICES = {
    "vector": pmsg("recall strategy", "vector"),
    "ilike": pmsg("recall strategy", "ilike"),
    "hybrid": pmsg("recall strategy", "hybrid"),
}
EXTRACTORS = {"offline": msg("offline"), "llm": msg("LLM")}
VIEW_LABELS = {
    "graph": msg("Graph"),
    "budget": msg("Budget"),
    "trace": msg("Trace"),
    "context": msg("Context"),
    "sweep": msg("Sweep"),
    "batches": msg("Batches"),
    "points": msg("Points"),
}
GRAPH_VIEWS = {"interactive": msg("Interactive (click a node)"), "standalone": msg("Standalone (pyvis)")}
GRAPH_ROLES = {
    "seed": msg("recalled entity"),
    "context": msg("endpoint of a relation in the context"),
    "dropped": msg("considered but dropped"),
    "neighbour": msg("1-hop neighbour (not retrieved)"),
    "centre": msg("searched entity / community member"),
    "nearby": msg("within the chosen neighbourhood depth"),
}
TIMINGS = {"keywords": msg("keywords"), "embed": msg("embed"), "context": msg("context")}
STATISTICS = {
    "documents": msg("documents"),
    "chunks": msg("chunks"),
    "entities": pmsg("index statistics", "entities"),
    "relations": msg("relations"),
    "communities": msg("communities"),
    "vectors.entities": msg("entity vectors"),
    "vectors.relations": msg("relation vectors"),
    "vectors.chunks": msg("chunk vectors"),
    "vectors.communities": msg("community vectors"),
}
# table columns by the name the data frames give them
COLUMNS = {
    "batch": msg("batch"),
    "reports": msg("reports"),
    "tokens": msg("tokens"),
    "limit": msg("budget"),
    "fill": msg("of budget"),
    "points": msg("points"),
    "kept": msg("kept"),
    "map": msg("map call"),
    "report_ids": msg("reports in order"),
    "stage": msg("stage"),
    "label": msg("for"),
    "ms": msg("ms"),
    "prompt_tokens": msg("prompt tokens"),
    "answer_tokens": msg("answer tokens"),
    "cost_usd": msg("cost (USD)"),
    "cached": msg("cached"),
    "ok": msg("ok"),
    "error": msg("error"),
    "parsed": msg("items read"),
    "score": msg("score"),
    "description": msg("point"),
    "why": msg("why kept"),
    "why_dropped": msg("why dropped"),
    "community": msg("community"),
    "title": msg("title"),
    "level": msg("level"),
    "rating": msg("rating"),
    "reason": msg("why"),
    "rank": msg("rank"),
    "entity": msg("entity"),
    "what": msg("what"),
    "count": msg("count"),
    "members": msg("members"),
    "sim": msg("sim"),
    "match": msg("match"),
    "ilike_term": msg("ilike term"),
    "sim_term": msg("sim term"),
    "occurrence_term": msg("occurrence term"),
    "occurrence": msg("occurrence"),
    "aliases": msg("aliases"),
    "degree": msg("degree"),
}


# where Explore puts the answer (``layout``)
LAYOUTS = {"beside": msg("beside"), "below": msg("below")}
# the steps of the Trace view, by the names the modes give them
TRACE_STEPS = {
    "assemble": pmsg("trace step", "assemble"),
    "batches": pmsg("trace step", "batches"),
    "chunks from entities": pmsg("trace step", "chunks from entities"),
    "chunks from relations": pmsg("trace step", "chunks from relations"),
    "communities": pmsg("trace step", "communities"),
    "community context": pmsg("trace step", "community context"),
    "consider": pmsg("trace step", "consider"),
    "context table": pmsg("trace step", "context table"),
    "cut": pmsg("trace step", "cut"),
    "entity search": pmsg("trace step", "entity search"),
    "global path": pmsg("trace step", "global path"),
    "keywords": pmsg("trace step", "keywords"),
    "local context": pmsg("trace step", "local context"),
    "local path": pmsg("trace step", "local path"),
    "merge": pmsg("trace step", "merge"),
    "node data": pmsg("trace step", "node data"),
    "primer folds": pmsg("trace step", "primer folds"),
    "recall": pmsg("trace step", "recall"),
    "relations": pmsg("trace step", "relations"),
    "report ranking": pmsg("trace step", "report ranking"),
    "reports": pmsg("trace step", "reports"),
    "round-robin merge": pmsg("trace step", "round-robin merge"),
    "schema": pmsg("trace step", "schema"),
    "search": pmsg("trace step", "search"),
    "template choice": pmsg("trace step", "template choice"),
    "text unit search": pmsg("trace step", "text unit search"),
    "text units": pmsg("trace step", "text units"),
    "token control": pmsg("trace step", "token control"),
    "vector chunks": pmsg("trace step", "vector chunks"),
}


def label(table: dict[str, Msg], key: str) -> str:
    """``table[key]`` in the UI language; the key itself when the table has no label for it."""
    text = table.get(key)
    return key if text is None else translate(text)
