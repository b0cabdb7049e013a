"""Peak memory of the bounded abuse cases of issue 27: each case in a fresh process, its peak RSS printed.

    .venv/bin/python scripts/bench_abuse_memory.py

Cases: a sweep range of 10⁸ steps, and ranges whose step underflows; a crafted ``.npy`` header that
claims (2³¹, 2¹⁴) float32 (128 GiB); DRIFT with a 10 MB expansion answer; DRIFT whose every local
answer lists a 20,000-character follow-up "list" (a string: one question per character in GraphRAG)
and whose primer lists 1,500 follow-ups (capped: 50 per answer, 1,000 per run); a 220,000-character one
(past the reply limit: every local call fails, loudly); the same DRIFT run with the default model script (baseline);
and the CLI doing nothing but start (``--help``). Each line: case, exit code / outcome, peak RSS (MiB).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample" / "en" / "index"
QUESTION = "Who directs the research station?"

# run one CLI command in this process and print "exit=N peak=KiB" (ru_maxrss is KiB on Linux)
CHILD = """
import io, json, resource, sys
from contextlib import redirect_stdout, redirect_stderr
sys.path.insert(0, {root!r}); sys.path.insert(0, {tests!r})
argv = json.loads(sys.argv[1])
server = json.loads(sys.argv[2])
stop = None
if server is not None:
    from tests.support.llm_server import Reply, Script, default_reply, drift_reply, start_server
    import os
    def reply(body):
        messages = body.get("messages") or []
        last = str(messages[-1].get("content", "")) if messages else ""
        system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), "")
        if last.startswith("## Task\\nWrite a hypothetical answer") and "expansion" in server:
            return Reply(text="x" * server["expansion"], chunk_size=1_000_000)
        if '"intermediate_answer"' in last and "primer" in server:
            follow = [f"Follow-up question number {{i}}?" for i in range(server["primer"])]
            return Reply(text=json.dumps({{"intermediate_answer": "Primer.", "score": 60, "follow_up_queries": follow}}))
        if '"follow_up_queries"' in system and '"response"' in system and "local" in server:
            text = "".join(chr(0x4e00 + (hash(last) + i) % 20000) for i in range(server["local"]))
            answer = {{"response": "Local.", "score": 50, "follow_up_queries": text}}
            return Reply(text=json.dumps(answer, ensure_ascii=False))
        text = drift_reply(system, last)
        return Reply(text=text) if text is not None else default_reply(body)
    url, stop = start_server(Script(reply))
    os.environ.update({{"GRAPHRAG_UI_LLM_MODEL": "openai/gpt-4o-mini", "GRAPHRAG_UI_LLM_API_BASE": url,
                       "OPENAI_API_KEY": "sk-bench", "GRAPHRAG_UI_LLM_MAX_RETRIES": "0"}})
from graphrag_ui.cli import main
out, err = io.StringIO(), io.StringIO()
with redirect_stdout(out), redirect_stderr(err):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
if stop:
    stop()
said = [l for l in err.getvalue().splitlines() if l.startswith(("error", "note", "warning"))]
print(json.dumps({{"code": code, "said": said[-1][:110] if said else "", "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}}))
"""


def crafted_index(folder: Path) -> Path:
    """The sample index with entities.npy's header claiming (2**31, 2**14) float32."""
    out = folder / "crafted"
    shutil.copytree(SAMPLE, out)
    npy = out / "vectors" / "entities.npy"
    header = repr({"descr": "<f4", "fortran_order": False, "shape": (2**31, 2**14)}).encode("latin1")
    pad = 64 - (10 + len(header) + 1) % 64
    npy.write_bytes(b"\x93NUMPY\x01\x00" + (len(header) + pad + 1).to_bytes(2, "little") + header + b" " * pad + b"\n")
    return out


def run(argv: list[str], server: dict | None = None) -> dict:
    code = CHILD.format(root=str(ROOT), tests=str(ROOT / "tests"))
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(argv), json.dumps(server)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"code": done.returncode, "said": (done.stderr.strip().splitlines() or [""])[-1][:110], "peak_kib": 0}


def main() -> int:
    drift = ["query", "--index", str(SAMPLE), "--mode", "ms.drift", "--param", "drift_k_followups=4"]
    drift += ["--param", "primer_folds=2", "--param", "n_depth=3", "--context-only", QUESTION]
    with tempfile.TemporaryDirectory() as tmp:
        cases = [
            ("start only (--help)", ["query", "--help"], None),
            ("sweep top_k=1:100000000:1", ["sweep", "--index", str(SAMPLE), "--mode", "nano.local",
                                           "--param", "top_k=1:100000000:1", QUESTION], None),
            ("sweep 0:1e300:1e-300", ["sweep", "--index", str(SAMPLE), "--mode", "ms.local",
                                      "--param", "text_unit_prop=0:1e300:1e-300", QUESTION], None),
            ("sweep 0:1:1e-9", ["sweep", "--index", str(SAMPLE), "--mode", "ms.local",
                                "--param", "text_unit_prop=0:1:1e-9", QUESTION], None),
            ("crafted .npy (2^31 x 2^14 f4)", ["query", "--index", str(crafted_index(Path(tmp))),
                                              "--mode", "nano.local", "--context-only", QUESTION], None),
            ("DRIFT, default script (baseline)", drift, {}),
            ("DRIFT, 10 MB expansion answer", drift, {"expansion": 10_000_000}),
            ("DRIFT, 1,500 primer + 20k-char follow-ups", drift, {"primer": 1500, "local": 20_000}),
            ("DRIFT, 220k-char follow-up string", drift, {"local": 220_000}),
        ]  # fmt: skip
        print(f"{'case':<44} {'exit':>4}  {'peak RSS':>9}  said")
        for name, argv, server in cases:
            got = run(argv, server)
            print(f"{name:<44} {got['code']!s:>4}  {got['peak_kib'] / 1024:>6.0f} MiB  {got['said']}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
