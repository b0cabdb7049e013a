"""The answer's use of its context per mode, on both samples, with the local test server as the model.

For every mode (LightRAG's for 1.4.7 and 1.5.7) and both bundled samples it retrieves the sample's
first question, asks the test server in its citing script (``tests/support/citing_replies.py``: known ids and
one invented citation) and prints the run line numbers: items cited of all, citations not in the
context, and the context tokens cited / estimated (word overlap, for sentences that cite nothing) /
never used. The batch path (``query --batch … --answer``) does the work, so this is what scripts see.

    .venv/bin/python scripts/citation_split.py [--sample en|zh]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import graphrag_ui  # noqa: E402,F401  (offline environment first)
from graphrag_ui.cli.batch import case_result  # noqa: E402
from graphrag_ui.index import store  # noqa: E402
from graphrag_ui.model_client.settings import LLMSettings  # noqa: E402
from graphrag_ui.retrieval.registry import mode_names  # noqa: E402
from tests.support.citing_replies import citing_reply  # noqa: E402
from tests.support.llm_server import start_server  # noqa: E402


def cases() -> list[tuple[str, dict[str, str]]]:
    out = []
    for mode in mode_names():
        if mode.startswith("lightrag.") and mode != "lightrag.bypass":
            out += [(mode, {"version": "1.4.7"}), (mode, {"version": "1.5.7"})]
        else:
            out.append((mode, {}))
    return out


def question(sample: str) -> str:
    data = json.loads((ROOT / "data" / "sample" / sample / "questions.json").read_text(encoding="utf-8"))
    items = data if isinstance(data, list) else data["questions"]
    return items[0]["question"]


def pct(part: int, total: int) -> str:
    return f"{100 * part / total:5.1f}" if total else "    –"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", choices=["en", "zh"], action="append")
    args = parser.parse_args(argv)
    url, stop = start_server(citing_reply)
    home = tempfile.mkdtemp(prefix="citation_split_")
    os.environ.update(
        {
            "GRAPHRAG_UI_LLM_MODEL": "openai/gpt-4o-mini",
            "GRAPHRAG_UI_LLM_API_BASE": url,
            "OPENAI_API_KEY": "sk-test-local",
            "GRAPHRAG_UI_HOME": home,
        }
    )
    settings = LLMSettings.from_env_and_secrets()
    try:
        for sample in args.sample or ["en", "zh"]:
            index = store.load(ROOT / "data" / "sample" / sample / "index")
            print(f"\n== sample {sample}: {question(sample)!r}")
            print(
                f"{'mode':<28}{'style':<9}{'cited':>7}{'items':>7}{'bad':>5}{'tokens':>8}  {'cited%':>6} {'est%':>6} {'unused%':>7}"
            )
            for mode, params in cases():
                case = {"mode": mode, "query": question(sample), "params": params}
                row = case_result(index, case, settings=settings, answer=True, use_cache=False)
                support = row.get("support")
                name = mode + (f" {params['version']}" if params else "")
                if not support:
                    error = (row.get("answer") or {}).get("error") or "no answer"
                    print(f"{name:<28}{'-':<9} no trace: {error}")
                    continue
                split = support["split"]
                total = sum(s["total"] for s in split)
                cited = sum(s["cited"] for s in split)
                est = sum(s["estimated"] for s in split)
                unused = sum(s["unused"] for s in split)
                n_cited = len({(i["kind"], i["item_id"]) for i in support["cited"] + support["parts_cited"]})
                print(
                    f"{name:<28}{support['style']:<9}{n_cited:>7}{support['items']:>7}{support['not_in_context']:>5}"
                    f"{total:>8}  {pct(cited, total):>6} {pct(est, total):>6} {pct(unused, total):>7}"
                )
    finally:
        stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
