"""Read GraphRAG's data references — ``[Data: Entities (5, 7); Relationships (12, +more)]`` — as models write them.

The answer prompts of GraphRAG's local, basic and DRIFT searches and its global map and reduce prompts
(graphrag 3.3.0 ``prompts/query/*``) ask for ``[Data: <dataset name> (record ids)]``, at most 5 ids
then ``+more``, several datasets separated by ``;``. Models bend it: spaces anywhere, ``,`` between
datasets, ranges ``5-7``, a bracket or the ``Data:`` missing, singular or Chinese table names and
full-width punctuation ``【】（）；，：、`` in Chinese answers. Each is read; what was read loosely is
said in the marker's note, never silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graphrag_ui.base.i18n import msg

# the context tables' names as GraphRAG writes them, and what models call them instead
TABLES = {
    "entities": "Entities",
    "entity": "Entities",
    "实体": "Entities",
    "relationships": "Relationships",
    "relationship": "Relationships",
    "relations": "Relationships",
    "relation": "Relationships",
    "关系": "Relationships",
    "sources": "Sources",
    "source": "Sources",
    "text units": "Sources",
    "来源": "Sources",
    "文本": "Sources",
    "资料": "Sources",
    "reports": "Reports",
    "report": "Reports",
    "community reports": "Reports",
    "报告": "Reports",
    "社区报告": "Reports",
    "claims": "Claims",
    "claim": "Claims",
    "covariates": "Claims",
    "声明": "Claims",
}
MAX_RANGE = 100  # a range wider than this is kept as written, not expanded
MAX_IDS = 500  # ids read from one marker at most (a model reply is bounded, a range must be too)
MAX_GROUPS = 10  # tables read from one marker at most (GraphRAG has five)
MAX_MARKERS = 1000  # markers read from one text at most (each holds its text: a flood of them must stay small)

_OPEN, _CLOSE = "[\\[【［]", "[\\]】］]"
_LP, _RP = "[(（]", "[)）]"
_NAME = r"(?:text units|community reports|[A-Za-z]{3,20}|[\u4e00-\u9fff]{2,4})"
_PREFIX = re.compile(rf"(?P<open>{_OPEN}\s*)?(?:Data|数据|資料)\s*[:：]\s*", re.IGNORECASE)
_KNOWN = "|".join(sorted((re.escape(name) for name in TABLES), key=len, reverse=True))
_BARE = re.compile(rf"{_OPEN}\s*(?=(?:{_KNOWN})\s*{_LP})", re.IGNORECASE)  # only known names without "Data:"
_GROUP = re.compile(
    rf"(?P<name>{_NAME})\s*{_LP}(?P<ids>[^()（）\[\]【】［］\n]{{0,2000}})(?P<rp>{_RP})?", re.IGNORECASE
)
_SEP = re.compile(r"\s*[;；,，、]\s*")
_CLOSE_RE = re.compile(rf"\s*{_CLOSE}")
_MORE = re.compile(r"^(?:\+\s*more|\+|more|\+\s*更多|更多|等|…|\.\.\.)$", re.IGNORECASE)
_RANGE = re.compile(r"^#?(\d+)\s*[-–—~～至到]\s*#?(\d+)$")
_DASHES = re.compile(r"(\d)\s*([-–—~～至到])\s*(\d)")


@dataclass
class Group:
    table: str  # the canonical name ("Entities"), or the name as written when unknown
    ids: list[str]
    more: bool = False
    notes: list[str] = field(default_factory=list)


@dataclass
class Marker:
    text: str
    start: int
    end: int
    groups: list[Group]
    notes: list[str] = field(default_factory=list)


def read_ids(raw: str) -> tuple[list[str], bool, list[str]]:
    """``"5, 7-9, +more"`` -> (["5", "7", "8", "9"], True, notes)."""
    ids: list[str] = []
    more = False
    notes: list[str] = []
    for token in re.split(r"[,，、;；\s]+", _DASHES.sub(r"\1\2\3", raw.strip())):
        token = token.strip().strip("'\"`")
        if not token:
            continue
        if _MORE.match(token):
            more = True
            continue
        if token.lower().startswith("+more") or token.startswith("+"):
            more, token = True, token.lstrip("+").strip()
            if not token or token.lower() == "more":
                continue
        found = _RANGE.match(token)
        if found:
            low, high = int(found.group(1)), int(found.group(2))
            if low <= high and high - low <= MAX_RANGE:
                ids.extend(str(n) for n in range(low, high + 1))
                notes.append(msg("range {range} read as {n} ids", range=token, n=high - low + 1))
                continue
            notes.append(msg("range {range} is too wide or reversed: kept as written", range=token))
        ids.append(token.lstrip("#"))
        if len(ids) >= MAX_IDS:
            notes.append(msg("more than {n} ids: the rest were not read", n=MAX_IDS))
            break
    return ids[:MAX_IDS], more, notes


def _groups(text: str, pos: int) -> tuple[list[Group], int]:
    groups: list[Group] = []
    while True:
        found = _GROUP.match(text, pos)
        if not found:
            break
        name = " ".join(found.group("name").split())
        table = TABLES.get(name.lower(), name)
        ids, more, notes = read_ids(found.group("ids"))
        if table != name:
            notes.insert(0, msg("table {name} read as {table}", name=repr(name), table=table))
        if found.group("rp") is None:
            notes.append(msg("no closing parenthesis"))
        groups.append(Group(table, ids, more, notes))
        pos = found.end()
        if len(groups) >= MAX_GROUPS:
            notes.append(msg("more than {n} tables in one reference: the rest were not read", n=MAX_GROUPS))
            break
        sep = _SEP.match(text, pos)
        if not sep or not _GROUP.match(text, sep.end()):
            break
        pos = sep.end()
    return groups, pos


def find_markers(text: str) -> list[Marker]:
    """Every data reference in ``text``, in order, with its offsets."""
    markers: list[Marker] = []
    pos = 0
    prefixed = _PREFIX.search(text)
    bare = _BARE.search(text)
    while pos < len(text):
        # each pattern is searched again only once the scan has passed its last hit: linear, not quadratic
        if prefixed is not None and prefixed.start() < pos:
            prefixed = _PREFIX.search(text, pos)
        if bare is not None and bare.start() < pos:
            bare = _BARE.search(text, pos)
        hits = [h for h in (prefixed, bare) if h is not None]
        if not hits:
            break
        hit = min(hits, key=lambda h: h.start())
        is_prefixed = hit is prefixed
        groups, end = _groups(text, hit.end())
        if not groups:
            pos = hit.end()
            continue
        notes: list[str] = []
        closing = _CLOSE_RE.match(text, end)
        opened = not is_prefixed or bool(hit.group("open"))
        if closing:
            end = closing.end()
        elif opened:
            notes.append(msg("no closing bracket"))
        if not opened:
            notes.append(msg("no opening bracket"))
        if not is_prefixed:
            notes.append(msg("no 'Data:' before the tables"))
        markers.append(Marker(text[hit.start() : end], hit.start(), end, groups, notes))
        pos = end
        if len(markers) >= MAX_MARKERS:
            markers[-1].notes.append(msg("more than {n} references: the rest were not read", n=MAX_MARKERS))
            break
    return markers
