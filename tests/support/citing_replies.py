"""Test-server replies that cite the context the way each reference's prompt asks — known ids and one invented.

``citing_reply`` wraps the default script (``tests/support/llm_server.py``): keyword, rating and DRIFT calls
answer as before; answers and map points cite. GraphRAG answers cite the first two rows of each
``-----Table-----`` plus ``Entities (99999)``; map points cite their batch's first report and the reduce
answer the reports its points cite plus ``Reports (99999)``; LightRAG answers put ``[1]`` in the text and
a ``### References`` list of the first two documents plus ``[99] invented-document.md``. nano answers
cite nothing (its prompts ask for no citations).
"""

from __future__ import annotations

import json
import re
from typing import Any

try:
    from tests.support.llm_server import Reply, default_reply, is_map_prompt, is_rating_prompt
except ImportError:  # run as ``python tests/support/llm_server.py --cite``
    from tests.support.llm_server import Reply, default_reply, is_map_prompt, is_rating_prompt  # type: ignore[no-redef]

INVENTED_ID = "99999"
INVENTED_DOC = "invented-document.md"
_TABLE = re.compile(r"-----(?P<name>Entities|Relationships|Reports|Sources|Claims)-----\n[^\n]*\n", re.MULTILINE)
_ROW_ID = re.compile(r"^(\d+)\|", re.MULTILINE)
_REPORTS = re.compile(r"\[Data: Reports \(([^)]*)\)\]")
_REFERENCE = re.compile(r"^\[(\d+)\][ \t]+(.+?)[ \t]*$", re.MULTILINE)
_FILE_PATH = re.compile(r'"file_path":\s*"([^"]+)"')


def graphrag_ids(context: str) -> dict[str, list[str]]:
    """The first two ids of each GraphRAG table in the context."""
    found: dict[str, list[str]] = {}
    heads = list(_TABLE.finditer(context))
    for i, head in enumerate(heads):
        body = context[head.end() : heads[i + 1].start() if i + 1 < len(heads) else len(context)]
        ids = list(dict.fromkeys(_ROW_ID.findall(body)))[:2]
        if ids:
            found[head.group("name")] = ids
    return found


def graphrag_answer(system: str) -> str:
    ids = graphrag_ids(system)
    if not ids and re.search(r"^id\|text$", system, re.MULTILINE):  # basic search: one table, no section line
        ids = {"Sources": list(dict.fromkeys(_ROW_ID.findall(system)))[:2]}
    if not ids:
        reports = list(dict.fromkeys(i.strip() for m in _REPORTS.findall(system) for i in m.split(",")))
        reports = [r for r in reports if r.isdigit()][:3]
        cited = f"[Data: Reports ({', '.join(reports)})]" if reports else ""
        return (
            f"The reports describe the guilds and the city {cited}.\n\n"
            f"A further claim rests on a report that was never shown [Data: Reports ({INVENTED_ID})]."
        )
    tables = "; ".join(f"{name} ({', '.join(v)})" for name, v in ids.items())
    return (
        f"The context answers the question from its tables [Data: {tables}].\n\n"
        f"One more detail comes from a record the context never held [Data: Entities ({INVENTED_ID})].\n\n"
        "Nothing else in the context bears on it."
    )


def lightrag_answer(system: str) -> str:
    listed = (
        _REFERENCE.findall(system[system.find("Reference Document List") :])
        if "Reference Document List" in system
        else []
    )
    if listed:
        docs = [(n, path) for n, path in listed[:2]]
    else:  # 1.4.7: no list; cite the first chunks' files
        paths = list(dict.fromkeys(_FILE_PATH.findall(system)))[:2]
        docs = [(str(i), path) for i, path in enumerate(paths, start=1)]
    lines = "\n".join(f"- [{n}] {path}" for n, path in docs)
    first = docs[0][0] if docs else "1"
    return (
        f"The documents answer the question [{first}].\n\n"
        f"### References\n\n{lines}\n- [{INVENTED_ID[:2]}] {INVENTED_DOC}\n"
    )


def citing_reply(body: dict[str, Any]) -> Reply:
    messages = body.get("messages") or []
    last = str(messages[-1].get("content", "")) if messages else ""
    system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), "")
    text = system + "\n" + last
    if '"high_level_keywords"' in last or is_rating_prompt(text) or '"follow_up_queries"' in text:
        return default_reply(body)
    if is_map_prompt(text):
        if "[Data:" not in text:  # nano's map prompt asks for no references
            return default_reply(body)
        ids = _ROW_ID.findall(text)[:1] or ["0"]
        point = {"description": f"The reports describe the guilds [Data: Reports ({ids[0]})].", "score": 80}
        return Reply(text=json.dumps({"points": [point]}))
    if "Document Chunks" in system and "reference_id" in system:
        return Reply(text=lightrag_answer(system))
    if "[Data:" in system:
        return Reply(text=graphrag_answer(system))
    return default_reply(body)
