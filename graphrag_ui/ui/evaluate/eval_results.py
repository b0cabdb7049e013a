"""The Evaluate page's results: the table of every setting, the recall-per-token chart, the paired view.

The table has one row per mode × release × setting: mean metrics over the questions with bootstrap 95 %
intervals (``evaluation.stats.aggregate``), mean context tokens, and ★ on the settings of the Pareto
frontier. The chart puts each setting at its mean context tokens (x) and mean evidence recall (y), its
interval as a bar, and joins the frontier: "best recall per token" in one look. The paired view takes
two settings question by question (wins, losses, ties, scipy's Wilcoxon signed-rank p-value) and lists
the questions that flip.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from graphrag_ui.base.i18n import msg
from graphrag_ui.evaluation.plan import Config
from graphrag_ui.evaluation.runner import EvalRun
from graphrag_ui.evaluation.stats import Interval, Summary, paired
from graphrag_ui.ui.shell.language import in_this_language, t, translate
from graphrag_ui.ui.widgets import url_choice

PAIRED_METRICS = {
    "evidence_recall": msg("evidence recall"),
    "entity_recall": msg("entity recall"),
    "answer_token_recall": msg("answer-token recall"),
    "all_evidence": msg("all evidence in"),
    "answer_in_context": msg("answer in the context"),
}
TABLE_METRICS = {
    "evidence_recall": msg("evidence recall"),
    "entity_recall": msg("entity recall"),
    "all_evidence": msg("all evidence in"),
    "answer_in_context": msg("answer in the context"),
    "unused_token_share": msg("tokens without evidence"),
}
FRONTIER = "★"


def setting(config: Config) -> str:
    """A setting as the tables name it: ``top_k=10`` (empty for a mode run at its defaults)."""
    return f"{config.param}={config.value}" if config.param else ""


def _interval(iv: Interval) -> str:
    if iv.mean is None:
        return "—"
    return f"{iv.low:.2f}–{iv.high:.2f}"


def summary_frame(summaries: list[Summary]) -> pd.DataFrame:
    """One row per setting: its means (numbers, for sorting), each recall's interval as text, tokens, ★."""
    rows = []
    for s in summaries:
        row = {
            "frontier": FRONTIER if s.pareto else "",
            "mode": s.config.mode,
            "release": s.config.version,
            "setting": setting(s.config),
        }
        for name in TABLE_METRICS:
            iv = s.metrics[name]
            row[name] = None if iv.mean is None else round(iv.mean, 3)
            if name in ("evidence_recall", "entity_recall"):
                row[f"{name}_ci"] = _interval(iv)
        tokens = s.metrics["context_tokens"]
        row["context_tokens"] = None if tokens.mean is None else round(tokens.mean)
        row["tokens_ci"] = "—" if tokens.mean is None else f"{tokens.low:,.0f}–{tokens.high:,.0f}"
        row["questions"] = s.questions
        row["ms"] = round(s.ms, 1)
        rows.append(row)
    return pd.DataFrame(rows)


def summary_table(summaries: list[Summary]) -> None:
    frame = summary_frame(summaries)
    if not frame.empty and not frame["release"].astype(bool).any():
        frame = frame.drop(columns=["release"])
    cc = st.column_config
    interval = t("95 % interval")
    config = {
        "frontier": cc.TextColumn(
            FRONTIER,
            width=40,
            help=t("on the Pareto frontier: no other setting has more recall for fewer tokens"),
        ),
        "mode": t("mode"),
        "release": t("release"),
        "setting": t("setting"),
        "evidence_recall_ci": cc.TextColumn(interval, help=t("bootstrap over the questions")),
        "entity_recall_ci": cc.TextColumn(interval, help=t("bootstrap over the questions")),
        "context_tokens": cc.NumberColumn(t("context tokens"), format="%d"),
        "tokens_ci": cc.TextColumn(interval, help=t("bootstrap over the questions")),
        "questions": cc.NumberColumn(t("questions")),
        "ms": cc.NumberColumn(t("ms"), help=t("mean retrieval time per question"), format="%.1f"),
    }
    for name, title in TABLE_METRICS.items():
        config[name] = cc.NumberColumn(translate(title), format="%.2f")
    st.dataframe(frame, hide_index=True, width="stretch", key="ev_table", column_config=config)


def chart_frame(summaries: list[Summary]) -> pd.DataFrame:
    rows = []
    for s in summaries:
        recall, tokens = s.metrics["evidence_recall"], s.metrics["context_tokens"]
        if recall.mean is None or tokens.mean is None:
            continue
        rows.append(
            {
                "config": s.config.key,
                "value": "" if s.config.value is None else str(s.config.value),
                "mode": s.config.mode + (f"@{s.config.version}" if s.config.version else ""),
                "tokens": float(tokens.mean),
                "recall": float(recall.mean),
                "low": float(recall.low),
                "high": float(recall.high),
                "frontier": s.pareto,
            }
        )
    return pd.DataFrame(rows, columns=["config", "value", "mode", "tokens", "recall", "low", "high", "frontier"])


def recall_chart(summaries: list[Summary]) -> None:
    """Evidence recall against context tokens, one point per setting, the frontier joined and ringed."""
    import altair as alt

    frame = chart_frame(summaries)
    if frame.empty:
        st.info(t("No question of the set has a gold item: there is no recall to chart."))
        return
    x = alt.X("tokens:Q", title=t("mean context tokens"), scale=alt.Scale(zero=False))
    y = alt.Y("recall:Q", title=t("mean evidence recall"), scale=alt.Scale(domain=[0, 1]))
    color = alt.Color(
        "mode:N", title=None, scale=alt.Scale(scheme="tableau10"), legend=alt.Legend(orient="bottom", columns=3)
    )
    tips = [
        alt.Tooltip("config:N", title=t("setting")),
        alt.Tooltip("recall:Q", title=t("evidence recall"), format=".2f"),
        alt.Tooltip("low:Q", title=t("95 % low"), format=".2f"),
        alt.Tooltip("high:Q", title=t("95 % high"), format=".2f"),
        alt.Tooltip("tokens:Q", title=t("context tokens"), format=",.0f"),
    ]
    base = alt.Chart(frame)
    bars = base.mark_rule(opacity=0.45).encode(x=x, y=alt.Y("low:Q"), y2="high:Q", color=color)
    points = base.mark_point(filled=True, size=60).encode(x=x, y=y, color=color, tooltip=tips)
    front = base.transform_filter(alt.datum.frontier)
    line = front.mark_line(color="#444", strokeDash=[4, 3], interpolate="step-after").encode(x=x, y=y, order="tokens:Q")
    ring = front.mark_point(size=220, color="#111", strokeWidth=1.5).encode(x=x, y=y, tooltip=tips)
    values = base.mark_text(align="left", dx=7, dy=-7, fontSize=10, color="#555").encode(x=x, y=y, text="value:N")
    chart = (bars + line + points + ring + values).properties(height=320).configure_legend(labelLimit=0)
    st.altair_chart(chart, width="stretch", key="ev_chart")
    st.caption(
        t(
            "Each point is one setting; the bar is its 95 % interval; the ringed points joined by the dashed "
            "line are the Pareto frontier (no other setting has more recall for fewer tokens).",
        )
    )


def paired_view(run: EvalRun, questions: dict[str, str]) -> None:
    """Two settings picked from the run, compared question by question on one metric."""
    configs = [c for c in run.configs if run.rows_of(c)]
    if len(configs) < 2:
        st.info(t("The paired view needs two settings: evaluate more than one mode or step."))
        return
    keys = [c.key for c in configs]
    by_key = dict(zip(keys, configs, strict=True))
    for name, default in (("ev_a", 0), ("ev_b", 1)):
        url_choice.seed(name, keys, keys[default])
    url_choice.seed("ev_metric", list(PAIRED_METRICS), "evidence_recall")
    c1, c2, c3 = st.columns([3, 3, 2])
    a = c1.selectbox("A", keys, key="ev_a", placeholder=t("Choose an option"))
    b = c2.selectbox("B", keys, key="ev_b", placeholder=t("Choose an option"))
    metric = c3.selectbox(
        t("metric"),
        list(PAIRED_METRICS),
        key="ev_metric",
        format_func=in_this_language(lambda m: translate(PAIRED_METRICS[m])),
        placeholder=t("Choose an option"),
    )
    for name, value in (("ev_a", a), ("ev_b", b), ("ev_metric", metric)):
        url_choice.sync(name, value)
    result = paired(run, by_key[a], by_key[b], metric)
    m1, m2, m3, m4 = st.columns(4)
    m1.metric(t("A wins"), result.wins)
    m2.metric(t("B wins"), result.losses)
    m3.metric(t("ties"), result.ties)
    m4.metric(t("p-value"), "—" if result.p_value is None else f"{result.p_value:.3g}")
    if result.p_value is None:
        st.caption(t("No question differs: there is nothing to test.") if not result.flips else "")
    else:
        st.caption(
            t(
                "Wilcoxon signed-rank test over {n} questions with a value under both (ties left out); "
                "mean difference A − B: {diff}.",
                n=result.n,
                diff=f"{result.mean_difference:+.3f}",
            )
        )
    if result.flips:
        frame = pd.DataFrame(
            [
                {
                    "id": q,
                    "question": questions.get(q, ""),
                    "a": round(x, 3),
                    "b": round(y, 3),
                    "winner": "A" if x > y else "B",
                }
                for q, x, y in result.flips
            ]
        )
        st.caption(t("The questions that flip"))
        st.dataframe(
            frame,
            hide_index=True,
            width="stretch",
            key="ev_flips",
            column_config={
                "id": t("id"),
                "question": st.column_config.TextColumn(t("question"), width="large"),
                "winner": t("better"),
            },
        )
