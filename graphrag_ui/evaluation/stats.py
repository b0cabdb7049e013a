"""Read an ``EvalRun``: per-config means with bootstrap 95 % intervals, the Pareto frontier of evidence recall
against context tokens, a paired comparison of two configs, and the smallest single-parameter change
that brings a missed gold item into the context.

Intervals are percentile bootstraps over questions (``numpy``'s seeded generator: the same run gives the
same interval); the paired test is scipy's Wilcoxon signed-rank test over the questions where both
configs have a value, with ties (zero differences) left out as ``zero_method="wilcox"`` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from graphrag_ui.evaluation.gold import GoldItem
from graphrag_ui.evaluation.metrics import RowMetrics
from graphrag_ui.evaluation.plan import Config
from graphrag_ui.evaluation.runner import EvalRun

METRICS = (
    "evidence_recall",
    "entity_recall",
    "all_evidence",
    "answer_in_context",
    "answer_token_recall",
    "context_tokens",
    "unused_token_share",
)
RESAMPLES = 2000


@dataclass
class Interval:
    """A mean over questions and its bootstrap 95 % interval (None when no question has a value)."""

    mean: float | None
    low: float | None
    high: float | None
    n: int  # questions with a value


@dataclass
class Summary:
    """One config over the whole set."""

    config: Config
    metrics: dict[str, Interval]  # METRICS name -> interval
    questions: int
    ms: float  # mean retrieval time per question
    pareto: bool = False  # on the frontier of evidence recall vs context tokens

    def mean(self, name: str) -> float | None:
        return self.metrics[name].mean


def _value(row: RowMetrics, name: str) -> float | None:
    value = getattr(row, name)
    return None if value is None else float(value)


def bootstrap(values: list[float], *, resamples: int = RESAMPLES, seed: int = 0) -> Interval:
    """Mean and percentile bootstrap 95 % interval of ``values``."""
    if not values:
        return Interval(None, None, None, 0)
    data = np.asarray(values, dtype=float)
    mean = float(data.mean())
    if len(data) == 1 or float(data.min()) == float(data.max()):
        return Interval(mean, mean, mean, len(data))
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), size=(resamples, len(data)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return Interval(mean, float(low), float(high), len(data))


def aggregate(run: EvalRun, *, resamples: int = RESAMPLES, seed: int = 0) -> list[Summary]:
    """One ``Summary`` per config of the run (in the plan's order), the Pareto frontier marked."""
    out = []
    for config in run.configs:
        rows = run.rows_of(config)
        if not rows:
            continue
        metrics = {
            name: bootstrap([v for r in rows if (v := _value(r, name)) is not None], resamples=resamples, seed=seed)
            for name in METRICS
        }
        out.append(Summary(config, metrics, len(rows), sum(r.ms for r in rows) / len(rows)))
    for s in pareto(out):
        s.pareto = True
    return out


def pareto(summaries: list[Summary]) -> list[Summary]:
    """The configs no other beats on both counts: higher mean evidence recall for no more mean context
    tokens (or fewer tokens for no less recall); sorted by tokens."""
    points = [s for s in summaries if s.mean("evidence_recall") is not None]

    def beats(a: Summary, b: Summary) -> bool:
        ra, rb = a.mean("evidence_recall"), b.mean("evidence_recall")
        ta, tb = a.mean("context_tokens"), b.mean("context_tokens")
        return ra >= rb and ta <= tb and (ra > rb or ta < tb)

    front = [s for s in points if not any(beats(o, s) for o in points if o is not s)]
    return sorted(front, key=lambda s: (s.mean("context_tokens"), -s.mean("evidence_recall")))


@dataclass
class Paired:
    """Two configs question by question on one metric."""

    a: Config
    b: Config
    metric: str
    wins: int  # questions where a > b
    losses: int
    ties: int
    n: int  # questions with a value under both
    statistic: float | None  # Wilcoxon signed-rank W (None: fewer than one non-tied pair)
    p_value: float | None
    flips: list[tuple[str, float, float]] = field(default_factory=list)  # (question id, a, b) where they differ
    mean_difference: float | None = None  # mean of a - b


def paired(run: EvalRun, a: Config, b: Config, metric: str = "evidence_recall") -> Paired:
    """Wins / losses / ties of ``a`` against ``b`` per question, scipy's Wilcoxon signed-rank test, and the
    questions that flip (where the two differ)."""
    from scipy.stats import wilcoxon

    left = {r.question_id: _value(r, metric) for r in run.rows_of(a)}
    right = {r.question_id: _value(r, metric) for r in run.rows_of(b)}
    both = [(q, left[q], right[q]) for q in left if q in right and left[q] is not None and right[q] is not None]
    wins = sum(x > y for _, x, y in both)
    losses = sum(x < y for _, x, y in both)
    flips = [(q, x, y) for q, x, y in both if x != y]
    statistic = p_value = None
    if flips:
        test = wilcoxon([x for _, x, _ in both], [y for _, _, y in both], zero_method="wilcox")
        statistic, p_value = float(test.statistic), float(test.pvalue)
        if math.isnan(p_value):
            statistic = p_value = None
    mean = sum(x - y for _, x, y in both) / len(both) if both else None
    return Paired(a, b, metric, wins, losses, len(both) - wins - losses, len(both), statistic, p_value, flips, mean)


@dataclass
class Fix:
    """The nearest value of the swept parameter at which a missed gold item is in the context."""

    question_id: str
    item: GoldItem
    at: Config  # where it was missed
    to: Config  # the same mode and version, another value of the same parameter
    tokens_at: int
    tokens_to: int

    @property
    def token_cost(self) -> int:
        return self.tokens_to - self.tokens_at


def _best(here: RowMetrics, item: GoldItem, siblings: list[RowMetrics]) -> Fix | None:
    at = here.config
    options = [
        (abs(float(row.config.value) - float(at.value)), row.context_tokens, row)
        for row in siblings
        if row.config != at and any(r.found and r.item == item for r in row.items)
    ]
    if not options:
        return None
    _, _, best = min(options, key=lambda o: (o[0], o[1]))
    return Fix(here.question_id, item, at, best.config, here.context_tokens, best.context_tokens)


def smallest_fix(run: EvalRun, question_id: str, item: GoldItem, at: Config) -> Fix | None:
    """The smallest single-parameter change (from the sweep) that brings ``item`` in: the same mode and
    release, the value nearest to ``at``'s (fewer tokens first on a tie); None when no step of the sweep
    finds it."""
    if not at.param:
        return None
    here = next((r for r in run.rows_of(at) if r.question_id == question_id), None)
    if here is None:
        return None
    siblings = [
        row
        for row in run.rows
        if row.question_id == question_id
        and (row.config.mode, row.config.version, row.config.param) == (at.mode, at.version, at.param)
    ]
    return _best(here, item, siblings)


def all_fixes(run: EvalRun) -> dict[tuple[str, Config, GoldItem], Fix]:
    """``smallest_fix`` of every missed item of every swept row, the rows grouped once (question, mode,
    release, parameter) rather than scanned per item."""
    groups: dict[tuple, list[RowMetrics]] = {}
    for row in run.rows:
        c = row.config
        if c is not None and c.param:
            groups.setdefault((row.question_id, c.mode, c.version, c.param), []).append(row)
    out = {}
    for siblings in groups.values():
        for here in siblings:
            for result in here.items:
                if not result.found:
                    fix = _best(here, result.item, siblings)
                    if fix is not None:
                        out[(here.question_id, here.config, result.item)] = fix
    return out
