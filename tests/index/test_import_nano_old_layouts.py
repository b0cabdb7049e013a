"""nano-graphrag releases before 0.0.8 wrote the same files with two differences the importer reads from
them: edges without an ``order`` attribute (0.0.4–0.0.7), and entity vectors in Milvus Lite instead of
``vdb_entities.json`` (0.0.2–0.0.3). The manifest names that layout, and the missing vectors are said for
what they are (not "was enable_local off?")."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from graphrag_ui.index.importers.command import import_source, import_warnings

GOLDEN = Path(__file__).resolve().parents[1] / "goldens" / "layouts" / "nano-graphrag-0.0.8"
GRAPHML = "graph_chunk_entity_relation.graphml"


def _without_edge_order(folder: Path) -> None:
    path = folder / GRAPHML
    text = path.read_text(encoding="utf-8")
    key = re.search(r'<key id="(d\d+)" for="edge" attr.name="order"[^>]*/>\n?', text)
    assert key, "the 0.0.8 golden's edges carry order"
    text = text.replace(key.group(0), "")
    text = re.sub(rf'\s*<data key="{key.group(1)}">[^<]*</data>', "", text)
    path.write_text(text, encoding="utf-8")


def test_0_0_8_files_say_0_0_8(tmp_path):
    _, index = import_source("auto", GOLDEN, tmp_path / "out", embedder="hash")
    assert index.manifest.settings["layout"] == "nano-graphrag 0.0.8.x layout"


def test_edges_without_order_are_the_0_0_4_to_0_0_7_layout(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(GOLDEN, src)
    _without_edge_order(src)
    _, index = import_source("auto", src, tmp_path / "out", embedder="hash")
    assert index.manifest.settings["layout"] == "nano-graphrag 0.0.4–0.0.7 layout"
    assert len(index.vectors["entities"]) == len(index.entities) and index.relations


def test_milvus_lite_vectors_are_named_as_what_they_are(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(GOLDEN, src)
    _without_edge_order(src)
    (src / "vdb_entities.json").unlink()
    (src / "milvus_lite.db").write_bytes(b"\x00" * 64)  # its contents are never read
    _, index = import_source("auto", src, tmp_path / "out", embedder="hash")
    assert index.manifest.settings["layout"] == "nano-graphrag ≤ 0.0.3 layout (entity vectors in Milvus Lite)"
    (said,) = [w for w in import_warnings(index) if "milvus_lite.db" in w]
    assert "re-embed" in said and not any("enable_local" in w for w in import_warnings(index))
    assert not len(index.vectors.get("entities", []))
