"""Evaluation throughput and the sweep ratio on a synthetic index (prints numbers; not a test).

    .venv/bin/python scripts/bench_eval.py [--entities 10000] [--questions 100] [--steps 16] [--workers 2]
                                           [--sample 3] [--cache /tmp/bench_retrieval]
                                           [--sweeps-only] [--modes nano.local ...]

The index is scripts/make_synthetic_index.py's (every family's modes run on it), cached under --cache as
bench_retrieval does; each question names one entity (its gold) and carries explicit LightRAG keywords.
The plan is issue 30's: every context mode the index can run (12: all but lightrag.bypass) × ``--steps``
values of top_k (5, 10, …), each mode's own name for it (ms.local top_k_mapped_entities, ms.basic k,
ms.drift local_search_top_k_mapped_entities, nano.global global_max_consider_community; ms.global has
none and runs once per question, as the plan notes say). Printed, with the machine's load:

* one-at-a-time: ``run_query`` per retrieval on the open index, keywords resolved each time — what a
  script calling ``query`` in a loop does, without the process start — on ``--sample`` questions;
* the runner, serial and on ``--workers`` processes (keywords and embedding once per question, the
  vector rankings and unchanged stages shared across the steps, ``retrieval.core.reuse``): retrievals per
  second, the ratio to one-at-a-time, the time for all questions and for issue 30's 100 × 12 × 16 goal;
* per CPU-second (this process and its workers' CPU time): the rate a loaded machine cannot blur, and
  the 100 × 12 × 16 time it gives on cores free of other work (serial: one core; processes: ``--workers``);
* the sweep ratio per mode: a ``--steps``-step ``run_sweep`` over that parameter ÷ one retrieval at the
  mode's defaults, and ÷ one retrieval at the sweep's widest step (every step costs at most that one);
  in CPU time (the least of ``REPEAT`` calls, each from a clean collector; medians over the sample
  questions; goal ≤ 3); bare (what the Sweep view reads: each step's summary) and scored (every step's
  ``Retrieval`` read whole by ``evaluate``, as an evaluation reads it, ÷ one scored retrieval); then the
  same for a token-budget sweep (``BUDGETS``: the mode's budget from 1/16 to all of four times its
  default). ``--sweeps-only`` prints only these, ``--modes`` for some modes.
"""

from __future__ import annotations

import argparse
import functools
import gc
import math
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

import bench_retrieval as br  # noqa: E402  (the cached synthetic index and its questions)

from graphrag_ui.evaluation.gold import Question, QuestionSet  # noqa: E402
from graphrag_ui.evaluation.metrics import evaluate  # noqa: E402
from graphrag_ui.evaluation.plan import EvalPlan  # noqa: E402
from graphrag_ui.evaluation.runner import default_modes, processes, run_evaluation  # noqa: E402
from graphrag_ui.retrieval.registry import get_mode  # noqa: E402
from graphrag_ui.services.query import run_query  # noqa: E402
from graphrag_ui.services.sweep import run_sweep  # noqa: E402

OWN_NAMES = {
    "ms.local": "top_k_mapped_entities",
    "ms.basic": "k",
    "ms.drift": "local_search_top_k_mapped_entities",
    "nano.global": "global_max_consider_community",
}
# each mode's token budget a budget sweep varies (a sweep that gathers once and cuts per step)
BUDGETS = {
    "nano.local": "local_max_token_for_local_context",
    "nano.naive": "naive_max_token_for_text_unit",
    "lightrag.local": "max_total_tokens",
    "lightrag.global": "max_total_tokens",
    "lightrag.hybrid": "max_total_tokens",
    "lightrag.mix": "max_total_tokens",
    "lightrag.naive": "max_total_tokens",
    "ms.local": "max_context_tokens",
    "ms.basic": "max_context_tokens",
}
GOAL_RETRIEVALS, GOAL_SECONDS = 100 * 12 * 16, 300.0
REPEAT = 3  # calls per measurement of the sweep ratios


def load() -> str:
    return os.getloadavg()[0].__format__(".1f")


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the workers): on a machine shared with other
    work, the wall clock says how busy the others were; the CPU time what the evaluation itself cost."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def questions_of(index, n: int) -> QuestionSet:
    cases = br.synthetic_cases(index, n)
    made = [
        Question(
            f"q{i}",
            query,
            evidence_entities=[query.split(" about ", 1)[1].rsplit(" and its", 1)[0]],
            hl_keywords=hl,
            ll_keywords=ll,
        )
        for i, (query, hl, ll) in enumerate(cases)
    ]
    return QuestionSet("synthetic", made)


def one_at_a_time(index, questions: QuestionSet, plan: EvalPlan) -> tuple[int, float]:
    configs = plan.check(index)
    start, n = time.perf_counter(), 0
    for q in questions.questions:
        for config in configs:
            run_query(index, config.mode, q.question, plan.params_for(config), hl=q.hl_keywords, ll=q.ll_keywords)
            n += 1
    return n, time.perf_counter() - start


def budget_values(mode: str, steps: int) -> list[int]:
    """``steps`` values of the mode's budget (``BUDGETS``), evenly from 1/``steps`` to 4× its default."""
    default = next(p.default for p in get_mode(mode).params if p.name == BUDGETS[mode])
    return [4 * default * (i + 1) // steps for i in range(steps)]


def cpu_time(run: Callable[..., Any], *args: Any, **kwargs: Any) -> float:
    """The least CPU time of ``REPEAT`` calls, each from a clean collector (none pays for the garbage of
    another; the least: what the call costs, without what the machine's other work added to it)."""
    best = math.inf
    for _ in range(REPEAT):
        gc.collect()
        start = time.process_time()
        run(*args, **kwargs)
        best = min(best, time.process_time() - start)
    return best


def sweep_ratios(index, questions: QuestionSet, modes: list[str], values: list[int], budget: bool = False) -> list[str]:
    """Per mode: one retrieval (at the defaults, at the widest step) and the sweep, in CPU time (a loaded
    machine blurs the wall clock), bare (what the Sweep view reads: its ``Step`` summaries) and scored
    (each step's ``Retrieval`` read whole by ``evaluate``, as an evaluation reads it, beside one scored run)."""
    lines = []
    for mode in modes:
        spec = get_mode(mode)
        param = BUDGETS.get(mode, "") if budget else OWN_NAMES.get(mode, "top_k")
        if param not in {p.name for p in spec.params}:
            continue
        values = budget_values(mode, len(values)) if budget else values
        one, widest, swept, one_scored, swept_scored = [], [], [], [], []
        for q in questions.questions:
            kw = {"hl": q.hl_keywords, "ll": q.ll_keywords} if spec.uses_keywords else {}
            run_query(index, mode, q.question, {param: max(values)}, **kw)  # warm: the vector, token counts
            single = functools.partial(run_query, index, mode, q.question, **kw)
            sweep = functools.partial(run_sweep, index, mode, q.question, {}, param, values, **kw)
            one.append(cpu_time(single, {}))
            widest.append(cpu_time(single, {param: max(values)}))
            one_scored.append(cpu_time(lambda s=single, q=q: evaluate(index, s({}), q)))
            swept.append(cpu_time(sweep))
            swept_scored.append(cpu_time(sweep, on_step=lambda v, r, q=q: evaluate(index, r, q)))
        a, w, b, sa, sb = (statistics.median(x) * 1000 for x in (one, widest, swept, one_scored, swept_scored))
        lines.append(
            f"| {mode} | {param} | {a:.1f} | {w:.1f} | {b:.1f} | {b / a:.1f} | {b / w:.1f} | {sa:.1f} | {sb:.1f} | {sb / sa:.1f} | {load()} |"
        )
    return lines


SWEEP_HEADER = (
    "| mode | parameter | one ms (defaults) | one ms (widest step) | sweep ms | ratio to defaults | ratio to widest "
    "| scored: one ms | scored: sweep ms | scored: ratio | load |\n|---|---|---|---|---|---|---|---|---|---|---|"
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entities", type=int, default=10_000)
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--sample", type=int, default=3, help="questions for one-at-a-time and the sweep ratios")
    ap.add_argument("--cache", default="/tmp/bench_retrieval")
    ap.add_argument("--sweeps-only", action="store_true", help="only the sweep ratios (not the evaluation's rate)")
    ap.add_argument("--modes", nargs="*", help="the sweep ratios of these modes only")
    args = ap.parse_args()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    index, load_s = br.synthetic_index(args.entities, cache)
    folder = str(cache / f"synthetic-{args.entities}")
    values = [5 * (i + 1) for i in range(args.steps)]
    modes = default_modes(index)
    plan = EvalPlan(modes, "top_k", values, param_names={m: n for m, n in OWN_NAMES.items() if m in modes})
    questions = questions_of(index, args.questions)
    sample = QuestionSet("sample", questions.questions[: args.sample])
    print(
        f"{args.entities // 1000}k entities ({load_s:.1f} s to load), {len(modes)} modes × {args.steps} steps; load {load()}"
    )

    if not args.sweeps_only:
        throughput(index, folder, questions, sample, plan, args.workers)
    print(
        f"\nsweep ratio ({args.steps} steps ÷ one retrieval, CPU time, medians of {args.sample} questions; goal ≤ 3):"
    )
    print(SWEEP_HEADER)
    swept = [m for m in modes if not args.modes or m in args.modes]
    print("\n".join(sweep_ratios(index, sample, swept, values)))
    print("\n".join(sweep_ratios(index, sample, swept, values, budget=True)))
    print(f"load {load()}")
    return 0


def throughput(index, folder: str, questions: QuestionSet, sample: QuestionSet, plan: EvalPlan, workers: int) -> None:
    """The evaluation's rate: one-at-a-time ``run_query`` against the runner, serial and on processes."""
    cpu_base = cpu_seconds()
    n, seconds = one_at_a_time(index, sample, plan)
    cpu_base = cpu_seconds() - cpu_base
    base = n / seconds
    print(f"one-at-a-time run_query: {n} retrievals in {seconds:.1f} s = {base:.0f}/s (load {load()})")
    rows = []
    for name, executor in (("serial", None), (f"{workers} processes", processes(folder, workers))):
        cpu = cpu_seconds()
        got = run_evaluation(index, questions, plan, executor=executor)
        cpu = cpu_seconds() - cpu
        rate, per_cpu = len(got.rows) / got.seconds, len(got.rows) / cpu
        goal = GOAL_RETRIEVALS / rate
        cores = 1 if executor is None else min(workers, os.cpu_count() or 1)
        rows.append(
            f"| runner, {name} | {len(got.rows):,} | {got.seconds:.1f} s | {rate:.0f}/s | {rate / base:.1f}× "
            f"| {goal:.0f} s {'≤' if goal <= GOAL_SECONDS else '>'} {GOAL_SECONDS:.0f} s | {per_cpu:.0f}/s "
            f"| {GOAL_RETRIEVALS / per_cpu / cores:.0f} s | {load()} |"
        )
        print(rows[-1], flush=True)
    print(
        "\n| how | retrievals | time | per second | vs one-at-a-time | 100 × 12 × 16 at this rate "
        "| per CPU-second | 100 × 12 × 16 on free cores | load |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    print(
        f"| one-at-a-time run_query | {n:,} | {seconds:.1f} s | {base:.0f}/s | 1.0× | {GOAL_RETRIEVALS / base:.0f} s "
        f"| {n / cpu_base:.0f}/s | {GOAL_RETRIEVALS * cpu_base / n:.0f} s | - |"
    )
    print("\n".join(rows))


if __name__ == "__main__":
    sys.exit(main())
