"""``ms.drift``: GraphRAG's DRIFT search (``DRIFTSearch.search``): its parameters and its mode.

Without a model the mode is ``model_free.primer_stage``: the expansion prompt, the ranking of the
reports by the question, the primer folds. With a model, ``rounds`` runs ``loop.run_loop`` (the query
service drives it: ``ModeSpec.stages``): the expansion, the primer answers, ``n_depth`` rounds of local
searches, the reduce prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from graphrag_ui.base.i18n import msg
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.ms.drift_search import rounds
from graphrag_ui.retrieval.ms.drift_search.model_free import PRIMER_READS, primer_prompts, primer_stage
from graphrag_ui.retrieval.ms.drift_search.params import MODE, SCHEMA, TYPING, VERSIONS
from graphrag_ui.retrieval.spec.model_stages import ModelRounds, ModelStages
from graphrag_ui.retrieval.spec.needs import Needs
from graphrag_ui.retrieval.spec.schema import Params

__all__ = ["MODE", "SPECS", "primer_prompts", "primer_stage", "run"]


def run(index: Index, query: str, params: Mapping[str, Any] | Params, deps: Deps) -> Retrieval:
    """The registry's entry: the primer stage without a model (ranking by the question). A sweep's steps
    that differ only in what the primer does not read are the same run, made once (``reuse.whole``)."""
    typed = TYPING.typed(params)
    out = Retrieval(mode=MODE, query=query, params=typed.as_dict())
    read = tuple(getattr(typed, name) for name in PRIMER_READS)
    return reuse.whole(
        ("ms.drift primer", id(index), query, read), out, lambda: primer_stage(index, query, typed, deps, out=out)
    )


SPECS = [
    replace(
        SCHEMA,
        func=run,
        # DRIFT ranks the reports by their full_content vectors, then runs local searches (ms.local's needs)
        needs=Needs(("communities", "entities"), reports="required", members=True),
        citation_style="graphrag",
        summary=msg(
            "Microsoft GraphRAG DRIFT search: a hypothetical answer ranks the community reports, primer calls "
            "ask follow-up questions, rounds of local searches answer them, a reduce combines the answers."
        ),
        reference="graphrag.drift:drift",
        # the expansion, the primer and the rounds ask the model while it retrieves: only when the caller asks
        stages=ModelStages(
            rounds=ModelRounds(rounds.run, on_request=True, ran=rounds.ran),
            wide_answer=True,  # the answer panel draws the question tree
        ),
    ).for_version(VERSIONS[0])
]
