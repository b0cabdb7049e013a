"""The build pipeline end to end: scripted LLM, cache replay, bad inputs, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.index.builder import prompts
from graphrag_ui.index.builder.pipeline import build, build_index

ROOT = Path(__file__).resolve().parents[2]

DOCS = {
    "alice.txt": "Alice Smith is a marine biologist. Alice Smith works at Acme Corp in Paris.",
    "bob.md": "# Bob\n\nBob Jones flies planes for Acme Corp. Bob Jones is a friend of Alice Smith.",
}
RECORDS = {
    "Alice Smith is": (
        '("entity"<|>"Alice Smith"<|>"person"<|>"Alice Smith is a marine biologist.")##'
        '("entity"<|>"Acme Corp"<|>"organization"<|>"Acme Corp employs Alice.")##'
        '("entity"<|>"Paris"<|>"location"<|>"Paris is where Acme Corp is.")##'
        '("relationship"<|>"Alice Smith"<|>"Acme Corp"<|>"Alice works at Acme Corp."<|>"employment"<|>8)##'
        '("relationship"<|>"Acme Corp"<|>"Paris"<|>"Acme Corp is in Paris."<|>"location"<|>6)<|COMPLETE|>'
    ),
    "# Bob": (
        '("entity"<|>"Bob Jones"<|>"person"<|>"Bob Jones is a pilot.")##'
        '("entity"<|>"ACME CORP"<|>"organization"<|>"Acme Corp has pilots.")##'
        '("relationship"<|>"Bob Jones"<|>"Acme Corp"<|>"Bob flies for Acme."<|>"employment"<|>7)##'
        '("relationship"<|>"Bob Jones"<|>"Alice Smith"<|>"Bob and Alice are friends."<|>"friendship"<|>5)##'
        '("entity"<|>"broken record")<|COMPLETE|>'
    ),
}


def scripted_llm(messages: list[dict]) -> str:
    """Answers by the documented prompt markers, like the sample-corpus scripts do."""
    last = messages[-1]["content"]
    if last.startswith(prompts.GLEAN_TASK):
        first = messages[0]["content"]
        if "# Bob" in first:
            return '("entity"<|>"Oslo"<|>"location"<|>"Bob lives in Oslo.")##("relationship"<|>"Bob Jones"<|>"Oslo"<|>"Bob lives in Oslo."<|>"home"<|>4)<|COMPLETE|>'
        return "<|COMPLETE|>"
    if last.startswith(prompts.EXTRACT_TASK):
        text = last.split(prompts.TEXT_START + "\n", 1)[1].split("\n" + prompts.TEXT_END, 1)[0]
        return next(reply for start, reply in RECORDS.items() if text.startswith(start))
    if last.startswith(prompts.REPORT_TASK):
        community = next(line for line in last.split("\n") if line.startswith("COMMUNITY: "))[11:]
        members = next(line for line in last.split("\n") if line.startswith("MEMBERS: "))[9:]
        report = {
            "title": f"Group {community}: {members}",
            "summary": "A small group.",
            "rating": 6.5,
            "rating_explanation": "Small.",
            "findings": [{"summary": "They work together", "explanation": "Per the relations."}],
        }
        return "```json\n" + json.dumps(report) + "\n```"
    raise AssertionError(f"unexpected prompt {last[:80]!r}")


@pytest.fixture()
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_llm_build_with_gleaning_merge_and_reports(docs, tmp_path):
    warnings: list[str] = []
    stages: set[str] = set()
    index = build_index(
        docs,
        llm=scripted_llm,
        llm_id="scripted",
        cache_path=tmp_path / "cache.json",
        embedder="hash",
        on_warning=warnings.append,
        progress=lambda stage, done, total: stages.add(stage),
    )
    names = [e.name for e in index.entities]
    assert names == ["Alice Smith", "Acme Corp", "Paris", "Bob Jones", "Oslo"]  # "ACME CORP" merged, glean added Oslo
    acme = index.entity_by_name["Acme Corp"]
    assert acme.description == "Acme Corp employs Alice.<SEP>Acme Corp has pilots." and acme.occurrence == 2
    assert index.relation_between("Bob Jones", "Oslo").keywords == "home"
    assert any("bob.md chunk 0" in w and "line 1" in w for w in warnings)  # the broken record, named
    assert all(e.communities and e.communities[0][0] == 0 for e in index.entities)
    com = index.communities[0]
    assert (
        com.report.startswith(f"# Group {com.id}: ") and "\n\n## They work together\n\nPer the relations." in com.report
    )
    assert com.rating == 6.5 and com.extra["report_source"] == "llm"
    assert {"extract", "reports", "embed entities", "embed chunks"} <= stages
    assert index.manifest.settings["llm"] == "scripted" and index.manifest.settings["gleaning"] == 1
    assert index.manifest.title == Path(tmp_path).name  # the folder is called docs: its parent names it
    assert {k: len(v) for k, v in index.vectors.items()} == {
        "entities": 5,
        "relations": 5,
        "chunks": 2,
        "communities": len(index.communities),
    }
    from graphrag_ui.embedding.embed import HashEmbedder

    row = index.vectors["entities"].ids.index(acme.id)
    assert (index.vectors["entities"].matrix[row] == HashEmbedder.vector(f"Acme Corp\n{acme.description}")).all()
    rel = index.relation_between("Bob Jones", "Oslo")
    row = index.vectors["relations"].ids.index(rel.id)
    expected = HashEmbedder.vector(f"home\tBob Jones\nOslo\n{rel.description}")
    assert (index.vectors["relations"].matrix[row] == expected).all()
    cache = json.loads((tmp_path / "cache.json").read_text(encoding="utf-8"))
    kinds = sorted(v["kind"] for v in cache.values())
    assert kinds.count("extract") == 2 and kinds.count("glean") == 2 and kinds.count("report") == len(index.communities)


def _tables(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.parquet"))}


def test_replay_from_the_cache_reproduces_identical_tables(docs, tmp_path):
    cache = tmp_path / "cache.json"
    first = build(docs, tmp_path / "a", llm=scripted_llm, llm_id="scripted", cache_path=cache, embedder="hash")
    second = build(docs, tmp_path / "b", replay=True, cache_path=cache, embedder="hash")
    assert _tables(tmp_path / "a") == _tables(tmp_path / "b") and len(_tables(tmp_path / "a")) == 5
    for kind, table in first.vectors.items():
        assert table.ids == second.vectors[kind].ids and (table.matrix == second.vectors[kind].matrix).all()
    assert second.manifest.settings["llm"] == "scripted"
    assert pq.read_table(tmp_path / "b" / "entities.parquet").num_rows == 5


def test_replay_miss_names_the_document_and_chunk(docs, tmp_path):
    cache = tmp_path / "cache.json"
    build_index(docs, llm=scripted_llm, llm_id="scripted", cache_path=cache, embedder="hash")
    (docs / "carol.txt").write_text("Carol Diaz sails to Oslo.", encoding="utf-8")
    with pytest.raises(UserError, match=r"replay cache miss for the extract call of carol\.txt chunk 0 \(chunk-"):
        build_index(docs, replay=True, cache_path=cache, embedder="hash")


def test_a_crashed_build_resumes_from_the_cache(docs, tmp_path):
    cache = tmp_path / "cache.json"

    def flaky(messages):
        if messages[-1]["content"].startswith(prompts.REPORT_TASK):
            raise RuntimeError("network down")
        return scripted_llm(messages)

    with pytest.raises(RuntimeError):
        build_index(docs, llm=flaky, llm_id="scripted", cache_path=cache, embedder="hash")
    assert len(json.loads(cache.read_text(encoding="utf-8"))) == 4  # 2 extract + 2 glean answers kept
    asked: list[str] = []

    def counting(messages):
        asked.append(messages[-1]["content"].split("\n", 1)[0])
        return scripted_llm(messages)

    build_index(docs, llm=counting, llm_id="scripted", cache_path=cache, embedder="hash")
    assert asked and all(line == prompts.REPORT_TASK for line in asked)  # extraction came from the cache
    replayed = build_index(docs, replay=True, cache_path=cache, embedder="hash")
    assert len(replayed.entities) == 5


def test_bad_files_get_one_clear_message_each_and_the_rest_is_built(docs, tmp_path):
    (docs / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (docs / "gbk.txt").write_bytes("北京大学的张三教授".encode("gbk"))
    (docs / "empty.md").write_text("  \n", encoding="utf-8")
    (docs / "wide.txt").write_text("Alice", encoding="utf-16")
    (docs / "image.png").write_bytes(b"\x00")
    warnings: list[str] = []
    index = build_index(docs, extractor="offline", embedder="hash", on_warning=warnings.append, title="Uploads")
    assert index.manifest.title == "Uploads"
    assert [d.title for d in index.documents] == ["alice.txt", "bob.md"]
    text = "\n".join(warnings)
    assert "binary.txt: looks like a binary file" in text
    assert "gbk.txt: is not UTF-8 text (byte 0x" in text and "re-save the file as UTF-8" in text
    assert "empty.md: is empty" in text and "image.png: ignored" in text
    assert "wide.txt: is UTF-16 text, not UTF-8" in text
    assert {p["path"] for p in index.manifest.settings["skipped_files"]} == {
        "binary.txt",
        "gbk.txt",
        "empty.md",
        "image.png",
        "wide.txt",
    }


def test_empty_folder_and_missing_folder_are_user_errors(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="no usable documents .*no .txt or .md files found"):
        build_index(tmp_path / "empty", extractor="offline", embedder="hash")
    with pytest.raises(UserError, match="does not exist"):
        build_index(tmp_path / "nowhere", extractor="offline", embedder="hash")
    (tmp_path / "gbk").mkdir()
    (tmp_path / "gbk" / "a.txt").write_bytes("你好世界".encode("gbk"))
    with pytest.raises(UserError, match=r"a\.txt: is not UTF-8"):
        build_index(tmp_path / "gbk", extractor="offline", embedder="hash")


def test_llm_extractor_without_an_llm_is_a_user_error(docs):
    with pytest.raises(UserError, match="--extractor offline"):
        build_index(docs, embedder="hash")


def test_cli_offline_build_end_to_end(docs, tmp_path):
    out = tmp_path / "index"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "graphrag_ui",
            "build",
            str(docs),
            "--out",
            str(out),
            "--extractor",
            "offline",
            "--embedder",
            "hash",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"built {out}: 2 documents, 2 chunks" in proc.stdout
    # stderr is a pipe here: one line per stage at its start, every ~10 % and at its end (no bar redraws)
    assert "\nextract: " in proc.stderr and "extract: done 2/2" in proc.stderr and "\r" not in proc.stderr
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["source"] == "build" and manifest["embedder"] == "hash" and manifest["dimension"] == 256
    assert manifest["settings"]["extractor"] == "offline" and manifest["language"] == "en"
    from graphrag_ui.index import store

    index = store.load(out)
    assert {"Alice Smith", "Bob Jones", "Acme Corp", "Paris"} <= {e.name for e in index.entities}
    assert index.relation_between("Alice Smith", "Acme Corp") is not None


def test_cli_bad_input_is_one_line_not_a_traceback(tmp_path):
    (tmp_path / "empty").mkdir()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "graphrag_ui",
            "build",
            str(tmp_path / "empty"),
            "--out",
            str(tmp_path / "i"),
            "--extractor",
            "offline",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr


def test_cli_real_llm_over_http_then_offline_replay(docs, tmp_path, no_network):
    """`--llm MODEL` goes through litellm to an OpenAI-compatible server; the cache then replays with no server."""
    from tests.support.llm_server import Reply, start_server

    url, stop = start_server(lambda body: Reply(text=scripted_llm(body["messages"])))
    try:
        live = subprocess.run(
            [sys.executable, "-m", "graphrag_ui", "build", str(docs), "--out", str(tmp_path / "live"), "--quiet"]
            + ["--llm", "openai/scripted", "--api-base", url, "--embedder", "hash", "--llm-workers", "2"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=300,
        )
    finally:
        stop()
    assert live.returncode == 0, live.stderr
    cache = tmp_path / "live.llm_cache.json"
    assert f"rebuild offline with --llm replay:{cache}" in live.stdout
    assert "bob.md chunk 0" in live.stderr  # the malformed record's warning
    entries = json.loads(cache.read_text(encoding="utf-8"))
    assert {v["model"] for v in entries.values()} == {"openai/scripted"}
    assert "api_key" not in cache.read_text(encoding="utf-8")
    replay = subprocess.run(
        [sys.executable, "-m", "graphrag_ui", "build", str(docs), "--out", str(tmp_path / "replay"), "--quiet"]
        + ["--llm", f"replay:{cache}", "--embedder", "hash"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert replay.returncode == 0, replay.stderr
    assert _tables(tmp_path / "live") == _tables(tmp_path / "replay")


def test_a_bad_output_folder_is_refused_before_building(docs, tmp_path):
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine", encoding="utf-8")

    def never(messages):
        raise AssertionError("no LLM call may happen before the output folder is checked")

    with pytest.raises(UserError, match="not empty and holds no index"):
        build(docs, taken, llm=never, embedder="hash")
    with pytest.raises(UserError, match="would replace the documents"):
        build(docs, docs, extractor="offline", embedder="hash")
    assert (taken / "notes.txt").read_text(encoding="utf-8") == "mine"
