"""Compare names each side's mode and the LightRAG release it reproduces, and shows "—" (not 1.00 with a full
bar) for a kind neither side recalled."""

from __future__ import annotations

import math


def test_compare_headers_name_the_release_and_empty_kinds_show_a_dash(app):
    at = app(
        "pages/compare.py",
        index="sample:en",
        a_mode="lightrag.local",
        b_mode="lightrag.bypass",
        b_lightrag_version="1.5.7",
    )
    bold = [md.value for md in at.markdown if md.value.startswith("**")]
    assert "**lightrag.local · LightRAG 1.4.7**" in bold and "**lightrag.bypass · LightRAG 1.5.7**" in bold
    overlap = next(df.value for df in at.dataframe if "jaccard" in df.value.columns).set_index("kind")
    assert overlap.loc["Communities", "jaccard_shown"] == "—" and math.isnan(overlap.loc["Communities", "jaccard"])
    assert overlap.loc["Entities", "jaccard_shown"] == "0.00" and overlap.loc["Entities", "jaccard"] == 0.0
    plain = app("pages/compare.py", index="sample:en", a_mode="ms.local", b_mode="nano.local")
    assert "**ms.local**" in [md.value for md in plain.markdown]
