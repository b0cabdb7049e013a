"""Run a question set over an ``EvalPlan``: every question × config, context only, scored by ``metrics``.

One job is one question with every config of the plan, so the question's LightRAG keywords are worked out
once (``resolve_keywords``: the question's own ``hl_keywords``/``ll_keywords``, else the model when
configured, else the offline extractor) and its embedding once (``query.run_query`` keeps question vectors),
then reused by every mode and step. The index is opened once by the caller.

The executor is pluggable: a function that maps a list of ``Job`` to their ``JobResult`` (in any order,
lazily). ``serial`` runs them here; ``processes`` spreads them over worker processes that each open the
index once (the same rows as the serial run, proven by a test); a cluster executor has the same shape.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.gc_pause import paused_gc
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.redact import redact
from graphrag_ui.base.timing import elapsed_ms, elapsed_s, now
from graphrag_ui.evaluation.gold import Question, QuestionSet
from graphrag_ui.evaluation.metrics import RowMetrics, evaluate
from graphrag_ui.evaluation.plan import Config, EvalPlan
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.registry import get_mode
from graphrag_ui.services.query import resolve_keywords, run_query

MAX_JOBS_ROWS = 200_000  # questions × configs of one run


@dataclass
class Job:
    """One question and every config to run it with."""

    number: int  # the question's place in the set (results are put back in this order)
    question: Question
    configs: list[Config]
    plan: EvalPlan


@dataclass
class JobResult:
    number: int
    rows: list[RowMetrics]
    errors: list[tuple[str, str]] = field(default_factory=list)  # (config key, what went wrong)


Executor = Callable[[list[Job]], Iterable[JobResult]]


@dataclass
class EvalRun:
    """An evaluation: the plan, one ``RowMetrics`` per question × config, what failed, how long it took."""

    set_name: str
    plan: EvalPlan
    configs: list[Config]
    rows: list[RowMetrics]
    errors: list[tuple[str, str, str]] = field(default_factory=list)  # (question id, config key, message)
    seconds: float = 0.0
    cancelled: bool = False
    questions: int = 0

    def rows_of(self, config: Config) -> list[RowMetrics]:
        return [r for r in self.rows if r.config == config]


def default_modes(index: Index) -> list[str]:
    """Every mode the index can run (``query_readiness``), but a context-free one (LightRAG's ``bypass``:
    it retrieves nothing)."""
    from graphrag_ui.services.readiness import CANNOT, readiness

    return [r.mode for r in readiness(index) if r.status != CANNOT and not get_mode(r.mode).context_free]


def question_keywords(index: Index, question: Question, configs: list[Config], llm_settings: Any = None) -> Any:
    """The LightRAG keywords of a question, worked out once for every config that uses them (None: none does)."""
    if not any(get_mode(c.mode).uses_keywords for c in configs):
        return None
    return resolve_keywords(index, question.question, question.hl_keywords, question.ll_keywords, llm_settings, [])


def retrieval_for(index: Index, question: Question, config: Config, plan: EvalPlan, keywords: Any = None) -> Retrieval:
    """The context-only ``Retrieval`` of one question at one config, as the run made it (the answer judge
    runs it again to answer from the same context)."""
    if keywords is None:
        keywords = question_keywords(index, question, [config])
    return run_query(index, config.mode, question.question, plan.params_for(config), keywords=keywords)


def run_job(index: Index, job: Job, llm_settings: Any = None) -> JobResult:
    """Run one question over its configs (keywords once, embedding once); a config that fails is an error
    row naming it, never a lost question."""
    q = job.question
    keywords = question_keywords(index, q, job.configs, llm_settings)
    rows, errors = [], []
    # the configs of one question share their vector rankings and unchanged stages (retrieval.core.reuse):
    # each step of a range costs its cut, not another retrieval; the collector stays off for the question
    with reuse.shared(), paused_gc():
        for config in run_order(job.configs):
            start = now()
            try:
                result = run_query(
                    index,
                    config.mode,
                    q.question,
                    job.plan.params_for(config),
                    keywords=keywords,
                    llm_settings=llm_settings,
                )
                row = evaluate(index, result, q, ms=elapsed_ms(start))
            except UserError as exc:
                errors.append((config.key, str(exc.message)))
                continue
            except Exception as exc:  # noqa: BLE001 - a bug in one mode (or in scoring it) must not lose the run
                what = msg(
                    "internal error {kind}: {error} (please report it)", kind=type(exc).__name__, error=redact(str(exc))
                )
                errors.append((config.key, str(what)))
                continue
            row.config = config
            rows.append(row)
    position = {c.key: i for i, c in enumerate(job.configs)}
    rows.sort(key=lambda row: position[row.config.key])
    errors.sort(key=lambda error: position[error[0]])
    return JobResult(job.number, rows, errors)


def run_order(configs: list[Config]) -> list[Config]:
    """The configs in the order a sweep runs them (``services.sweep``): each mode's widest integer step
    first, so that the narrower steps cut its gathers (``reuse.prefixed``) instead of gathering again; the
    rows go back to the plan's order after."""
    widest: dict[tuple[str, str, str], Config] = {}
    for config in configs:
        if isinstance(config.value, int) and not isinstance(config.value, bool):
            group = (config.mode, config.version, config.param)
            if group not in widest or config.value > widest[group].value:
                widest[group] = config
    first = set(widest.values())
    return [c for c in configs if c in first] + [c for c in configs if c not in first]


def serial(index: Index, llm_settings: Any = None) -> Executor:
    """Run jobs one after another in this process (lazily: a cancel stops before the next job)."""

    def run(jobs: list[Job]) -> Iterator[JobResult]:
        for job in jobs:
            yield run_job(index, job, llm_settings)

    return run


_WORKER_INDEX: Index | None = None


def _open_in_worker(path: str) -> None:
    """A worker's start: one BLAS thread, the index opened once, and that index kept out of the collector.

    The workers are the parallelism: numpy is loaded already in a forked worker, so setting
    ``OPENBLAS_NUM_THREADS`` there is too late, and each worker's own BLAS pool (one thread per core) would
    spin against the other workers for the same cores (threadpoolctl sets the loaded library's limit).
    ``gc.freeze`` after the load: the index's 10⁵–10⁶ objects are never garbage, and a collection that
    walks them after each job only costs time."""
    global _WORKER_INDEX
    from threadpoolctl import threadpool_limits

    from graphrag_ui.index.store_load import load

    threadpool_limits(1, "blas")
    _WORKER_INDEX = load(path)
    gc.collect()
    gc.freeze()


def _run_in_worker(job: Job) -> JobResult:
    assert _WORKER_INDEX is not None
    return run_job(_WORKER_INDEX, job)


def processes(index_path: str, workers: int = 2) -> Executor:
    """Run jobs on ``workers`` processes, each opening the index at ``index_path`` once (offline keywords:
    a model is never called from a worker). Results come back as they finish: a question's scores
    (``RowMetrics``), never its ``Retrieval`` objects."""

    def run(jobs: list[Job]) -> Iterator[JobResult]:
        with ProcessPoolExecutor(max_workers=workers, initializer=_open_in_worker, initargs=(index_path,)) as pool:
            pending = {pool.submit(_run_in_worker, job) for job in jobs}
            try:
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        yield future.result()
            finally:
                for future in pending:
                    future.cancel()

    return run


def run_evaluation(
    index: Index,
    questions: QuestionSet,
    plan: EvalPlan,
    *,
    executor: Executor | None = None,
    llm_settings: Any = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> EvalRun:
    """Run every question of ``questions`` over ``plan``; ``progress(done, total)`` counts rows (question ×
    config) after each question; ``cancelled()`` is asked between questions and keeps the rows done so far."""
    configs = plan.check(index)
    if not configs:
        raise UserError(msg("the evaluation runs no mode"), fix=msg("choose at least one mode"))
    total = len(questions.questions) * len(configs)
    if total > MAX_JOBS_ROWS:
        raise UserError(
            msg("{n} runs (questions × configs) is more than {limit}", n=f"{total:,}", limit=f"{MAX_JOBS_ROWS:,}"),
            fix=msg("use fewer questions, modes or steps"),
        )
    jobs = [Job(i, q, configs, plan) for i, q in enumerate(questions.questions)]
    run = executor or serial(index, llm_settings)
    start = now()
    results: list[JobResult] = []
    stopped = False
    iterator = iter(run(jobs))
    for result in iterator:
        results.append(result)
        if progress is not None:
            progress(len(results) * len(configs), total)
        if cancelled is not None and cancelled():
            stopped = len(results) < len(jobs)
            break
    close = getattr(iterator, "close", None)
    if close is not None:
        close()  # a generator executor: stop (and cancel) its pending work now
    results.sort(key=lambda r: r.number)
    by_number = {i: q.id for i, q in enumerate(questions.questions)}
    order = {c: i for i, c in enumerate(configs)}
    rows = [row for r in results for row in sorted(r.rows, key=lambda row: order[row.config])]
    errors = [(by_number[r.number], key, text) for r in results for key, text in r.errors]
    return EvalRun(questions.name, plan, configs, rows, errors, elapsed_s(start), stopped, len(results))
