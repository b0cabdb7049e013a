"""With a model (optional, never required): answer each row's question from its context, then judge the
answer's correctness against the reference answer and its faithfulness to the context.

Prompts are ours (``prompts_judge``, versioned). Before a run, ``estimate`` says how many calls, tokens
and dollars it will take (and how many are already cached). Every call goes through the answer cache:
the answer with ``llm.answer`` (its own key), each judgement keyed by prompt version, model and messages;
a second run, or one resumed after an interruption, calls the model only for what is missing. At most
``concurrency`` rows talk to the model at once. A judge reply that is not one JSON object with a known
verdict is *unreadable*: counted, shown, never cached, never a score.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.evaluation.gold import Question, QuestionSet
from graphrag_ui.evaluation.judge_prompts import JUDGE_PROMPT_VERSION, PROMPTS, judge_messages
from graphrag_ui.evaluation.plan import Config
from graphrag_ui.evaluation.runner import EvalRun, question_keywords, retrieval_for
from graphrag_ui.index.model import Index
from graphrag_ui.model_calls.answer import answer, answer_key, messages_for
from graphrag_ui.model_client import usage
from graphrag_ui.model_client.cache import LLMCache, args_hash, default_cache
from graphrag_ui.model_client.errors import LLMError
from graphrag_ui.model_client.settings import LLMSettings, scrub
from graphrag_ui.retrieval.core.result import Retrieval

MAX_REPLY_CHARS = 4000  # a judge reply longer than this is not read
MAX_CONCURRENCY = 16
ANSWER_TOKENS_GUESS = 400  # for the estimate: an answer's length before it exists
JUDGE_TOKENS_GUESS = 60
OK, UNREADABLE, FAILED, SKIPPED = "ok", "unreadable", "error", "skipped"


@dataclass
class Verdict:
    """One judgement: a score only when the reply was read."""

    status: str  # OK | UNREADABLE | FAILED | SKIPPED (no reference answer, no answer)
    score: float | None = None
    verdict: str = ""
    reason: str = ""  # the judge's sentence, or what went wrong
    cached: bool = False
    raw: str = ""  # the reply as it came (cut to MAX_REPLY_CHARS) when it could not be read


@dataclass
class Judgement:
    question_id: str
    config: Config
    answer: str
    answer_error: str = ""
    answer_cached: bool = False
    correctness: Verdict = field(default_factory=lambda: Verdict(SKIPPED))
    faithfulness: Verdict = field(default_factory=lambda: Verdict(SKIPPED))
    cost_usd: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)  # what ``score_answer`` measured (e.g. citations)


# the hook for answer scores that need no judge, e.g. citation precision / recall once citations are parsed:
# (answer text, the Retrieval it was written from) -> {name: value}
AnswerScorer = Callable[[str, Retrieval], dict[str, float]]


@dataclass
class Estimate:
    """What a judge run will cost, said before it starts."""

    rows: int
    calls: int  # model calls at most (answers + judgements)
    cached: int  # of which already answered in the cache (answers only: judgements depend on them)
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None  # None: the model has no price in litellm's map
    prompt_version: str = JUDGE_PROMPT_VERSION


def _rows(run: EvalRun, configs: list[Config] | None) -> list[tuple[str, Config]]:
    wanted = set(configs) if configs else None
    return [(r.question_id, r.config) for r in run.rows if wanted is None or r.config in wanted]


def _retrievals(index: Index, questions: QuestionSet, run: EvalRun, rows: list[tuple[str, Config]]) -> list[Retrieval]:
    by_id = {q.id: q for q in questions.questions}
    keywords: dict[str, Any] = {}
    out = []
    for qid, config in rows:
        q = by_id[qid]
        if qid not in keywords:
            keywords[qid] = question_keywords(index, q, [c for i, c in rows if i == qid])
        out.append(retrieval_for(index, q, config, run.plan, keywords[qid]))
    return out


def estimate(
    index: Index,
    questions: QuestionSet,
    run: EvalRun,
    settings: LLMSettings,
    configs: list[Config] | None = None,
    cache: LLMCache | None = None,
) -> tuple[Estimate, list[Retrieval]]:
    """Calls, tokens and cost of judging ``configs`` (default: every row); the retrievals come back for the run."""
    rows = _rows(run, configs)
    retrievals = _retrievals(index, questions, run, rows)
    store = cache or default_cache()
    by_id = {q.id: q for q in questions.questions}
    calls = cached = prompt = completion = 0
    for (qid, _), result in zip(rows, retrievals, strict=True):
        messages = messages_for(result)
        if store.get(answer_key(result, messages, settings)) is not None:
            cached += 1
        answer_prompt = usage.estimate_prompt_tokens(messages)
        judge_prompt = usage.estimate_tokens(result.context) + 2 * (300 + ANSWER_TOKENS_GUESS)
        n_judge = 2 if by_id[qid].answer.strip() else 1
        calls += 1 + n_judge
        prompt += answer_prompt + judge_prompt
        completion += ANSWER_TOKENS_GUESS + n_judge * JUDGE_TOKENS_GUESS
    cost = usage.cost_usd(settings.model, prompt, completion)
    return Estimate(len(rows), calls, cached, prompt, completion, cost), retrievals


_OBJECT = re.compile(r"\{.*\}", re.S)


def read_verdict(kind: str, text: str) -> Verdict:
    """A judge reply read strictly: one JSON object (a ```json fence allowed) whose ``verdict`` is one of the
    prompt's; anything else is UNREADABLE with the reply kept for the reader."""
    verdicts = PROMPTS[kind][2]
    shown = text[:MAX_REPLY_CHARS]
    found = _OBJECT.search(text) if len(text) <= MAX_REPLY_CHARS else None
    try:
        data = json.loads(found.group(0)) if found else None
    except (json.JSONDecodeError, RecursionError):
        data = None
    verdict = str(data.get("verdict", "")).strip().lower() if isinstance(data, dict) else ""
    if verdict not in verdicts:
        return Verdict(UNREADABLE, reason=msg("the judge's reply holds no known verdict"), raw=shown)
    reason = data.get("reason")
    return Verdict(OK, verdicts[verdict], verdict, str(reason)[:500] if isinstance(reason, str) else "")


def _judge(kind: str, messages: list[dict[str, str]], settings: LLMSettings, store: LLMCache) -> tuple[Verdict, float]:
    key = args_hash(
        kind="judge", version=JUDGE_PROMPT_VERSION, judge=kind, model=settings.identity(), messages=messages
    )
    hit = store.get(key)
    if hit is not None and isinstance(hit.get("text"), str):
        verdict = read_verdict(kind, hit["text"])
        if verdict.status == OK:
            verdict.cached = True
            return verdict, 0.0
    from graphrag_ui.model_client import client

    try:
        result = client.call(messages, settings)
    except LLMError as exc:
        return Verdict(FAILED, reason=scrub(exc.message, settings)), 0.0
    verdict = read_verdict(kind, result.text or "")
    if verdict.status == OK and result.finish_reason != "length":  # only a read verdict is kept
        store.put(key, "judge", settings.model, {"text": result.text})
    return verdict, result.cost_usd or 0.0


def _one(
    question: Question,
    config: Config,
    result: Retrieval,
    settings: LLMSettings,
    store: LLMCache,
    score_answer: AnswerScorer | None = None,
) -> Judgement:
    reply = answer(result, settings, stream=False, cache=store)
    out = Judgement(question.id, config, reply.text, answer_cached=reply.cached, cost_usd=reply.cost_usd or 0.0)
    if score_answer is not None and reply.text.strip() and not reply.error:
        out.extra = dict(score_answer(reply.text, result))
    if reply.error or not reply.text.strip():
        out.answer_error = reply.error or msg("the model returned an empty answer")
        out.correctness = Verdict(FAILED, reason=out.answer_error)
        out.faithfulness = Verdict(FAILED, reason=out.answer_error)
        return out
    if question.answer.strip():
        messages = judge_messages(
            "correctness", question=question.question, reference=question.answer, answer=reply.text
        )
        out.correctness, cost = _judge("correctness", messages, settings, store)
        out.cost_usd += cost
    else:
        out.correctness = Verdict(SKIPPED, reason=msg("the question has no reference answer"))
    messages = judge_messages("faithfulness", context=result.context, question=question.question, answer=reply.text)
    out.faithfulness, cost = _judge("faithfulness", messages, settings, store)
    out.cost_usd += cost
    return out


def judge_run(
    index: Index,
    questions: QuestionSet,
    run: EvalRun,
    settings: LLMSettings,
    *,
    configs: list[Config] | None = None,
    retrievals: list[Retrieval] | None = None,
    concurrency: int = 4,
    cache: LLMCache | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    score_answer: AnswerScorer | None = None,
) -> list[Judgement]:
    """Answer and judge every row of ``configs`` (default: all); see the module docstring. ``score_answer``
    adds model-free scores of each answer to ``Judgement.extra`` (the place for citation precision / recall)."""
    if not settings.configured:
        raise UserError(
            msg("judging answers needs a model, and none is configured"),
            fix=msg("set GRAPHRAG_UI_LLM_MODEL (and its key), or run without the judge"),
        )
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise UserError(msg("concurrency must be between 1 and {limit}, got {n}", limit=MAX_CONCURRENCY, n=concurrency))
    rows = _rows(run, configs)
    if retrievals is None:
        retrievals = _retrievals(index, questions, run, rows)
    store = cache or default_cache()
    by_id = {q.id: q for q in questions.questions}
    out: list[Judgement] = []
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        pending = []
        for (qid, config), result in zip(rows, retrievals, strict=True):
            pending.append(pool.submit(_one, by_id[qid], config, result, settings, store, score_answer))
        for future in pending:  # in row order
            if cancelled is not None and cancelled():
                for rest in pending:
                    rest.cancel()
                break
            out.append(future.result())
            if progress is not None:
                progress(len(out), len(rows))
    return out


def summary(judgements: list[Judgement]) -> dict[str, dict[str, Any]]:
    """Per judgement kind: mean score over the read ones and the counts of each status."""
    out = {}
    for kind in ("correctness", "faithfulness"):
        verdicts = [getattr(j, kind) for j in judgements]
        scores = [v.score for v in verdicts if v.status == OK and v.score is not None]
        counts = {s: sum(v.status == s for v in verdicts) for s in (OK, UNREADABLE, FAILED, SKIPPED)}
        out[kind] = {"mean": sum(scores) / len(scores) if scores else None, **counts}
    return out
