"""The answer of a map-reduce mode: map calls under a progress bar, then the reduce answer streamed.

The finished run (the Retrieval with its stages filled in, and the answer) is kept in the session for
this retrieval, so the Batches, Points, Trace and Context tabs show it on every rerun; the model calls
themselves are in the answer cache, so asking again costs nothing.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from graphrag_ui.base.i18n import msg
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.stages import FAILED, Point, Stages
from graphrag_ui.ui.answer.citation_view import citation_panel
from graphrag_ui.ui.answer.prompt_panel import prompt_panel
from graphrag_ui.ui.results.incomplete import incomplete_notice
from graphrag_ui.ui.shell.escape import md_escape, shown
from graphrag_ui.ui.shell.language import t


def _run_key(result: Retrieval) -> str:
    raw = result.to_json(indent=None)
    return "staged_run_" + hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]


def latest(result: Retrieval) -> Retrieval:
    """The retrieval as its last map-reduce run in this session left it (or unchanged)."""
    saved = st.session_state.get(_run_key(result))
    return Retrieval.from_dict(saved[0]) if saved else result


def _run(result: Retrieval, settings, use_cache: bool) -> None:
    from graphrag_ui.model_calls import map_reduce

    total = len(result.stages.batches) if result.stages else 0
    bar = st.progress(0.0, text=t("Map calls: {done} of {total} done", done=0, total=total))
    box = st.empty()
    parts: list[str] = []

    def on_progress(done: int, total: int, _call) -> None:
        bar.progress(done / total, text=t("Map calls: {done} of {total} done", done=done, total=total))

    def on_token(token: str) -> None:
        parts.append(token)
        box.markdown(md_escape("".join(parts), formatting=True) + " ▌")

    out, reply = map_reduce.run_map_reduce(
        result, settings, stream=True, on_token=on_token, on_progress=on_progress, use_cache=use_cache
    )
    if out.stages is not None:
        answered_points(out.stages)
    bar.empty()
    box.empty()
    st.session_state[_run_key(result)] = (out.to_dict(), reply)


def answered_points(stages: Stages) -> None:
    """After failed map calls, the points of the batches that answered (the runner stops before collecting
    them): each marked as not reduced, naming the failed batches, so no answered batch reads "points 0"."""
    maps = {c.label: c for c in stages.calls if c.stage == "map"}
    failed = [label.removeprefix("batch ") for label, c in maps.items() if not c.ok]
    if stages.status != FAILED or stages.points or not failed:
        return
    why = msg("not reduced: map batch {failed} failed, so the reduce stage did not run", failed=", ".join(failed))
    for batch in stages.batches:
        call = maps.get(f"batch {batch.index}")
        if call is None or not call.ok:
            continue
        for point in call.parsed:
            stages.points.append(
                Point(batch.index, point["description"], point["score"], list(batch.community_ids), dropped=why)
            )


def map_button_label(n: int) -> str:
    if n == 1:
        return t("Generate answer (1 map call, then reduce)")
    return t("Generate answer ({n} map calls, then reduce)", n=n)


def staged_answer_panel(result: Retrieval, key: str = "main", *, rerun: bool = False) -> Retrieval:
    """Ask button → map (progress bar) → reduce (streamed); returns the retrieval with its stages filled in.

    ``rerun``: start a new script run after a fresh run, for pages that drew the stage tabs above.
    """
    from graphrag_ui.model_client.settings import LLMSettings
    from graphrag_ui.ui.answer.stages_view import cost_text, status_box

    settings = LLMSettings.from_env_and_secrets()
    st.subheader(t("Answer"))
    if not settings.configured:
        status_box(result)
        return result
    use_cache = st.toggle(
        t("answer cache"), value=True, key=f"{key}_cache", help=t("reuse an identical earlier answer")
    )
    n = len(result.stages.batches) if result.stages else 0
    asked = st.button(map_button_label(n), key=f"{key}_ask", type="primary")
    if asked or st.session_state.pop(f"{key}_retry_pending", False):
        _run(result, settings, use_cache)
        if rerun:
            st.rerun()
    saved = st.session_state.get(_run_key(result))
    if not saved:
        return result
    current, reply = Retrieval.from_dict(saved[0]), saved[1]
    from graphrag_ui.model_calls.answer import INCOMPLETE_KINDS  # with the answer (no first view has one)

    if reply is not None and reply.error_kind in INCOMPLETE_KINDS:  # the reduce answer arrived only in part
        incomplete_notice(reply, f"{key}_retry_pending")
    elif current.stages is not None and current.stages.status == FAILED:
        st.error(shown(current.stages.note))
    if reply is not None and not reply.error and current.stages is not None:
        st.markdown(md_escape(reply.text, formatting=True))
        calls = current.stages.calls
        tokens = sum(c.prompt_tokens + c.answer_tokens for c in calls)
        cached = sum(1 for c in calls if c.cached)
        caption = t(
            "{model} · {calls} calls ({cached} from the cache) · {tokens:,} tokens · cost {cost}",
            model=reply.model,
            calls=len(calls),
            cached=cached,
            tokens=tokens,
            cost=cost_text(current.stages),
        )
        st.caption(caption)
        citation_panel(current, getattr(reply, "trace", None), key)
        prompt_panel(Retrieval(mode=current.mode, query=current.query, params={}, messages=reply.messages), key)
    return current
