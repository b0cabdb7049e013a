"""Run one retrieval the way the CLI, the batch runner and the app all do.

This is the glue above the pure modes: it picks the query embedder from the index manifest (and
refuses a mismatch, by id or by vector dimension), resolves LightRAG keywords (user → LLM →
offline), times the query embedding apart from the context build, and returns the mode's
``Retrieval``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphrag_ui.base.errors import EmbedderMismatchError, UserError
from graphrag_ui.base.gc_pause import paused_gc
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.timing import elapsed_ms, now, to_microsecond
from graphrag_ui.embedding.embed import check_compatible, get_embedder
from graphrag_ui.embedding.embed_checks import question_rows
from graphrag_ui.index.model import Index
from graphrag_ui.index.servers import vector_server
from graphrag_ui.retrieval.core import vector_engine
from graphrag_ui.retrieval.core.candidates import made_rows
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import KINDS, Keywords, Retrieval
from graphrag_ui.retrieval.registry import find_mode, get_mode
from graphrag_ui.retrieval.spec.param_intake import Intake, take
from graphrag_ui.retrieval.spec.schema import ModeSpec, ParamSpec
from graphrag_ui.services.question_notes import question_warnings
from graphrag_ui.services.readiness import embeds_question, mode_readiness


def index_dimension(index: Index) -> int:
    """The width of the index's stored vectors (the manifest's, when it has no vectors)."""
    for table in index.vectors.values():
        if table.width:  # read without reading (or first-read checking) the matrix's rows
            return table.width
    return int(index.manifest.dimension or 0)


def _check_dimension(index: Index, embedder_id: str, dim: int) -> None:
    want = index_dimension(index)
    if dim and want and dim != want:
        raise EmbedderMismatchError(
            msg(
                "the index's vectors have {want} dimensions (embedder {embedder}) but the query embedder "
                "{embedder_id} makes {dim}",
                want=want,
                embedder=repr(index.manifest.embedder),
                embedder_id=repr(embedder_id),
                dim=dim,
            ),
            fix=msg(
                "query with the embedder that made the index, or re-embed it: "
                "`python -m graphrag_ui reembed INDEX_DIR --embedder {embedder_id}`",
                embedder_id=embedder_id,
            ),
        )


def query_embedder_id(index: Index, override: str | None = None) -> str:
    """The embedder a query must use: the index's own, unless the caller insists on another.

    An imported index whose manifest says ``unknown`` accepts an explicit override (the user
    knows what built the source); the vector width is still checked when the query is embedded.
    """
    wanted = override or index.manifest.embedder
    if not (override and index.manifest.embedder == "unknown"):
        check_compatible(index.manifest.embedder, wanted)
    return wanted


def resolve_keywords(
    index: Index,
    query: str,
    hl: list[str] | None,
    ll: list[str] | None,
    llm_settings: Any = None,
    warnings: list[str] | None = None,
) -> Keywords:
    """User keywords win; otherwise the LLM (when configured) or the offline extractor.

    Notices (offline extraction, a failed model call) are appended to ``warnings``.
    """
    from graphrag_ui.model_calls import keywords as kw

    return kw.extract_keywords(query, index=index, settings=llm_settings, user_hl=hl, user_ll=ll, warnings=warnings)


# question vectors by (embedder, texts): every slider move of the tuning loop embeds the same question,
# and an API embedder would be called (and billed) each time. Embedders are deterministic.
_EMBEDDED: dict[tuple[str, tuple[str, ...]], np.ndarray] = {}
EMBEDDED_KEPT = 256


def run_query(
    index: Index,
    mode: str,
    query: str,
    params: dict[str, Any] | None = None,
    *,
    hl: list[str] | None = None,
    ll: list[str] | None = None,
    keywords: Keywords | None = None,
    llm_settings: Any = None,
    embedder: str | None = None,
    model_stages: bool = False,
    use_cache: bool = True,
    on_progress: Any = None,
) -> Retrieval:
    """Resolve parameters and keywords, run ``mode`` and record where the time went.

    ``params`` may be the reference's whole parameter object (``param_intake``): fields this mode
    does not use are named in the warnings, answer-side fields land in ``answer_options``.
    ``model_stages``: a mode whose retrieval asks the model only on request (``ModelRounds.on_request``)
    runs those calls with ``llm_settings`` (through the answer cache unless ``use_cache`` is off;
    ``on_progress(stage, done, total)``); otherwise it returns what it builds without a model."""
    prepared = prepare_query(
        index, mode, query, params, hl=hl, ll=ll, keywords=keywords, llm_settings=llm_settings, embedder=embedder
    )
    return prepared.run(model_stages=model_stages, use_cache=use_cache, on_progress=on_progress)


@dataclass
class Prepared:
    """One question taken in for one mode: its parameters checked, its text checked, its embedder and
    keywords resolved and its notes said — everything ``run_query`` does before the retrieval. A sweep
    prepares once and moves one parameter per step (``at``): each step is then the retrieval alone."""

    index: Index
    mode: str
    query: str
    given: dict[str, Any]  # the parameters as given (``take``'s input)
    spec: ModeSpec
    intake: Intake
    hl: list[str] | None
    ll: list[str] | None
    keywords: Keywords | None
    notes: list[str]  # the index's problems, the intake's and the question's warnings, the keywords' notices
    kw_ms: float
    embedder: str | None
    llm_settings: Any
    embedding: dict[str, Any]  # the query embedder, once resolved and checked
    # text -> its vector as ``Deps.vector`` made it: shared by ``at``'s copies, so a sweep's later steps embed
    # nothing (the same question and embedder: the vector a step would get from ``_EMBEDDED`` again)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)

    @functools.cached_property
    def _movable(self) -> dict[str, ParamSpec]:
        """The parameters a step may move by checking its value alone: the numbers of the settled release, given
        by no other name (an alias of one, which ``take`` refuses when it differs). Made on a sweep's first
        move (a single run does not settle twice) and kept by ``at``'s copies."""
        aliased = {target for given, target in self.intake.names.items() if given != target}
        return {
            p.name: p
            for p in self.spec.settle(self.given, self.index).params
            if p.type in {"int", "float"} and p.name not in aliased
        }

    def at(self, name: str, value: Any) -> Prepared:
        """The same question with parameter ``name`` at ``value``: what ``prepare_query`` with
        ``{**given, name: value}`` returns. Only that value is checked (by its ``ParamSpec``, as ``take``
        checks it) when nothing else can depend on it (``_movable``); otherwise the whole intake again."""
        found = self._movable.get(name)
        if found is None or value is None:
            return prepare_query(
                self.index,
                self.mode,
                self.query,
                {**self.given, name: value},
                hl=self.hl,
                ll=self.ll,
                keywords=self.keywords,
                llm_settings=self.llm_settings,
                embedder=self.embedder,
            )
        # shallow copies of the two objects (a step per 0.1 ms: no replace(), no copy.copy's reduce protocol)
        intake = object.__new__(Intake)
        intake.__dict__ = {**self.intake.__dict__, "params": {**self.intake.params, name: found.coerce(value)}}
        moved = object.__new__(Prepared)
        moved.__dict__ = {**self.__dict__, "given": {**self.given, name: value}, "intake": intake}
        return moved

    def run(self, *, model_stages: bool = False, use_cache: bool = True, on_progress: Any = None) -> Retrieval:
        """The retrieval itself, timed apart from the question's embedding (see ``run_query``)."""
        index, spec, resolved, embedding = self.index, self.spec, self.intake.params, self.embedding
        embed_ms = 0.0

        def timed_embed(texts: list[str]) -> np.ndarray:
            nonlocal embed_ms
            model = _embed_model(index, self.embedder, embedding)
            # one model name may be served by two endpoints (another GRAPHRAG_UI_EMBED_API_BASE): both key it
            key = (embedding["id"], getattr(model, "api_base", None), tuple(texts))
            rows = _EMBEDDED.get(key)
            if rows is None:
                start = now()
                try:
                    # a NaN, 1e300, all-zero or wrong-width question vector is refused, never searched with
                    # (the width is _check_dimension's: it names the embedder that would fit)
                    rows = question_rows(model.embed, texts, embedding["id"])
                finally:
                    embed_ms += elapsed_ms(start)
            # an API embedder only knows its width after the first call; a kept vector is checked too
            if rows.ndim == 2:
                _check_dimension(index, embedding["id"], rows.shape[1])
            if key in _EMBEDDED:  # the same question again (a slider move): the same vector
                return rows
            rows.setflags(write=False)
            _EMBEDDED[key] = rows
            while len(_EMBEDDED) > EMBEDDED_KEPT:
                _EMBEDDED.pop(next(iter(_EMBEDDED)))
            return rows

        keywords = (self.keywords or Keywords()) if spec.uses_keywords else Keywords()
        deps = Deps(embed=timed_embed, keywords=keywords, cache=self.vectors)
        start = now()
        # a retrieval makes 10⁵ candidates, reasons and rows at 100k entities and no reference cycle: with the
        # collector on, its repeated collections were half a nano.local query's time (1.1 s → 0.5 s, measured)
        with vector_server.recording() as searches, paused_gc():
            if spec.stages is not None and spec.stages.rounds is not None:
                # a mode that asks the model while it retrieves (its declared rounds); without a model, its plain func
                from graphrag_ui.model_calls.model_rounds import retrieve_with_model

                result = retrieve_with_model(
                    spec,
                    index,
                    self.query,
                    resolved,
                    deps,
                    self.llm_settings,
                    model_stages=model_stages,
                    use_cache=use_cache,
                    on_progress=on_progress,
                )
            else:
                result = spec.func(index, self.query, resolved, deps)
        total_ms = elapsed_ms(start)
        if searches:
            vector_engine.mark(result, searches)
        result.timings_ms.update(
            {
                "keywords": to_microsecond(self.kw_ms),
                "embed": to_microsecond(embed_ms),
                "context": to_microsecond(total_ms - embed_ms),
            }
        )
        # the index's problems again: a vector table's first read (``model.CheckedOnRead``) may have added some
        for note in self.notes + list(getattr(index, "problems", [])) + nothing_found(index, self.mode, result, spec):
            if note not in result.warnings:
                result.warnings.append(note)
        result.answer_options = self.intake.answer
        return result


def _embed_model(index: Index, override: str | None, embedding: dict[str, Any]) -> Any:
    """The query embedder, resolved and checked on first use (kept in ``embedding``): a mode that never embeds
    the question runs on an index whose embedder is unknown or another one."""
    if not embedding:
        embedder_id = query_embedder_id(index, override)
        model = get_embedder(embedder_id)
        _check_dimension(index, embedder_id, int(getattr(model, "dim", 0) or 0))
        embedding.update(model=model, id=embedder_id)
    return embedding["model"]


def prepare_query(
    index: Index,
    mode: str,
    query: str,
    params: dict[str, Any] | None = None,
    *,
    hl: list[str] | None = None,
    ll: list[str] | None = None,
    keywords: Keywords | None = None,
    llm_settings: Any = None,
    embedder: str | None = None,
) -> Prepared:
    """Everything ``run_query`` checks and resolves before the retrieval, in its order (the same first
    error): the parameters, the keywords given twice, the question's and keywords' text, the embedder,
    the notes, the keywords."""
    spec = get_mode(mode)
    intake = take(spec, params, index)
    resolved = intake.params
    hl = _keywords_once("hl", hl, intake.hl)
    ll = _keywords_once("ll", ll, intake.ll)
    if not isinstance(query, str):
        raise UserError(msg("the question must be text, got {kind}", kind=type(query).__name__))
    check_text(query, msg("question"))
    for kind, words in (("hl", hl), ("ll", ll)):
        for word in words or []:
            check_text(word, msg("{kind} keyword", kind=kind))
    for name, value in (params or {}).items():
        if isinstance(value, str):
            check_text(value, msg("parameter {name}", name=name))
    embedding: dict[str, Any] = {}
    if embeds_question(mode) and resolved.get("recall", "vector") != "ilike":
        _embed_model(index, embedder, embedding)  # refuse before any keyword call
    notes = (
        list(getattr(index, "problems", []))
        + intake.warnings
        + question_warnings(index, query, by_name=any(p.name == "recall" for p in spec.params))
    )
    kw_ms = 0.0
    if spec.uses_keywords and keywords is None:
        start = now()
        keywords = resolve_keywords(index, query, hl, ll, llm_settings, notes)
        kw_ms = elapsed_ms(start)
    elif not spec.uses_keywords and (hl or ll):
        notes.append(msg("mode {mode} does not use keywords: the given hl/ll keywords were ignored", mode=mode))
    given = dict(params or {})
    return Prepared(
        index, mode, query, given, spec, intake, hl, ll, keywords, notes, kw_ms, embedder, llm_settings, embedding
    )


_SURROGATE = re.compile("[\ud800-\udfff]")


def check_text(text: str, name: str) -> None:
    """Text is valid Unicode: a byte that is not UTF-8 on the command line (Python keeps it as a lone
    surrogate) or a lone surrogate escaped in JSON (``"\\ud800"``) is a ``UserError`` naming it, not a
    traceback later in a tokenizer, an encoder or a database driver."""
    found = _SURROGATE.search(text) if isinstance(text, str) else None
    if found is None:
        return
    char, at = found.group(), found.start()
    escaped = char.encode("unicode_escape").decode("ascii")  # \ud800, as JSON writes it
    if "\udc80" <= char <= "\udcff":  # surrogateescape: the byte the command line could not decode
        what = msg(
            "the {name} is not valid UTF-8 (byte 0x{byte} at character {at})",
            name=name,
            byte=f"{ord(char) - 0xDC00:02x}",
            at=at,
        )
    else:
        what = msg(
            "the {name} holds a lone surrogate {char} at character {at}: not valid Unicode",
            name=name,
            char=escaped,
            at=at,
        )
    raise UserError(
        what, fix=msg("give the text as UTF-8 (check the terminal's, the file's or the program's encoding)")
    )


def nothing_found(index: Index, mode: str, result: Retrieval, spec: ModeSpec | None = None) -> list[str]:
    """When a mode put nothing into its context, the index's own reasons (no text, no communities,
    no vectors), so the reader is not left to suspect the threshold. ``spec``: the mode's, when the caller
    holds it (a sweep's step asks once per step)."""
    spec = spec or find_mode(mode)
    if spec is not None and spec.context_free:
        return []
    for kind in KINDS:
        for c in made_rows(result.candidates(kind)):
            if c.in_context:
                return []
    reasons = mode_readiness(index, mode).reasons
    if result.params.get("recall") == "ilike":  # it ran by name already: no advice to switch, no embedder asked
        reasons = [r for r in reasons if not _about_embedding(r)]
    return [msg("{mode} found nothing: {reason}", mode=mode, reason=r) for r in reasons]


def _about_embedding(reason: str) -> bool:
    template = getattr(reason, "template", str(reason))
    return "recall = ilike" in template or template.startswith("{mode} embeds the question")


def _keywords_once(kind: str, given: list[str] | None, in_params: list[str] | None) -> list[str] | None:
    """Keywords given beside the parameters and inside them (``hl_keywords``) must agree."""
    if given and in_params and list(given) != list(in_params):
        raise UserError(
            msg(
                "{kind} keywords given twice and different: {given} and {kind2}_keywords={in_params}",
                kind=kind,
                given=str(given),
                kind2=kind,
                in_params=str(in_params),
            ),
            fix=msg("give them once"),
        )
    return given or in_params
