"""The answer beside its context: streamed into the page, with prompt, tokens, cost and cache state."""

from __future__ import annotations

import hashlib

import streamlit as st

from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.stages import FAILED
from graphrag_ui.retrieval.registry import get_mode
from graphrag_ui.ui.answer.citation_view import citation_panel
from graphrag_ui.ui.answer.drift_view import drift_tree
from graphrag_ui.ui.answer.prompt_panel import prompt_panel
from graphrag_ui.ui.answer.staged_answer import staged_answer_panel
from graphrag_ui.ui.results.incomplete import incomplete_notice
from graphrag_ui.ui.shell.escape import md_escape, shown
from graphrag_ui.ui.shell.labels import KEYWORD_SOURCES, label
from graphrag_ui.ui.shell.language import t


def _answer_key(result: Retrieval) -> str:
    raw = result.mode + "\x00" + result.query + "\x00" + result.context
    return "answer_" + hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]


def answer_panel(result: Retrieval, key: str = "main", *, rerun: bool = False, index: Index | None = None) -> Retrieval:
    """Button → streamed answer; the finished answer is kept for this retrieval across reruns.

    Returns the retrieval to show: a map-reduce mode's with its stages filled in once it ran
    (``rerun``: see ``staged_answer_panel``).
    """
    from graphrag_ui.model_client.settings import LLMSettings

    if result.stages is not None:
        return staged_answer_panel(result, key, rerun=rerun)
    stages = get_mode(result.mode).stages
    if stages is not None and stages.waits_for_request(result):  # rounds that ask the model run on a button
        return _drift_panel(result, key, index)
    settings = LLMSettings.from_env_and_secrets()
    st.subheader(t("Answer"))
    if result.keywords.source:
        source = label(KEYWORD_SOURCES, result.keywords.source)
        st.caption(
            t(
                "keywords ({source}): hl = {hl} · ll = {ll}",
                source=source,
                hl=md_escape(result.keywords.hl),
                ll=md_escape(result.keywords.ll),
            )
        )
    if not settings.configured:
        st.info(t("No LLM configured: showing the prompt that would be sent. Configure a model on the Settings page."))
        prompt_panel(result, key)
        return result
    store_key = _answer_key(result)
    retry_key = f"{key}_retry_pending"
    use_cache = st.toggle(
        t("answer cache"), value=True, key=f"{key}_cache", help=t("reuse an identical earlier answer")
    )
    asked = st.button(t("Generate answer"), key=f"{key}_ask", type="primary", disabled=not result.context)
    if asked or st.session_state.pop(retry_key, False):
        st.session_state[store_key] = _stream_answer(result, settings, use_cache)
    reply = st.session_state.get(store_key)
    if reply is not None:
        _show_reply(reply, retry_key)
        citation_panel(result, getattr(reply, "trace", None), key)  # a reply from before traces had none
    prompt_panel(result, key)
    return result


def _drift_panel(result: Retrieval, key: str, index: Index | None) -> Retrieval:
    """ms.drift asks the model while it retrieves: without a model its first prompt; with one, a button
    runs the expansion, the primer and the rounds (through the answer cache), then the usual answer."""
    from graphrag_ui.model_client.settings import LLMSettings

    settings = LLMSettings.from_env_and_secrets()
    st.subheader(t("Answer"))
    if not settings.configured or index is None:
        st.info(
            t(
                "DRIFT asks the model while it retrieves: without a model it stops after ranking the reports. "
                "The prompt below is the first one it would send. Configure a model on the Settings page.",
            )
        )
        if result.messages:
            prompt_panel(result, key)
        return result
    store_key = (
        "drift_" + _answer_key(result) + hashlib.sha1(repr(sorted(result.params.items())).encode()).hexdigest()[:8]
    )
    if st.button(t("Run DRIFT with the model"), key=f"{key}_drift", type="primary"):
        from graphrag_ui.services.query import run_query

        bar = st.progress(0.0, text=t("DRIFT is asking the model: expansion, primer, rounds of local searches…"))

        def progress(stage: str, done: int, total: int) -> None:
            bar.progress(done / max(total, 1), text=f"{stage}: {done}/{total}")

        st.session_state[store_key] = run_query(
            index,
            result.mode,
            result.query,
            result.params,
            llm_settings=settings,
            model_stages=True,
            on_progress=progress,
        )
        bar.empty()
    ran = st.session_state.get(store_key)
    if ran is None:
        prompt_panel(result, key)
        return result
    tree = ran.tree
    drift_tree(index, tree, key)
    for line in ran.warnings:  # what the run itself said (follow-ups capped, ...), beyond the retrieval's own
        if line not in result.warnings:
            st.warning(shown(line))
    if tree.status == FAILED:
        st.error(shown(tree.note))
        return ran
    return answer_panel(ran, key)


def _stream_answer(result: Retrieval, settings, use_cache: bool):
    """The answer streamed into the page, under a line that says what it is waiting for."""
    from graphrag_ui.model_calls import answer as answering
    from graphrag_ui.model_client.client import loaded

    waiting = st.empty()
    if not loaded():
        waiting.caption(t("Loading the model client (first answer of this server)…"))
    else:
        waiting.caption(t("Waiting for {model} to start answering…", model=settings.model))
    box = st.empty()
    parts: list[str] = []

    def on_token(token: str) -> None:
        if not parts:
            waiting.caption(t("{model} is answering…", model=settings.model))
        parts.append(token)
        box.markdown(md_escape("".join(parts), formatting=True) + " ▌")

    reply = answering.answer(result, settings, stream=True, on_token=on_token, use_cache=use_cache)
    waiting.empty()
    box.empty()
    return reply


def _show_reply(reply, retry_key: str) -> None:
    """A complete answer with its costs; a cut one with a notice and a retry button; an error as one line."""
    from graphrag_ui.model_calls.answer import INCOMPLETE_KINDS  # with the answer (no first view has one)

    if reply.error_kind in INCOMPLETE_KINDS:
        incomplete_notice(reply, retry_key)
    elif reply.error:
        st.error(shown(reply.error))
    else:
        st.markdown(md_escape(reply.text, formatting=True))
        cost = t("unknown") if reply.cost_usd is None else f"${reply.cost_usd:.5f}"
        hit = t(" · cache hit") if reply.cached else ""
        st.caption(
            t(
                "{model}{hit} · {prompt} prompt + {answer} answer tokens · cost {cost}",
                model=md_escape(reply.model),
                hit=hit,
                prompt=reply.prompt_tokens,
                answer=reply.answer_tokens,
                cost=cost,
            )
        )
