"""Views of a map-reduce retrieval's stages: Batches, Points, the model calls in Trace, the reduce context.

Everything shown comes from ``Retrieval.stages`` (see ``graphrag_ui.retrieval.core.stages``); texts from the
index or a model go into table cells or code blocks, never into Markdown.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.stages import DONE, FAILED, NEEDS_MODEL, Stages
from graphrag_ui.ui.answer import stage_tables
from graphrag_ui.ui.shell.escape import shown
from graphrag_ui.ui.shell.labels import COLUMNS, ROLE_LABELS, label
from graphrag_ui.ui.shell.language import t


def _columns(names: list[str], **special) -> dict:
    """Column labels in the UI language (``labels.COLUMNS``), with ``special`` configs for some columns."""
    cc = st.column_config
    config = {name: cc.Column(label(COLUMNS, name.replace(" ", "_"))) for name in names}
    for name, make in special.items():
        config[name.replace("_", " ")] = make(label(COLUMNS, name))
    return config


def model_configured() -> bool:
    """Whether a model answers now (Settings: environment or secrets), whatever the retrieval recorded."""
    from graphrag_ui.model_client.settings import LLMSettings

    return LLMSettings.from_env_and_secrets().configured


def waiting_notice(stages: Stages) -> str | None:
    """What the map and reduce stages wait for, when they have not run: the answer button, or a model.

    The retrieval's ``status`` only says that no model ran for it; whether one is configured is read now.
    """
    if stages.status != NEEDS_MODEL:
        return None
    n = len(stages.batches)
    ready = (
        t("The map batch and its exact prompt are ready (see Batches).")
        if n == 1
        else t("The {n} map batches and their exact prompts are ready (see Batches).", n=n)
    )
    if model_configured():
        return (
            ready
            + " "
            + t(
                "The map and reduce stages run when you press Generate answer; the points, the reduce context and "
                "the answer come from them.",
            )
        )
    return (
        ready
        + " "
        + t(
            "The map and reduce stages need a language model and none is configured, so there are no points, "
            "reduce context or answer yet; configure one in Settings.",
        )
    )


def failure_notice(stages: Stages) -> str | None:
    """After failed map calls: which batches failed (the first one's error), which answered and what of theirs
    is shown; None when no map call failed (then the note says what did)."""
    maps = [c for c in stages.calls if c.stage == "map"]
    failed = [c for c in maps if not c.ok]
    if stages.status != FAILED or not failed:
        return None
    numbers = ", ".join(c.label.removeprefix("batch ") for c in failed)
    answered = [c.label.removeprefix("batch ") for c in maps if c.ok]
    if not answered:
        return t(
            "Every map call failed (batch {failed}: {error}); the reduce stage did not run. Run again.",
            failed=numbers,
            error=shown(failed[0].error),
        )
    return t(
        "Map batch {failed} failed ({error}); batch {answered} answered and their {points} points are shown, "
        "but none reached a reduce context: the reduce stage did not run. Run again: the answered batches "
        "come from the cache.",
        failed=numbers,
        error=shown(failed[0].error),
        answered=", ".join(answered),
        points=len(stages.points),
    )


def status_box(result: Retrieval) -> None:
    """What ran and what did not, in one line."""
    stages = result.stages
    if stages is None:
        return
    waiting = waiting_notice(stages)
    failure = failure_notice(stages)
    if waiting:
        st.info(waiting, icon=":material/smart_toy:")
    elif failure:
        st.warning(failure, icon=":material/error:")
    elif stages.note:  # a failure is also said as an error beside the answer button
        st.caption(shown(stages.note))


def batches_view(result: Retrieval, key: str) -> None:
    """Reports per batch and tokens against the batch budget; each batch's exact map prompt below."""
    stages = result.stages
    assert stages is not None
    status_box(result)
    frame = stage_tables.batches_frame(result)
    if frame.empty:
        st.info(t("No report reached a map batch."))
        return
    failed = [int(c.label.removeprefix("batch ")) for c in stages.calls if c.stage == "map" and not c.ok]
    counts = ["points", "kept"]
    frame[counts] = frame[counts].astype("Int64")  # whole numbers, with a gap where no map call answered
    frame.loc[frame["batch"].isin(failed), counts] = pd.NA  # a failed batch: no count, not "0"
    for column in counts:  # the grid writes a missing cell as an English "None" (in the Chinese UI too)
        if frame[column].isna().any():
            frame[column] = frame[column].astype("string").fillna("—")  # a dash: no map call, no count
    cc = st.column_config
    config = _columns(
        list(frame.columns),
        fill=lambda label: cc.ProgressColumn(label, min_value=0.0, max_value=1.0, format="percent"),
        report_ids=lambda label: cc.TextColumn(label, width="large"),
    )
    st.dataframe(frame, hide_index=True, width="stretch", key=f"{key}_batches", column_config=config)
    ratings = stage_tables.ratings_frame(result)
    if not ratings.empty:
        st.caption(t("Dynamic community selection: the model's rating of each community"))
        st.dataframe(
            ratings,
            hide_index=True,
            width="stretch",
            key=f"{key}_ratings",
            column_config=_columns(list(ratings.columns), reason=lambda label: cc.TextColumn(label, width="large")),
        )
    for batch in stages.batches:
        title = t(
            "Map prompt · batch {batch} · {n} reports · {tokens} tokens",
            batch=batch.index,
            n=len(batch.community_ids),
            tokens=batch.tokens,
        )
        with st.expander(title):
            for message in batch.messages:
                st.caption(label(ROLE_LABELS, message["role"]))
                st.code(message["content"], language=None, wrap_lines=True)


def points_view(result: Retrieval, key: str) -> None:
    """Every point from the map answers: kept (best first, why) and dropped (why dropped first)."""
    stages = result.stages
    assert stages is not None
    if stages.status == FAILED:
        status_box(result)
    if not stages.points:
        if stages.status == NEEDS_MODEL:
            st.info(
                t("Points come from the map answers: ask for an answer to run the map stage.")
                if model_configured()
                else waiting_notice(stages)
            )
        elif stages.status == DONE:
            st.info(t("The map answers gave no points."))
        return
    kept, dropped = stage_tables.points_frames(result)
    cc = st.column_config
    wide = {"description": lambda label: cc.TextColumn(label, width="large")}
    st.caption(t("In the reduce context") + f": {len(kept)}")
    if not kept.empty:
        config = _columns(list(kept.columns), **wide)
        st.dataframe(kept, hide_index=True, width="stretch", key=f"{key}_points_kept", column_config=config)
    if not dropped.empty:
        st.caption(t("Considered but dropped") + f": {len(dropped)}")
        config = _columns(list(dropped.columns), **wide)
        st.dataframe(dropped, hide_index=True, width="stretch", key=f"{key}_points_dropped", column_config=config)


def calls_view(result: Retrieval, key: str) -> None:
    """The model calls of the stages (for the Trace tab): time, tokens, cost, cache, outcome."""
    stages = result.stages
    if stages is None:
        return
    st.caption(t("Model calls of the map and reduce stages"))
    frame = stage_tables.calls_frame(stages)
    if frame.empty:
        st.info(waiting_notice(stages) or t("Nothing in this section."))
        return
    slowest = float(frame["ms"].max()) or 1.0
    cc = st.column_config
    config = _columns(
        list(frame.columns),
        ms=lambda label: cc.ProgressColumn(label, min_value=0.0, max_value=slowest, format="%.1f"),
        error=lambda label: cc.TextColumn(label, width="large"),
    )
    st.dataframe(frame, hide_index=True, width="stretch", key=f"{key}_calls", column_config=config)
    total = frame["prompt tokens"].sum() + frame["answer tokens"].sum()
    st.caption(
        t(
            "{calls} calls · {tokens:,} tokens · cost {cost} (cached calls cost nothing now)",
            calls=len(frame),
            tokens=int(total),
            cost=cost_text(stages),
        )
    )


def cost_text(stages) -> str:
    cost = stage_tables.total_cost(stages)
    return t("unknown") if cost is None else f"${cost:.5f}"


def reduce_context_view(result: Retrieval, key: str) -> None:
    """The reduce context and prompt once the map stage ran; until then, the batch contexts."""
    stages = result.stages
    assert stages is not None
    if stages.reduce_context or stages.reduce_messages:
        st.caption(t("Reduce context"))
        st.code(stages.reduce_context, language=None, wrap_lines=True)
        with st.expander(t("Reduce prompt")):
            for message in stages.reduce_messages:
                st.caption(label(ROLE_LABELS, message["role"]))
                st.code(message["content"], language=None, wrap_lines=True)
        return
    status_box(result)
    for batch in stages.batches:
        st.caption(
            t(
                "Map batch {batch} context · {tokens} / {limit} tokens",
                batch=batch.index,
                tokens=batch.tokens,
                limit=batch.limit,
            )
        )
        st.code(batch.context, language=None, wrap_lines=True)
