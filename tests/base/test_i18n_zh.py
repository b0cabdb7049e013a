"""The Chinese UI is complete: every page rendered in zh shows no string missing from the zh catalogue.

Every page is rendered headless (AppTest) with ``lang=zh``: Explore in every registered mode with
every result tab opened, Compare, Entity recall, Graph, Index (every tab) and Settings. Whatever a
reader sees (see ``zh_catalogue.visible_strings``) must be Chinese from the catalogue, or a name the
page shows as data: index content, mode names, reference parameter names and values.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from graphrag_ui.retrieval.core.result import KINDS
from graphrag_ui.retrieval.registry import mode_names
from tests.support.zh_catalogue import allowed_names, untranslated, visible_strings  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def allowed() -> set[str]:
    return allowed_names()


@pytest.fixture()
def zh_app(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    for var in ("GRAPHRAG_UI_LLM_MODEL", "GRAPHRAG_UI_LLM_API_BASE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(ROOT)

    def make(page: str | None = None, index: str = "sample:zh", **params: str) -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
        at.query_params.update({"lang": "zh", "index": index, **params})
        at.run()
        if page:
            at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    return make


def _every_tab(at: AppTest, key: str) -> list[str]:
    """Visible strings with each lazily drawn view of the result opened in turn (a map-reduce mode's
    batches and points both)."""
    from tests.ui.test_app import open_view, tab_counts

    seen = visible_strings(at._tree)
    views = ["entities", "relations", "communities", "chunks", "graph", "budget", "trace", "context", "sweep"]
    if "Batches" in tab_counts(at, key):
        views = ["batches", "points", *views]
    for view in views:
        open_view(at, view, key)
        assert not at.exception, (view, [e.value for e in at.exception])
        seen += [s for s in visible_strings(at._tree) if s not in seen]
    return seen


@pytest.mark.parametrize("index", ["sample:zh", "sample:en"])
def test_explore_in_zh_has_no_untranslated_string(zh_app, allowed, index):
    at = zh_app(index=index, **{f"dropped_{kind}": "1" for kind in KINDS})  # every dropped list open
    problems: dict[str, list[str]] = {}
    for mode in mode_names():
        at.selectbox(key="mode").set_value(mode).run()
        assert not at.exception, (mode, [e.value for e in at.exception])
        missing = untranslated(_every_tab(at, "main"), allowed)
        if missing:
            problems[mode] = missing
    assert not problems, "untranslated:\n" + "\n".join(f"{m}: {s!r}" for m, ss in problems.items() for s in ss)


@pytest.mark.parametrize("page", ["pages/compare.py", "pages/recall.py", "pages/graph.py"])
def test_other_pages_in_zh_have_no_untranslated_string(zh_app, allowed, page):
    at = zh_app(page)
    missing = untranslated(visible_strings(at._tree), allowed)
    assert not missing, "untranslated:\n" + "\n".join(map(repr, missing))


def test_index_and_settings_pages_in_zh_have_no_untranslated_string(zh_app, allowed):
    at = zh_app("pages/index.py")
    seen = visible_strings(at._tree)
    at = zh_app("pages/settings.py")
    seen += visible_strings(at._tree)
    missing = untranslated(seen, allowed)
    assert not missing, "untranslated:\n" + "\n".join(map(repr, missing))


def test_the_checker_catches_english(allowed):
    """The check itself can fail: English UI text, or English inside a Chinese template, is reported."""
    assert untranslated(["answer cache", "上下文 (3) · label", "Choose an option", "进入上下文: Considered"], allowed)
    assert not untranslated(["进入上下文: 3", "top_k", "下载 CSV", "nano.local"], allowed)


def test_package_messages_translate_with_their_values():
    from graphrag_ui.base.errors import UserError
    from graphrag_ui.base.i18n import error_text, joined, msg, translate
    from graphrag_ui.retrieval.lightrag.modes import SUMMARIES
    from graphrag_ui.retrieval.registry import get_mode

    with pytest.raises(UserError) as caught:
        get_mode("nano.local").resolve({"top_k": 500})
    assert translate(caught.value.what, "zh") == "参数 top_k=500 高于其最大值 200"
    assert translate(caught.value.what, "en") == "parameter top_k=500 is above its maximum 200"
    rerank = get_mode("lightrag.naive").summary  # the summary with the rerank note joined to it
    assert translate(rerank, "zh").startswith(translate(SUMMARIES["naive"], "zh")) and "重排已关闭" in translate(
        rerank, "zh"
    )  # values translated too
    note = joined(  # as llm/map_reduce.py writes it
        msg("{n} map call(s) gave {points} point(s); {kept} reached the reduce context", n=3, points=12, kept=10),
        msg("the reduce call (the answer) was not made: context only"),
    )
    assert (
        translate(note, "zh")
        == "3 次映射调用得到 12 个要点；10 个进入归约上下文；没有进行归约调用（回答）：仅生成上下文"
    )
    assert (
        translate("something new the catalogue lacks", "zh") == "something new the catalogue lacks"
    )  # English, found by the page test
    exc = UserError(msg("file is larger than {n} MB", n=5), where="big.txt", fix=msg("add .txt or .md files"))
    assert error_text(exc, "zh") == "big.txt: 文件大于 5 MB — 请添加 .txt 或 .md 文件"
    assert error_text(exc, "en") == str(exc) == "big.txt: file is larger than 5 MB — add .txt or .md files"


# ------------------------------------------------------------------ the tables' reasons


@pytest.fixture(scope="module")
def reason_runs_by_sample() -> dict[str, list]:
    from tests.support.reason_runs import runs

    return {key: list(runs(key)) for key in ("sample:en", "sample:zh")}


def _reason_frames(result):
    """Every grid of the result that carries reasons, as the Explore and Compare tabs build them (the
    Trace view's steps and details too)."""
    from graphrag_ui.retrieval.core.result import KINDS
    from graphrag_ui.ui.answer import stage_tables
    from graphrag_ui.ui.results import tables
    from graphrag_ui.ui.shell.labels import TRACE_STEPS

    for kind in KINDS:
        yield tables.kept_rows(result, kind)
        yield tables.dropped_rows(result, kind)[0]
    yield tables.trace_frame(result, TRACE_STEPS)
    if result.stages is not None:
        yield from stage_tables.points_frames(result)
        yield stage_tables.ratings_frame(result)
        yield stage_tables.batches_frame(result)


def _reason_values(runs: list) -> dict[str, str]:
    """reason cell -> the first run that showed it."""
    from tests.support.zh_catalogue import REASON_COLUMNS

    seen: dict[str, str] = {}
    for label, result in runs:
        for frame in _reason_frames(result):
            for name in REASON_COLUMNS & set(frame.columns):
                for value in frame[name]:
                    if isinstance(value, str) and value.strip():
                        seen.setdefault(value, label)
    return seen


# each kind of reason the runs must produce, so the check below cannot pass by seeing too little
REASON_KINDS = [
    "beyond top_k",
    "below threshold",
    "over budget",
    "over max_relation_tokens",
    "over chunk budget",
    "duplicate of",
    "tied with",
    "not picked",
    "level ",
    "global_min_community_rating",
    "< min_community_rank",
    "below min_community_rank",
    "empty query",
    "score 0",
    "over the reduce budget",
    "threshold 1: kept",
    "pruned with everything below it",
    # the Trace view's steps and details, one per family's way of writing them
    "round-robin merge",
    "LanceDB k-NN",
    "chunk budget",
    "four CSV sections",
    "greedy groups",
    "sections joined by blank lines",
    "reports at level",
    "np.array_split",
]


@pytest.mark.parametrize("key", ["sample:en", "sample:zh"])
def test_every_reason_in_the_grids_is_translated(reason_runs_by_sample, allowed, key, ui_language):
    """Every mode with its defaults and with drop-making settings: each reason cell reads in Chinese."""
    runs = reason_runs_by_sample[key]
    english = _reason_values(runs)
    assert not [kind for kind in REASON_KINDS if not any(kind in text for text in english)]
    assert {label.split()[0] for label, _ in runs} >= set(mode_names())
    ui_language("zh")
    shown = _reason_values(runs)
    missing = untranslated(shown, allowed)
    assert not missing, f"{len(missing)} untranslated reasons:\n" + "\n".join(
        f"{shown[m]}: {m!r}" for m in missing[:40]
    )


def test_reasons_stay_english_in_english_and_in_the_csv(reason_runs_by_sample, ui_language):
    from graphrag_ui.ui.results import tables

    label, result = next((lb, r) for lb, r in reason_runs_by_sample["sample:en"] if r.entities)
    en_kept = tables.kept_rows(result, "entities")
    tables.dropped_rows(result, "entities")  # its reasons format in English without error
    ui_language("zh")
    kept = tables.kept_rows(result, "entities")
    tables.dropped_rows(result, "entities")  # and in Chinese
    assert list(kept.columns) == list(en_kept.columns)
    assert list(en_kept["why"]) == [c.why for c in result.entities if c.in_context]
    csv = tables.candidate_rows("entities", result.entities)
    assert list(csv["why"]) == [c.why for c in result.entities]
    assert list(kept["why"]) != list(en_kept["why"]), label


def test_the_reason_check_fails_when_a_catalogue_entry_is_missing(
    reason_runs_by_sample, allowed, monkeypatch, ui_language
):
    """Without one template ("below threshold …") in the gettext catalogue the same runs show English
    reasons, and the check says so."""
    import graphrag_ui.base.i18n as gettext_i18n

    removed = "below threshold (sim {sim} < {threshold})"
    real = gettext_i18n._catalogue("zh")

    class Without:
        def gettext(self, text: str) -> str:
            return text if text == removed else real.gettext(text)

        def pgettext(self, context: str, text: str) -> str:
            return real.pgettext(context, text)

    monkeypatch.setattr(gettext_i18n, "_catalogue", lambda lang: Without())
    ui_language("zh")
    try:
        missing = untranslated(_reason_values(reason_runs_by_sample["sample:en"]), allowed)
    finally:
        monkeypatch.undo()
    assert missing and all("below threshold" in m for m in missing), missing[:5]


def test_reasons_keep_index_names_verbatim():
    from graphrag_ui.base.i18n import joined, msg, translate
    from graphrag_ui.retrieval.core.recall import tie_note

    # an entity named like a catalogue word stays as the index spells it
    assert translate(msg("edge of {name}", name="vector"), "zh") == "vector 的边"
    why = joined(msg("entity #{rank} by vector, sim {sim}", rank=2, sim="0.500"), tie_note(["entity, ok"]))
    assert why == (
        "entity #2 by vector, sim 0.500; tied with entity, ok (equal similarity: the order among them is the "
        "reference's argsort order)"
    )
    assert (
        translate(why, "zh")
        == "实体 #2（向量检索），相似度 0.500；与 entity, ok 并列（相似度相同：它们之间的先后是参考实现 argsort 给出的顺序）"
    )


@pytest.mark.parametrize(("mode", "move"), [("nano.local", {"top_k": 5}), ("ms.local", {"max_context_tokens": 3000})])
def test_the_change_line_names_its_sections_in_chinese(allowed, mode, move):
    """A slider move's one line (items and tokens per section) reads in Chinese: the sections too, nano's own
    section names with the reference's spelling beside the translation."""
    from graphrag_ui.base.i18n import translate
    from graphrag_ui.retrieval.core.change import diff, summary
    from graphrag_ui.services.query import run_query
    from graphrag_ui.ui.shell.state import suggested_questions
    from tests.support.reason_runs import sample

    question = suggested_questions("sample:en")[0]
    before = run_query(sample("sample:en"), mode, question)
    after = run_query(sample("sample:en"), mode, question, move)
    change = diff(before, after)
    assert change.sections, change  # the move changed some sections' tokens: the line names them
    line = translate(summary(change), "zh")
    assert not untranslated([line], allowed), line
    if mode == "nano.local":
        assert "（Entities）" in line or "（Sources）" in line or "（Relationships）" in line, line


def test_evaluate_page_in_zh_has_no_untranslated_string(zh_app, allowed):
    """Evaluate on the Chinese sample: the set, the plan, a run of two modes over a range, and every result
    view (settings, paired, per question with its why-missed and fix buttons), then Explore with the gold
    marks and the gold line."""
    import time

    from graphrag_ui.evaluation.formats import FORMATS, load_questions
    from graphrag_ui.ui.evaluate.eval_run_view import JOB

    at = zh_app("pages/evaluate.py", ev_modes="nano.local", ev_param="top_k", ev_from="2", ev_to="20", ev_step="6")
    seen = visible_strings(at._tree)
    at.multiselect(key="ev_modes").set_value(["nano.local", "lightrag.local"]).run()
    at.button(key="ev_run").click().run()
    while at.session_state[JOB].running:
        time.sleep(0.2)
    at.run()
    for view in ("settings", "paired", "question"):
        at.segmented_control(key="ev_view").set_value(view).run()
        assert not at.exception, (view, [e.value for e in at.exception])
        seen += [s for s in visible_strings(at._tree) if s not in seen]
    fixes = [b for b in at.button if (b.key or "").startswith("ev_fix_")]
    if fixes:
        fixes[0].click().run()
        assert not at.exception, [e.value for e in at.exception]
        seen += [s for s in visible_strings(at._tree) if s not in seen]
    questions = load_questions(ROOT / "data" / "sample" / "zh" / "questions.jsonl").questions
    data = {"questions.jsonl", *FORMATS} | {q.id for q in questions} | {q.question for q in questions}
    missing = untranslated(seen, allowed | data)  # the set's file name, ids and questions are data
    assert not missing, "untranslated:\n" + "\n".join(map(repr, missing))
