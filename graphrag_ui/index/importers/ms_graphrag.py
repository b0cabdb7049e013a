"""Import a Microsoft GraphRAG 1.x, 2.x or 3.x ``output`` folder into the canonical ``Index``.

1.x tables (``create_final_*.parquet``) are read by ``ms_graphrag_v1`` into the rows of the 2.x ones.

Both layouts hold the same Parquet tables (entities, relationships, communities, community_reports,
text_units, documents); 3.x renamed ``text_units.document_ids`` to ``document_id`` and its LanceDB
tables (``entity_description``, ``text_unit_text``, ``community_full_content``: ``id, vector`` plus
dates) have no ``text``/``attributes`` columns, where 2.x has ``default-entity-description`` etc. with
``id, text, vector, attributes``. Only ``id`` and ``vector`` are read, so both work alike.

The LanceDB tables are read by ``ms_graphrag_lance``.

What is kept, so that ``ms.local`` reproduces GraphRAG's context byte for byte:
* entities in ``entities.parquet`` row order; ``Entity.id`` = GraphRAG id, ``name`` = title;
  ``extra``: ``human_readable_id`` (the table's short id), ``degree`` (GraphRAG's rank),
  ``frequency``; ``source_chunk_ids`` = ``text_unit_ids`` in stored order;
  ``communities`` = (level, community) in ``communities.parquet`` row order (query time re-derives
  GraphRAG's set order from it);
* relations in row order with ``extra`` ``human_readable_id`` and ``combined_degree`` (rank);
* communities: ``id`` = community number as a string, report title/full_content/summary/rating and
  the report's community_reports.parquet row (global search loads reports in that order);
* chunks = text units in row order (GraphRAG's short id is the row index, kept in ``extra``);
* vectors as stored, in LanceDB row order (float64 lists from older 2.x releases become float32).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.base.i18n import msg, pmsg
from graphrag_ui.base.progress import ProgressFn
from graphrag_ui.index import coverage
from graphrag_ui.index.importers import ms_graphrag_v1
from graphrag_ui.index.importers.fields import FIX, as_float
from graphrag_ui.index.importers.ms_graphrag_lance import lance_dir_of, lance_kernel, read_vectors
from graphrag_ui.index.model import Chunk, Community, Document, Entity, Index, Manifest, Relation

KIND = "msgraphrag"
TABLES = ("entities", "relationships", "communities", "community_reports", "text_units")
REQUIRED_COLUMNS = {
    "entities": ("id", "human_readable_id", "title", "type", "description", "text_unit_ids", "degree"),
    "relationships": ("id", "human_readable_id", "source", "target", "description", "weight", "combined_degree"),
    "communities": ("id", "community", "level", "parent", "entity_ids"),
    "community_reports": ("id", "community", "level", "title", "summary", "full_content", "rank"),
    "text_units": ("id", "text"),
}
KNOWN_DIMS = {"hash": 256, "use-m3": 512, "chroma-minilm": 384}


def output_dir(path: str | Path) -> Path:
    """The folder holding the Parquet tables: ``path`` itself or its ``output`` sub-folder."""
    folder = Path(path)
    for name in ("entities.parquet", "create_final_entities.parquet"):
        if not (folder / name).is_file() and (folder / "output" / name).is_file():
            return folder / "output"
    return folder


LEGACY = "create_final_entities.parquet"  # GraphRAG 0.x/1.x table names


def detect(path: str | Path) -> bool:
    folder = output_dir(path)
    if (folder / LEGACY).is_file() or (folder / "output" / LEGACY).is_file():
        return True  # GraphRAG 0.x/1.x
    return (folder / "entities.parquet").is_file() and (folder / "relationships.parquet").is_file()


def _read_table(
    folder: Path, name: str, required: bool = True, columns: tuple[str, ...] | None = None
) -> list[dict[str, Any]] | None:
    import pyarrow.parquet as pq

    path = folder / f"{name}.parquet"
    if not path.is_file():
        if not required:
            return None
        raise IndexFormatError(
            msg("missing {name}.parquet", name=name),
            where=str(folder),
            fix=msg("give a complete GraphRAG output folder"),
        )
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several types for broken files
        raise IndexFormatError(
            msg("cannot read Parquet: {error}", error=str(exc).splitlines()[0][:160]), where=str(path)
        ) from None
    missing = [
        c for c in (REQUIRED_COLUMNS.get(name, ()) if columns is None else columns) if c not in table.column_names
    ]
    if missing:
        raise IndexFormatError(
            msg(
                "column(s) {missing} missing (found: {column_names})",
                missing=", ".join(missing),
                column_names=", ".join(table.column_names),
            ),
            where=str(path),
            fix=msg("this does not look like GraphRAG 1.x, 2.x or 3.x output"),
        )
    return _check_numbers(table, path).to_pylist()


# columns GraphRAG writes as numbers; a string or other type there is named with its record
NUMERIC_COLUMNS = (
    "human_readable_id", "degree", "frequency", "weight", "combined_degree", "n_tokens",
    "level", "community", "parent", "rank", "size",
)  # fmt: skip


def _check_numbers(table: Any, path: Path) -> Any:
    """``table`` with its numeric columns as numbers: GraphRAG 0.x wrote some as text ("12"), which are
    cast; a value that is no number is refused with its record."""
    import pyarrow as pa

    for name in NUMERIC_COLUMNS:
        if name not in table.column_names:
            continue
        column = table.column(name)
        if pa.types.is_integer(column.type) or pa.types.is_floating(column.type) or pa.types.is_null(column.type):
            continue
        values = column.to_pylist()
        ids = table.column("id").to_pylist() if "id" in table.column_names else list(range(len(values)))
        for record, value in zip(ids, values, strict=True):
            if value is not None:
                as_float(value, path, record, name)  # raises for the first value that is not a number
        cast = _as_numbers(column) if pa.types.is_string(column.type) or pa.types.is_large_string(column.type) else None
        if cast is not None:
            table = table.set_column(table.schema.get_field_index(name), name, cast)
            continue
        raise IndexFormatError(
            msg("column {name} is {column}, expected numbers", name=repr(name), column=str(column.type)),
            where=str(path),
            fix=FIX,
        )
    return table


def _as_numbers(column: Any) -> Any:
    """A text column of numbers as int64 (or float64 when some are not whole), else None."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for target in (pa.int64(), pa.float64()):
        try:
            return pc.cast(column, target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
    return None


def _opt_int(value: Any) -> int | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return int(value)


def _opt_float(value: Any) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _list(value: Any) -> list:
    return [] if value is None else list(value)


def _layout(folder: Path, text_units: list[dict]) -> str:
    if (folder / "lancedb" / "entity_description.lance").is_dir():
        return "graphrag-3"
    if (folder / "lancedb" / "default-entity-description.lance").is_dir():
        return "graphrag-2"
    return "graphrag-3" if text_units and "document_id" in text_units[0] else "graphrag-2"


def import_dir(src: str | Path, embedder: str | None = None, progress: ProgressFn | None = None) -> Index:
    """Read and validate a GraphRAG output folder; nothing is written."""
    root = Path(src)
    if not root.is_dir():
        raise IndexFormatError(msg("not a directory"), where=str(root), fix=msg("give the GraphRAG output folder"))
    if not any(root.iterdir()):
        raise IndexFormatError(msg("the directory is empty"), where=str(root))
    folder = output_dir(root)
    v1 = ms_graphrag_v1.is_v1(folder)
    if not v1 and not (folder / "entities.parquet").is_file():
        if (folder / "graph_chunk_entity_relation.graphml").is_file():
            raise IndexFormatError(
                msg("this is a nano-graphrag/LightRAG working directory, not GraphRAG output"),
                where=str(folder),
                fix=msg("import it with `import nano` / `import lightrag` (or `import auto`)"),
            )
        raise IndexFormatError(
            msg("missing entities.parquet"), where=str(folder), fix=msg("give the GraphRAG output folder")
        )
    steps, step = 4, 0

    def tick(stage: str) -> None:
        nonlocal step
        step += 1
        if progress:
            progress(stage, step, steps)

    if v1:
        rows, doc_rows = ms_graphrag_v1.read_tables(
            folder, lambda f, name, columns, required: _read_table(f, name, required, columns)
        )
    else:
        rows = {name: _read_table(folder, name) for name in TABLES}
        doc_rows = _read_table(folder, "documents", required=False) or []
    tick(msg("read tables"))
    layout = "graphrag-1" if v1 else _layout(folder, rows["text_units"])
    documents = [
        Document(
            id=_text(d.get("id")),
            title=_text(d.get("title")),
            text=_text(d.get("text")),
            extra={"human_readable_id": _opt_int(d.get("human_readable_id"))},
        )
        for d in doc_rows
    ]
    chunks = []
    for i, tu in enumerate(rows["text_units"]):
        doc_ids = (
            [_text(x) for x in _list(tu.get("document_ids"))]
            if "document_ids" in tu
            else [_text(tu.get("document_id"))]
        )
        chunks.append(
            Chunk(
                id=_text(tu["id"]),
                doc_id=doc_ids[0] if doc_ids else "",
                text=_text(tu["text"]),
                order=i,
                tokens=_opt_int(tu.get("n_tokens")) or 0,
                extra={
                    "short_id": str(i),
                    "human_readable_id": _opt_int(tu.get("human_readable_id")),
                    "document_ids": doc_ids,
                    "entity_ids": [_text(x) for x in _list(tu.get("entity_ids"))],
                    "relationship_ids": [_text(x) for x in _list(tu.get("relationship_ids"))],
                },
            )
        )
    memberships: dict[str, list[tuple[int, str]]] = {}
    for c in rows["communities"]:
        level, number = _opt_int(c.get("level")), _opt_int(c.get("community"))
        if level is None or number is None:
            raise IndexFormatError(
                msg("a community row has no level or community number"), where=str(folder / "communities.parquet")
            )
        for eid in _list(c.get("entity_ids")):
            memberships.setdefault(_text(eid), []).append((level, str(number)))
    entities = []
    for e in rows["entities"]:
        eid = _text(e["id"])
        text_units = [_text(x) for x in _list(e.get("text_unit_ids"))]
        entities.append(
            Entity(
                id=eid,
                name=_text(e["title"]),
                type=_text(e.get("type")),
                description=_text(e.get("description")),
                source_chunk_ids=text_units,
                occurrence=_opt_int(e.get("frequency")) or len(text_units),
                communities=memberships.get(eid, []),
                extra={
                    "human_readable_id": _opt_int(e.get("human_readable_id")),
                    "degree": _opt_int(e.get("degree")),
                    "frequency": _opt_int(e.get("frequency")),
                },
            )
        )
    relations = [
        Relation(
            id=_text(r["id"]),
            source=_text(r["source"]),
            target=_text(r["target"]),
            description=_text(r.get("description")),
            weight=_opt_float(r.get("weight")) if r.get("weight") is not None else 0.0,
            source_chunk_ids=[_text(x) for x in _list(r.get("text_unit_ids"))],
            extra={
                "human_readable_id": _opt_int(r.get("human_readable_id")),
                "combined_degree": _opt_int(r.get("combined_degree")),
            },
        )
        for r in rows["relationships"]
    ]
    titles = {e.id: e.name for e in entities}
    reports = {str(_opt_int(r["community"])): r for r in rows["community_reports"]}
    report_rows = {number: i for i, number in enumerate(reports)}  # global search loads reports in this order
    communities = []
    for c in rows["communities"]:
        number = str(_opt_int(c["community"]))
        rep = reports.get(number)
        parent = _opt_int(c.get("parent"))
        communities.append(
            Community(
                id=number,
                level=int(c["level"]),
                parent=None if parent is None or parent < 0 else str(parent),
                title=_text(rep["title"]) if rep else _text(c.get("title")),
                report=_text(rep["full_content"]) if rep else "",
                rating=_opt_float(rep.get("rank")) if rep else None,
                members=[titles.get(_text(x), _text(x)) for x in _list(c.get("entity_ids"))],
                extra={
                    "has_report": rep is not None,
                    "rank": _opt_float(rep.get("rank")) if rep else None,
                    "full_content": _text(rep["full_content"]) if rep else "",
                    "summary": _text(rep["summary"]) if rep else "",
                    "human_readable_id": _opt_int(c.get("human_readable_id")),
                    "community_title": _text(c.get("title")),
                    "report_id": _text(rep["id"]) if rep else "",
                    "report_level": _opt_int(rep.get("level")) if rep else None,
                    "report_row": report_rows.get(number),
                    "children": [int(x) for x in _list(c.get("children"))],
                },
            )
        )
    tick(msg("build model"))
    vectors, vector_sources = read_vectors(folder, layout)
    if v1 and not vectors:
        vectors, vector_sources = ms_graphrag_v1.parquet_vectors(folder, rows)
    if "communities" in vectors:  # LanceDB holds report ids; the model keys communities by number
        by_report = {c.extra["report_id"]: c.id for c in communities if c.extra["report_id"]}
        table = vectors["communities"]
        table.ids = [by_report.get(i, i) for i in table.ids]
    tick(msg("read vectors"))
    read = [lance_dir_of(folder, layout, kind) for kind in ("entities", "chunks") if kind in vectors]
    read = [p for p in read if p.is_dir()]
    kernel, writer = lance_kernel(layout, read[0] if read else None)
    dimension = next((t.matrix.shape[1] for t in vectors.values() if len(t)), 0)
    _check_embedder(embedder, dimension, folder)
    manifest = Manifest(
        source=layout,
        embedder=embedder or "unknown",
        dimension=dimension,
        tokenizer="cl100k_base",
        settings={
            "lance_kernel": kernel,
            "lance_writer": writer,
            "source_path": str(folder),
            "graphrag_layout": layout,
            "layout": str(LAYOUT_LABELS[layout]),
        },
        vector_sources=vector_sources,
        title=root.name,
    )
    index = Index(
        manifest=manifest,
        documents=documents,
        chunks=chunks,
        entities=entities,
        relations=relations,
        communities=communities,
        vectors=vectors,
        path="",
    )
    manifest.settings["import_warnings"] = _warnings(index, folder) + coverage.prune(index)
    index.manifest.counts = index.counts()
    tick(pmsg("progress stage", "done"))
    return index


LAYOUT_LABELS = {
    "graphrag-1": msg("GraphRAG 1.x layout"),
    "graphrag-2": msg("GraphRAG 2.x layout"),
    "graphrag-3": msg("GraphRAG 3.x layout"),
}


def _warnings(index: Index, folder: Path) -> list[str]:
    """What an incomplete output lacks (the import report says what it means for each mode)."""
    notes = []
    if not index.vectors:
        notes.append(
            msg(
                "{where} holds no vectors (no lancedb/ folder or embedding columns): vector search finds nothing "
                "until you re-embed",
                where=str(folder),
            )
        )
    if not any(c.report for c in index.communities):
        notes.append(msg("the output holds no community reports: global search has nothing to read"))
    if not index.chunks:
        notes.append(msg("the output holds no text units: the sources and basic search are empty"))
    return notes


def _check_embedder(embedder: str | None, dimension: int, folder: Path) -> None:
    if not embedder or embedder == "unknown" or not dimension:
        return
    dim = KNOWN_DIMS.get(embedder)  # loading a model just to read its size would be slow
    if dim and dim != dimension:
        raise IndexFormatError(
            msg(
                "the LanceDB vectors have dimension {dimension} but embedder {embedder} makes {dim}",
                dimension=dimension,
                embedder=repr(embedder),
                dim=dim,
            ),
            where=str(folder / "lancedb"),
            fix=msg("pass the --embedder that built this index"),
        )


def describe(index: Index) -> str:
    """One line for logs: layout, counts and where the vectors came from."""
    return json.dumps({"source": index.manifest.source, **index.counts(), **index.manifest.vector_sources})
