"""DRIFT's whole run (``DRIFTSearch.search``), with the model calls handed in.

The retrieval layer never calls a model: ``run_loop`` gets ``ask(stage, requests) -> answers`` from the
caller (``rounds`` hands each request to the query service's driver, through the answer cache; the
golden test replays the scripted model) and does everything else as graphrag 3.3.0 does:

1. expansion: the HyDE prompt of ``model_free.primer_stage``; its answer re-ranks the reports ("" → the
   question, as GraphRAG);
2. primer: one call per fold; answers read by ``answers.read_primer``, combined by
   ``answers.combine_primer`` into the first question's answer, score and follow-ups;
3. ``n_depth`` rounds (``QueryState.rank_incomplete_actions``): the unanswered questions in graph
   order, shuffled by the same ``random.Random(seed)`` that drew the template (GraphRAG: the unseeded
   global ``random``), the first ``drift_k_followups`` run — each a local search built by ``ms.local``
   with DRIFT's local parameters and without ``ms.local``'s (empty) claims part, since DRIFT's engine
   has no covariates (``local_step``; fresh ``links`` per step; docs/differences/ms.md), its answer read
   by ``answers.read_action``; then each step's follow-ups join the graph in run order (a question
   already there gains an edge, not a node);
4. reduce: the answers of the graph's nodes, in node order, that are not empty, as the Python list
   GraphRAG formats into its reduce prompt; the prompt becomes the Retrieval's ``messages``, so the
   answer layer sends it like any mode's.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.base.i18n import msg
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import Candidate, Retrieval
from graphrag_ui.retrieval.core.stages import DONE, FAILED
from graphrag_ui.retrieval.core.tree import QuestionEdge, QuestionNode, QuestionTree
from graphrag_ui.retrieval.ms.drift_search import primer
from graphrag_ui.retrieval.ms.drift_search.answers import (
    QueryFailed,
    combine_primer,
    read_action,
    read_primer,
    read_primer_2x,
)
from graphrag_ui.retrieval.ms.drift_search.model_free import primer_prompts, primer_stage
from graphrag_ui.retrieval.ms.drift_search.params import TYPING
from graphrag_ui.retrieval.ms.global_search.community_context import level_reports
from graphrag_ui.retrieval.ms.local_search import search as ms_local
from graphrag_ui.retrieval.ms.prompts import drift_local_messages, drift_reduce_messages
from graphrag_ui.retrieval.spec.schema import Params

LOCAL_RESPONSE_TYPE = "multiple paragraphs"  # DRIFTSearch.init_local_search's LocalSearch
# Bounds GraphRAG does not have (docs/differences/ms.md): a reply listing 220k follow-ups (a string
# GraphRAG iterates character by character) made 20k tree nodes and 4.5 GB; past these the rest is
# left out and the tree's warnings say so. Real answers stay far below (the prompt asks for k or 5).
MAX_FOLLOW_UPS = 50  # per answer (the primer's folds together count as one answer)
MAX_NODES = 1000  # questions in one run's tree


@dataclass
class Request:
    label: str  # e.g. "expansion", "primer fold 2", "round 1 · question 7"
    messages: list[dict[str, str]]
    meta: dict[str, Any] = field(default_factory=dict)  # what the request is about (query, fold text, ...)


# (stage, requests) -> one raw answer per request, None when that call failed
Ask = Callable[[str, list[Request]], list[str | None]]


def local_params(params: Mapping[str, Any] | Params) -> dict[str, Any]:
    """``DRIFTSearch.init_local_search``'s context parameters, as ``ms.local`` names them."""
    params = TYPING.typed(params)
    return ms_local.SPECS[0].resolve(
        {
            "text_unit_prop": params.local_search_text_unit_prop,
            "community_prop": params.local_search_community_prop,
            "top_k_mapped_entities": params.local_search_top_k_mapped_entities,
            "top_k_relationships": params.local_search_top_k_relationships,
            "max_context_tokens": params.local_search_max_data_tokens,
            "include_entity_rank": True,
            "include_relationship_weight": True,
            "include_community_rank": False,
            "community_level": params.community_level,
            "response_type": LOCAL_RESPONSE_TYPE,
        }
    )


def local_step(
    index: Index, query: str, local: dict[str, Any], deps: Deps, *, links_state: dict[str, int] | None = None
) -> Retrieval:
    """One DRIFT local search (``DRIFTAction.search``): ``ms.local``'s context as the engine of
    ``get_drift_search_engine`` builds it, i.e. with no covariates, so no claims part after the relationships."""
    return ms_local.run(index, query, local, deps, links_state=links_state, claims=False)


class Graph:
    """``QueryState``'s MultiDiGraph: nodes by question (first insertion wins), edges in adjacency order."""

    def __init__(self, tree: QuestionTree) -> None:
        self.tree = tree
        self.by_query: dict[str, QuestionNode] = {}
        self.adjacent: dict[int, dict[int, int]] = {}  # source -> target -> number of edges

    def add(self, query: str, depth: int) -> QuestionNode:
        node = self.by_query.get(query)
        if node is None:
            node = QuestionNode(id=len(self.tree.nodes), query=query, depth=depth)
            self.tree.nodes.append(node)
            self.by_query[query] = node
        return node

    def follow(self, parent: QuestionNode, follow_ups: list[str], warnings: list[str]) -> None:
        """``follow_ups`` as ``parent``'s children, at most ``MAX_FOLLOW_UPS`` of them and ``MAX_NODES`` in all."""
        if len(follow_ups) > MAX_FOLLOW_UPS:
            warnings.append(
                msg(
                    "the answer to question #{id} listed {n} follow-up questions: only the first {cap} were kept",
                    id=parent.id,
                    n=len(follow_ups),
                    cap=MAX_FOLLOW_UPS,
                )
            )
            follow_ups = follow_ups[:MAX_FOLLOW_UPS]
        for i, text in enumerate(follow_ups):
            if text not in self.by_query and len(self.tree.nodes) >= MAX_NODES:
                warnings.append(
                    msg(
                        "the question tree reached {cap} questions: {n} follow-up(s) of question #{id} were left out",
                        cap=MAX_NODES,
                        n=len(follow_ups) - i,
                        id=parent.id,
                    )
                )
                return
            child = self.add(text, parent.depth + 1)
            row = self.adjacent.setdefault(parent.id, {})
            row[child.id] = row.get(child.id, 0) + 1

    def edges(self) -> list[QuestionEdge]:
        return [
            QuestionEdge(source, target)
            for source in sorted(self.adjacent)
            for target, n in self.adjacent[source].items()
            for _ in range(n)
        ]


def _reached(result: Retrieval, tree: QuestionTree) -> None:
    """The entities, relations and chunks any local step put in its context, each once, in the order the
    rounds reached them (the communities stay the primer's ranking): what DRIFT looked at, for tables,
    Compare and ``selected``."""
    steps = [tree.nodes[nid] for ids in tree.rounds for nid in ids]
    for kind in ("entities", "relations", "chunks"):
        seen: set[str] = set()
        out = result.candidates(kind)
        for node in steps:
            for c in (node.local or {}).get(kind, []):
                if not c["in_context"] or c["id"] in seen:
                    continue
                seen.add(c["id"])
                why = msg("reached by the local search of question #{id} (round {round})", id=node.id, round=node.round)
                out.append(
                    Candidate(
                        id=c["id"],
                        label=c["label"],
                        data=c["data"],
                        order=len(out),
                        why=why,
                        score=c["score"],
                        rank=c["rank"],
                        tokens=c["tokens"],
                    )
                )


def _fail(result: Retrieval, graph: Graph, note: str) -> Retrieval:
    result.tree = graph.tree
    graph.tree.edges = graph.edges()
    graph.tree.status, graph.tree.note = FAILED, note
    return result


def run_loop(index: Index, query: str, params: Mapping[str, Any] | Params, deps: Deps, ask: Ask) -> Retrieval:
    """The whole DRIFT run for ``query``; ``result.tree`` says how far it got and why it stopped."""
    params = TYPING.typed(params)
    result = primer_stage(index, query, params, deps)
    tree = result.tree = QuestionTree(seed=params.seed)
    graph = Graph(tree)
    root = graph.add(query, 0)
    if not result.messages:
        return _fail(result, graph, result.warnings[0] if result.warnings else msg("DRIFT could not start"))
    [expansion] = ask("expand", [Request("expansion", result.messages, {"query": query})])
    if expansion is None:
        return _fail(result, graph, msg("the expansion call failed: GraphRAG fails the query"))
    result = primer_stage(index, query, params, deps, expansion=expansion)
    result.tree, tree.expansion = tree, expansion
    if not any(c.in_context for c in result.communities):
        return _fail(result, graph, result.warnings[0] if result.warnings else msg("no report was ranked"))
    folds = primer_prompts(index, result)
    top = [index.community_by_id[c.id] for c in result.communities if c.in_context]
    texts = [primer.fold_text(f) for f in primer.split_folds(top, params.primer_folds)]
    requests = [
        Request(f"primer fold {i + 1}", m, {"query": query, "fold": t})
        for i, (m, t) in enumerate(zip(folds, texts, strict=True))
    ]
    answers = ask("primer", requests)
    if any(a is None for a in answers):
        return _fail(result, graph, msg("a primer call failed: GraphRAG fails the query"))
    read = read_primer_2x if params.version.startswith("2.") else read_primer
    try:
        root.answer, root.score, follow = combine_primer([read(a or "") for a in answers])
    except QueryFailed as exc:
        return _fail(result, graph, exc.args[0])
    if not all(isinstance(f, str) for f in follow):  # 2.x takes them; its graph then breaks in the next step
        return _fail(result, graph, msg("a primer follow-up question is not text: GraphRAG fails the query"))
    root.round, root.runs, root.call, root.follow_ups = 0, 1, "primer", follow
    graph.follow(root, follow, result.warnings)
    rng = random.Random(params.seed)
    rng.choice(level_reports(index, params.community_level))  # the template draw comes first
    local = local_params(params)
    k = params.drift_k_followups
    followups = 5 if params.version.startswith("2.") else k  # 2.x's prompt: "up to five"
    parts = [result.context]
    failed = asked = 0  # local calls that failed (GraphRAG reads them as empty answers), of all asked
    for epoch in range(1, params.n_depth + 1):
        pending = [n for n in tree.nodes if n.answer is None]
        if not pending:
            break
        rng.shuffle(pending)
        actions = pending[:k]
        steps = [local_step(index, a.query, local, deps) for a in actions]
        requests = [
            Request(
                f"round {epoch} · question {a.id}",
                drift_local_messages(s.context, a.query, query, followups, LOCAL_RESPONSE_TYPE),
                {"query": a.query, "global_query": query},
            )
            for a, s in zip(actions, steps, strict=True)
        ]
        for a, s in zip(actions, steps, strict=True):
            parts.append(f"=== DRIFT round {epoch} · question {a.id}: {a.query} ===\n{s.context}\n")
        answers = ask("local", requests)
        for a, s, r, text in zip(actions, steps, requests, answers, strict=True):
            try:
                read = read_action(text or "")  # GraphRAG reads a failed call as an empty answer
            except QueryFailed as exc:
                result.context = "".join(parts)
                return _fail(result, graph, exc.args[0])
            a.answer, a.score, a.follow_ups = read.answer, read.score, read.follow_ups
            a.round, a.runs, a.call, a.local = epoch, a.runs + 1, r.label, s.to_dict()
        for a in actions:
            graph.follow(a, a.follow_ups, result.warnings)
        tree.rounds.append([a.id for a in actions])
        failed += sum(1 for text in answers if text is None)
        asked += len(answers)
    if asked and failed == asked:  # GraphRAG would answer from the primer alone, saying nothing
        result.context = "".join(parts)
        return _fail(
            result,
            graph,
            msg(
                "every local search call failed ({n} in {rounds} round(s)): the answer would rest on the primer alone",
                n=asked,
                rounds=len(tree.rounds),
            ),
        )
    tree.edges = graph.edges()
    _reached(result, tree)
    answers_kept = [n.answer for n in tree.nodes if n.answer]
    tree.reduce_context = str(answers_kept)
    tree.reduce_messages = drift_reduce_messages(tree.reduce_context, query, params.response_type)
    parts.append(f"=== DRIFT reduce context · {len(answers_kept)} answer(s) ===\n{tree.reduce_context}\n")
    result.context = "".join(parts)
    result.messages = tree.reduce_messages
    tree.status = DONE
    tree.note = msg(
        "expansion, {folds} primer call(s) and {rounds} round(s) ran", folds=len(folds), rounds=len(tree.rounds)
    )
    return result
