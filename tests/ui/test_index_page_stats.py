"""The Index page's statistics render on first view and say where the index came from and where its vectors live."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from streamlit.testing.v1 import AppTest

from graphrag_ui.index import store
from graphrag_ui.retrieval.registry import mode_names
from graphrag_ui.ui.widgets.index_ops import source_version, vector_location

ROOT = Path(__file__).resolve().parents[2]


def test_first_view_shows_source_embedder_tokenizer_vectors_and_statistics(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    at.query_params.update({"index": "sample:en"})
    at.run()
    at.switch_page("pages/index.py").run()
    assert not at.exception
    # caption + bold text, not st.metric (whose box cut "LightRAG ≤ 1.1 layout" short)
    captions = [c.value for c in at.caption]
    shown = [m.value for m in at.markdown]
    names = ["Source system", "Embedder", "Tokenizer", "Vectors live in"]
    values = ["**built here**", "**use-m3 (512)**", "**o200k_base**", "**local (chroma in the folder)**"]
    assert captions[:4] == names and all(v in shown for v in values)
    assert not at.metric
    assert "Which modes can run on it" in captions
    ready = next(d.value for d in at.dataframe if list(d.value.columns) == ["mode", "status", "why"])
    assert set(ready["status"]) == {"ready"} and len(ready) == len(mode_names())
    assert len(at.dataframe) >= 2 and not at.dataframe[0].value.empty  # counts and community sizes
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")  # the degree histogram


def test_vector_location_names_a_chroma_server_and_version_comes_from_the_importer(tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(ROOT / "data" / "sample" / "en" / "index", folder)
    index = store.load(folder)
    assert vector_location(index) == "local" and source_version(index) == "built here"
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["storage"]["chroma"] = {"mode": "server", "host": "chroma.internal", "port": 8000}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert vector_location(index) == "chroma server chroma.internal:8000"
    index.manifest.settings["layout"] = "nano-graphrag 0.0.8.x layout"
    assert source_version(index) == "nano-graphrag 0.0.8.x layout"
    index.manifest.settings.pop("layout")
    index.manifest.source = "lightrag-1.2"  # imported before the layout was recorded: the manifest's short form
    assert source_version(index) == "LightRAG 1.2 layout"
