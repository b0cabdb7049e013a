"""A mode's vector top-k on a chroma server's HNSW, for an index opened with ``vectors="server"`` (``server_tables``).

The modes search through ``recall.vector_topk`` (nano-graphrag, LightRAG) and
``ms.vector_search.lance_knn`` (GraphRAG). Both keep their exact numpy arithmetic for an ordinary
``VectorTable``; for a ``ServerTable`` (an index opened with ``vectors="server"``, whose matrices were
never loaded) they hand the search to ``server_topk`` here, which asks the chroma collection the
index was saved to. So the goldens, all on local tables, cannot change.

Scores. Our collections are written in chroma's ``cosine`` space (``vectorstore.HNSW``): chroma
returns ``d = 1 - cos``. The nano/LightRAG score is ``row · q/|q|``, which is the cosine because
the stored rows are unit length (nano-vectordb normalises on insert; our embedders emit unit rows),
so ``sim = 1 - d``. GraphRAG ranks by squared L2, which for unit rows is ``|q|² + 1 - 2|q|·cos``;
``lance_knn`` converts with that. Chroma computes in float32 with its own summation order, so a
score can differ from the exact one in the last bits, and an exact tie can come back in either order.

Every server search is recorded (``recording``); ``retrieval.core.vector_engine`` then writes on the
Retrieval which engine searched and, when the index's local ``.npy`` copy exists, how many of the
server's top-k the exact search also returns for the same query (``overlap``).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from graphrag_ui.base.errors import IndexFormatError, UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.timing import elapsed_ms, now
from graphrag_ui.index import validate, vectorstore
from graphrag_ui.index.model import VectorTable
from graphrag_ui.index.servers import server_timeouts

ENGINES = ("local", "server")
EF_FLOOR = 100  # chroma's own default ef_search


def search_ef(top_k: int) -> int:
    """``hnsw:search_ef`` a top-k query needs: ``max(100, 4·top_k)``.

    HNSW keeps ``ef`` candidates while it walks the graph and returns the best ``top_k`` of them, so
    ``ef`` must be at least ``top_k``; recall rises with the ratio ef/top_k, and our collections are
    built with a light graph (``max_neighbors`` 8, see ``vectorstore.HNSW``), so four candidates per
    result, never fewer than chroma's default of 100. Collections saved to a server start at
    ``vectorstore.SERVER_EF_SEARCH`` (1000: every top-k up to 250). A larger top-k raises the
    collection's ef (never lowers it: other readers of a shared server keep their recall), but chroma
    1.5 applies a raised ef only when the server next loads the collection, so that search says so
    in a warning.
    """
    return max(EF_FLOOR, 4 * int(top_k))


@dataclass(eq=False)
class ServerTable(VectorTable):
    """The ids of one vector kind whose rows live in a chroma server collection (``matrix`` is empty)."""

    kind: str = ""
    collection: str = ""
    host: str = ""
    port: int = 0
    mirror: Path | None = None  # the local ``.npy`` copy, read only to measure the overlap
    _row: dict[str, int] = field(default_factory=dict, repr=False)
    _handle: Any = field(default=None, repr=False)
    _ef: int = field(default=0, repr=False)
    _raised: list[tuple[int, int]] = field(default_factory=list, repr=False)  # (from, to), not yet said
    _exact: VectorTable | None = field(default=None, repr=False)

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"

    def row_of(self, vid: str) -> int | None:
        if not self._row:
            self._row = {v: i for i, v in enumerate(self.ids)}
        return self._row.get(vid)


def is_server(table: VectorTable) -> bool:
    return isinstance(table, ServerTable)


_CLIENTS: dict[tuple[str, int], Any] = {}


@contextlib.contextmanager
def _server_errors(table: ServerTable) -> Iterator[None]:
    """Anything the server or the HTTP client raises becomes one line: what, where, what to do."""
    try:
        yield
    except server_timeouts.ServerUnavailable as exc:
        _CLIENTS.pop((table.host, table.port), None)
        table._handle = None
        _search_failed(table, exc.what)
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001 - chromadb and httpx raise many internal types
        _CLIENTS.pop((table.host, table.port), None)
        table._handle = None
        detail = " ".join(str(exc).split())[:160]
        if "does not exist" in detail or "NotFound" in type(exc).__name__:
            raise UserError(
                msg(
                    "the chroma collection {name} ({kind} vectors) is not on the server at {where}",
                    name=repr(table.collection),
                    kind=table.kind,
                    where=table.where,
                ),
                where=table.where,
                fix=msg(
                    "re-save the index with CHROMA_HOST/CHROMA_PORT set to this server, or query with --vectors local"
                ),
            ) from None
        _search_failed(table, f"{type(exc).__name__}: {detail}")


def _search_failed(table: ServerTable, detail: str) -> None:
    raise UserError(
        msg(
            "the chroma server at {where} did not answer the {kind} search ({detail}); "
            "nothing was searched locally instead",
            where=table.where,
            kind=table.kind,
            detail=detail,
        ),
        where=table.where,
        fix=msg(
            "start it (`chroma run --host {host} --port {port}`), point CHROMA_HOST/CHROMA_PORT at it, or query "
            "with --vectors local",
            host=table.host,
            port=table.port,
        ),
    ) from None


def _collection(table: ServerTable, ef: int) -> Any:
    """The table's collection handle, with ``ef_search`` raised to at least ``ef``."""
    with _server_errors(table):
        if table._handle is None:
            client = _CLIENTS.get((table.host, table.port))
            if client is None:
                from chromadb.config import Settings

                client = server_timeouts.chroma_client(table.host, table.port, Settings(anonymized_telemetry=False))
                _CLIENTS[(table.host, table.port)] = client
            table._handle = client.get_collection(table.collection)
            hnsw = (table._handle.configuration or {}).get("hnsw") or {}
            table._ef = int(hnsw.get("ef_search") or 0)
        if table._ef < ef:
            table._handle.modify(configuration={"hnsw": {"ef_search": ef}})
            table._raised.append((table._ef, ef))
            table._ef = ef
        return table._handle


@dataclass
class Search:
    """One server search, kept so the Retrieval can say what searched and compare with exact."""

    table: ServerTable
    k: int
    ids: list[str]
    exact: Callable[[VectorTable], list[str]]  # the mode's exact top-k ids on the local copy
    ms: float
    raised: list[tuple[int, int]] = field(default_factory=list)  # ef raises this search asked for


_RECORD: contextvars.ContextVar[list[Search] | None] = contextvars.ContextVar("vector_searches", default=None)


class recording:  # lower case: used as the function it was, ``with recording() as searches:``
    """Collect the server searches a retrieval makes (nested retrievals each get their own list). A class, not
    a generator context manager: every retrieval (each sweep step) enters one (0.3 µs instead of 1 µs)."""

    __slots__ = ("_token",)

    def __enter__(self) -> list[Search]:
        searches: list[Search] = []
        self._token = _RECORD.set(searches)
        return searches

    def __exit__(self, *exc: object) -> None:
        _RECORD.reset(self._token)


def server_topk(
    table: ServerTable,
    query: np.ndarray,
    k: int,
    exact: Callable[[VectorTable], list[str]],
    stop: Callable[[float], bool] | None = None,
) -> list[tuple[int, float]]:
    """(row, cosine distance) pairs, nearest first, from the server's HNSW, ending before the first
    distance ``stop`` rejects (a mode's similarity threshold); ``exact`` is recorded for the overlap."""
    k = min(int(k), len(table))
    if k <= 0:
        return []
    handle = _collection(table, search_ef(k))
    start = now()
    with _server_errors(table):
        got = handle.query(query_embeddings=[np.asarray(query, dtype=np.float32)], n_results=k, include=["distances"])
    ms = elapsed_ms(start)
    raised, table._raised[:] = list(table._raised), []
    hits = []
    for vid, dist in zip(got["ids"][0], got["distances"][0], strict=True):
        row = table.row_of(vid)
        if row is None:
            raise UserError(
                msg(
                    "the chroma collection {name} on {where} returned id {vid}, which this index's ids file does not list",
                    name=repr(table.collection),
                    where=table.where,
                    vid=repr(vid),
                ),
                where=table.where,
                fix=msg(
                    "the collection belongs to another save of the index: re-save it, or query with --vectors local"
                ),
            )
        if stop is not None and stop(float(dist)):
            break
        hits.append((row, float(dist)))
    searches = _RECORD.get()
    if searches is not None:
        searches.append(Search(table, k, [table.ids[r] for r, _ in hits], exact, ms, raised))
    return hits


def server_vectors(table: ServerTable, ids: list[str]) -> dict[str, np.ndarray]:
    """Stored rows by id (LightRAG's chunk pick reads a few by id, as its own vector storage does)."""
    if not ids:
        return {}
    handle = _collection(table, 0)
    with _server_errors(table):
        got = handle.get(ids=list(ids), include=["embeddings"])
    return {vid: np.asarray(vec, dtype=np.float32) for vid, vec in zip(got["ids"], got["embeddings"], strict=True)}


def exact_table(table: ServerTable) -> VectorTable | None:
    """The local copy, memory-mapped once per table (read only when an overlap is asked for)."""
    if table._exact is None and table.mirror is not None and table.mirror.is_file():
        matrix = validate.load_matrix(table.mirror, len(table.ids), table.matrix.shape[1], mmap=True)
        table._exact = VectorTable(table.ids, matrix)
    return table._exact


def server_tables(folder: Path, storage: dict[str, Any]) -> dict[str, VectorTable]:
    """Tables that search the index's chroma server collections: ids only, no ``.npy`` matrix is read.

    The collections must hold the manifest's counts (a half-written or foreign collection would
    answer with rows this index does not know)."""
    section, chroma = storage.get("vectors", {}), storage.get("chroma", {})
    if section and chroma.get("mode") != "server":
        raise UserError(
            msg(
                "this index keeps its vectors locally (chroma: {mode}), not on a chroma server",
                mode=chroma.get("mode", "none"),
            ),
            where=str(folder),
            fix=msg("query with --vectors local, or re-save it with CHROMA_HOST/CHROMA_PORT set"),
        )
    host, port = vectorstore.server_from_env() or (chroma.get("host"), chroma.get("port"))
    counts = vectorstore.chroma_counts(chroma, folder) if section else {}
    out: dict[str, VectorTable] = {}
    for kind, meta in section.items():
        name = chroma["collections"].get(kind)
        if counts.get(kind) != meta["rows"]:
            what = (
                msg(
                    "the chroma collection {name} is not on the server at {where} "
                    "(the manifest says it holds {rows} vectors)",
                    name=repr(name),
                    where=f"{host}:{port}",
                    rows=meta["rows"],
                )
                if kind not in counts
                else msg(
                    "the chroma collection {name} on {where} holds {n} vectors but the manifest says {rows}",
                    name=repr(name),
                    where=f"{host}:{port}",
                    n=counts[kind],
                    rows=meta["rows"],
                )
            )
            raise UserError(
                what,
                where=str(folder),
                fix=msg(
                    "re-save the index with CHROMA_HOST/CHROMA_PORT set to this server, or query with --vectors local"
                ),
            )
        ids_file = validate.contained(folder, folder / "vectors" / f"{kind}.ids.json")
        if not ids_file.is_file():
            raise IndexFormatError(
                msg("the ids file of the server's vectors is missing"), where=str(ids_file), fix=validate.REBUILD
            )
        ids = validate.read_ids(ids_file)
        if len(ids) != meta["rows"]:
            raise IndexFormatError(
                msg("{ids} ids but the manifest says {rows}", ids=len(ids), rows=meta["rows"]),
                where=str(ids_file),
                fix=validate.REBUILD,
            )
        npy = validate.contained(folder, folder / "vectors" / f"{kind}.npy")
        empty = np.zeros((0, meta["dim"]), dtype=np.float32)
        out[kind] = ServerTable(ids, empty, kind, name, host, int(port), npy if npy.is_file() else None)
    if out:
        _check_same_collections(chroma, folder, out)
    return out


def _check_same_collections(chroma: dict[str, Any], folder: Path, tables: dict[str, ServerTable]) -> None:
    """Each collection is the one this index saved: the id chroma gave it at save (a collection deleted
    and made again under the same name gets another), and the few rows the save fingerprinted
    (``vectorstore.fingerprint``) project as they did (vectors overwritten under the same ids).
    Counts are checked before; no local vector file is read."""
    recorded = chroma.get("collection_ids") or {}
    prints = chroma.get("fingerprints") or {}
    with vectorstore.chroma_errors(chroma, folder):
        client = vectorstore.client_for(chroma, folder)
        try:
            for kind, table in tables.items():
                collection = client.get_collection(table.collection)
                saved = recorded.get(kind) if isinstance(recorded, dict) else None
                if saved and str(collection.id) != saved:
                    _replaced(
                        table, msg("its id is {now}, the save recorded {saved}", now=str(collection.id), saved=saved)
                    )
                _check_fingerprint(table, collection, prints.get(kind) if isinstance(prints, dict) else None)
        finally:
            client.close()


def _check_fingerprint(table: ServerTable, collection: Any, recorded: Any) -> None:
    try:
        rows, values = [int(r) for r in recorded["rows"]], [float(v) for v in recorded["values"]]
    except (TypeError, KeyError, ValueError):
        return  # saved before fingerprints were recorded: the id and the count are all there is
    if not rows or len(rows) != len(values) or max(rows) >= len(table):
        return
    ids = [table.ids[r] for r in rows]
    got = collection.get(ids=ids, include=["embeddings"])
    served = dict(zip(got["ids"], got["embeddings"], strict=True))
    for vid, value in zip(ids, values, strict=True):
        vector = served.get(vid)
        now = vectorstore.projections(np.asarray([vector], dtype=np.float32))[0] if vector is not None else None
        if now is None or not vectorstore.same_projection(float(now), value):
            _replaced(table, msg("the vector of id {id} differs from the one saved", id=repr(vid)))


def _replaced(table: ServerTable, why: str) -> None:
    raise UserError(
        msg(
            "the chroma collection {name} on {where} is not the one this index saved ({why})",
            name=repr(table.collection),
            where=table.where,
            why=why,
        ),
        where=table.where,
        fix=msg("re-save the index with CHROMA_HOST/CHROMA_PORT set to this server, or query with --vectors local"),
    )
