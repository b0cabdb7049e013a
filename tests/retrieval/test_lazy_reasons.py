"""A candidate's reasons are kept as data (``lmsg``: template and values) and formatted when read: every
reader still sees the same text and translation, and what only classifies a reason (``binding``) or only
copies candidates (a sweep's replay) leaves it unformatted."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path

from graphrag_ui.base.i18n import Msg, Reason, joined, lmsg, msg, translate
from graphrag_ui.index import store
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.binding import BUDGET, COUNT, limit_class, limits
from graphrag_ui.retrieval.core.result import Candidate, Retrieval
from graphrag_ui.services.query import run_query

ROOT = Path(__file__).resolve().parents[2]


def test_a_reason_reads_as_the_message_it_stands_for() -> None:
    lazy = joined(lmsg("beyond top_k ({rank} > {top_k})", rank=7, top_k=5), msg("cache"))
    eager = joined(msg("beyond top_k ({rank} > {top_k})", rank=7, top_k=5), msg("cache"))
    assert type(lazy) is Reason and lazy == eager and str(lazy) == eager and f"{lazy}" == eager
    assert "7 > 5" in lazy and hash(lazy) == hash(str(eager))
    assert translate(lazy, "zh") == translate(eager, "zh") != eager  # the parts translate one by one
    wrapped = msg("{why}, degree {degree}", why=lmsg("beyond top_k ({rank} > {top_k})", rank=7, top_k=5), degree=3)
    assert translate(wrapped, "zh").startswith(translate(msg("beyond top_k ({rank} > {top_k})", rank=7, top_k=5), "zh"))
    again = pickle.loads(pickle.dumps(lazy))
    assert again == eager and translate(again, "zh") == translate(eager, "zh")


def test_a_candidate_gives_text_and_keeps_its_reason_unformatted_until_read() -> None:
    dropped = lmsg("beyond chunk_top_k {top}", top=20)
    c = Candidate("c1", "chunk", {}, 0, lmsg("vector chunk #{rank} sim {sim}", rank=1, sim="0.900"), dropped=dropped)
    assert c.raw("dropped") is dropped and dropped._text is None  # nothing formatted yet
    assert limit_class(c.raw("dropped")) == COUNT and dropped._text is None  # classified by its template
    assert isinstance(c.dropped, Msg) and c.dropped == "beyond chunk_top_k 20"
    assert c.why == "vector chunk #1 sim 0.900"
    data = Retrieval("m", "q", {}, chunks=[c]).to_dict()["chunks"][0]
    assert data["why"] == "vector chunk #1 sim 0.900" and data["dropped"] == c.dropped
    assert json.loads(json.dumps(data)) == data
    for other in (copy.copy(c), pickle.loads(pickle.dumps(c)), reuse.copied(c), Candidate(**data)):
        assert other == c and other.why == c.why and translate(other.dropped, "zh") == translate(c.dropped, "zh")
    c.why = "set later"  # an assignment replaces the kept reason; a Reason assigned is read as text too
    c.dropped = lmsg("beyond top_k ({rank} > {top_k})", rank=9, top_k=8)
    assert c.why == c.raw("why") == "set later" and isinstance(c.dropped, Msg) and c.dropped == "beyond top_k (9 > 8)"
    assert Retrieval("m", "q", {}, chunks=[c]).to_dict()["chunks"][0]["dropped"] == "beyond top_k (9 > 8)"


def test_a_retrieval_classifies_its_drops_without_formatting_them() -> None:
    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    result = run_query(
        index,
        "nano.local",
        "How did the city respond to the flood?",
        {"top_k": 5, "local_max_token_for_local_context": 100},
    )
    raw = [c.raw("dropped") for kind in ("relations", "chunks") for c in result.candidates(kind) if not c.in_context]
    lazy = [r for r in raw if type(r) is Reason]
    assert lazy, "nano.local's budget drops are kept as data"
    found = limits(result)
    assert all(r._text is None for r in lazy), "binding read only the templates"
    assert any(lim.limit == BUDGET and lim.kind == "relations" and lim.binding for lim in found)
    assert [c.dropped for c in result.relations if not c.in_context][0].startswith("over budget")
