"""Long-running index work for the Index page: build from uploads, import, re-embed, statistics.

Each operation writes a NEW folder under the app's home (atomically, through the store) and only
then registers it, so sessions querying other indexes are never disturbed.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from graphrag_ui.base.access import Access
from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.index.model import Index
from graphrag_ui.ui.shell.language import translate

MAX_UPLOAD_BYTES = 5 * 1024 * 1024
ALLOWED_SUFFIXES = {".txt", ".md"}
UPLOAD_TYPES = sorted(suffix[1:] for suffix in ALLOWED_SUFFIXES)  # what the uploader offers
Progress = Callable[[str, int, int], None]


def safe_name(name: str) -> str:
    """A folder name from user text: letters, digits, dot, dash, underscore only."""
    cleaned = re.sub(r"[^\w.-]+", "-", name.strip(), flags=re.UNICODE).strip("-.")
    if not cleaned:
        raise UserError(msg("give the new index a name (letters, digits, - or _)"))
    return cleaned[:64]


def indexes_home(home: Path) -> Path:
    folder = home / "indexes"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def operator_access(home: Path) -> Access:
    """The operator's limits for this page (``graphrag_ui.base.access``): read from the server's side only."""
    from graphrag_ui.base.access import read

    return read(home)


def existing(out: Path) -> str | None:
    """What an import or build into ``out`` would replace ("two-docs: 2 documents, 9 entities, embedder
    hash"), or None when nothing is there."""
    if not out.exists():
        return None
    try:
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        counts = manifest.get("counts") or {}
        return msg(
            "{name}: {documents} documents, {entities} entities, embedder {embedder}",
            name=out.name,
            documents=counts.get("documents", "?"),
            entities=counts.get("entities", "?"),
            embedder=str(manifest.get("embedder", "?"))[:80],
        )
    except (OSError, ValueError, AttributeError):
        return msg("{name}: a folder that holds no readable index", name=out.name)


def check_replace(out: Path, confirmed: bool) -> None:
    """Refuse to replace an index that is already there unless the analyst ticked the box naming it."""
    there = existing(out)
    if there and not confirmed:
        raise UserError(
            msg("an index of this name is already there: {what}", what=there),
            where=out.name,
            fix=msg("tick the box to replace it, or choose another name"),
        )


def check_rewrite(access: Access, path: str | Path, key: str) -> None:
    """Re-embed rewrites an index in place: only one the app wrote under its home; samples and indexes
    opened by path are read-only."""
    if key.startswith("sample:") or not access.owns(path):
        raise UserError(
            msg("this index is read-only here (a bundled sample, or a folder opened by path)"),
            fix=msg("import or build a copy, then re-embed the copy"),
        )


def check_import(access: Access, src: str, embedder: str | None) -> None:
    """What an import is refused for before its job starts: an embedder name ``check_name`` refuses, a
    folder outside the operator's roots, a database URL the browser may not give (read, not connected to).
    ``import_source`` checks them again (the CLI has no page before it)."""
    from graphrag_ui.embedding.embed import check_name
    from graphrag_ui.index.importers import lightrag_pg, pg_url

    if embedder is not None:
        check_name(embedder)
    if lightrag_pg.is_url(src):
        pg_url.parse(src, access)
    else:
        access.source(src)


def check_uploads(files: list[tuple[str, bytes]]) -> list[tuple[str, str]]:
    """(file name, text) for each upload, or one clear error naming the first bad file."""
    if not files:
        raise UserError(msg("no documents uploaded"), fix=msg("add .txt or .md files"))
    out = []
    seen: set[str] = set()
    for name, data in files:
        if any(ord(c) < 32 or ord(c) == 127 for c in name) or Path(name).name in ("", ".", ".."):
            raise UserError(msg("the file name is empty or holds control characters"), where=repr(name[:80]))
        if Path(name).name.casefold() in seen:  # the second would overwrite the first: never drop one silently
            raise UserError(
                msg("two uploads have this name; one of them would be lost"),
                where=Path(name).name,
                fix=msg("rename one of them and upload both again"),
            )
        seen.add(Path(name).name.casefold())
        if Path(name).suffix.lower() not in ALLOWED_SUFFIXES:
            raise UserError(msg("only .txt and .md documents are accepted"), where=name)
        if len(data) > MAX_UPLOAD_BYTES:
            raise UserError(msg("file is larger than {n} MB", n=MAX_UPLOAD_BYTES // (1024 * 1024)), where=name)
        if b"\x00" in data:
            raise UserError(msg("this looks like a binary file, not text"), where=name)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UserError(
                msg("not UTF-8 text (byte {n})", n=exc.start),
                where=name,
                fix=msg("save the file as UTF-8 and upload it again"),
            ) from None
        if not text.strip():
            raise UserError(msg("the file is empty"), where=name)
        out.append((Path(name).name, text))
    return out


def build_from_uploads(
    files: list[tuple[str, bytes]],
    out_dir: Path,
    *,
    extractor: str,
    embedder: str,
    llm_model: str | None,
    progress: Progress | None = None,
    on_warning: Callable[[str], None] | None = None,
    replace: bool = False,
) -> Index:
    from graphrag_ui.index.builder.pipeline import build

    docs = check_uploads(files)
    with tempfile.TemporaryDirectory(prefix="graphrag-ui-upload-") as tmp:
        for name, text in docs:
            (Path(tmp) / name).write_text(text, encoding="utf-8")
        kwargs: dict = {"extractor": extractor, "embedder": embedder, "progress": progress, "on_warning": on_warning}
        kwargs["replace"] = replace  # the analyst ticked the box naming the index there, or nothing is replaced
        if extractor == "llm":
            if not llm_model:
                raise UserError(
                    msg("LLM extraction needs a model"),
                    fix=msg("configure one on the Settings page, or use the offline extractor"),
                )
            from graphrag_ui.model_client.client import complete

            kwargs.update(
                llm=lambda messages: complete(messages, model=llm_model),
                llm_id=llm_model,
                cache_path=str(out_dir.with_name(out_dir.name + ".llm_cache.json")),
            )
        return build(tmp, out_dir, **kwargs)


def statistics(index: Index) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(counts, degree histogram, community sizes per level)."""
    counts = pd.DataFrame([{"what": k, "count": v} for k, v in index.counts().items()])
    degrees = Counter(d for _, d in index.graph.degree())
    histogram = pd.DataFrame(sorted(degrees.items()), columns=["degree", "entities"])
    sizes = pd.DataFrame(
        [{"community": c.id, "level": c.level, "members": len(c.members), "title": c.title} for c in index.communities],
        columns=["community", "level", "members", "title"],
    )
    return counts, histogram, sizes


def vector_location(index: Index) -> str:
    """Where the index's vectors live: ``local`` (chroma files in the folder) or ``chroma server host:port``."""
    try:
        storage = json.loads((Path(index.path) / "manifest.json").read_text(encoding="utf-8")).get("storage", {})
    except (OSError, ValueError):
        return "local"
    chroma = storage.get("chroma", {}) if isinstance(storage, dict) else {}
    if chroma.get("mode") == "server":
        return f"chroma server {chroma.get('host')}:{chroma.get('port')}"
    return "local"


def source_version(index: Index) -> str:
    """What wrote the index, as its files show it ("LightRAG ≤ 1.1 layout", "GraphRAG 1.x layout", …);
    never the release a mode follows (a LightRAG 1.2 index is not "1.4.7")."""
    from graphrag_ui.index.import_report import layout_label

    return layout_label(index)


def import_report(index: Index) -> tuple[list[str], list[str], pd.DataFrame]:
    """(found, missing, readiness table) of the open index, in the UI language: what the CLI prints after an
    import, for the statistics tab."""
    from graphrag_ui.services.readiness import kept_readiness

    facts, modes = kept_readiness(index)
    rows = [
        {
            "mode": row.mode,
            "status": translate(row.status_text),
            "why": "; ".join(translate(r) for r in row.reasons),
        }
        for row in modes
    ]
    found = [translate(f) for f in facts.found]
    missing = [translate(m) for m in facts.missing]
    return found, missing, pd.DataFrame(rows, columns=["mode", "status", "why"])


EMBEDDER_CHOICES = ("unknown", "use-m3", "hash", "chroma-minilm", "litellm")


def chosen_embedder(choice: str, litellm_model: str) -> str | None:
    """The embedder an import records: None for "unknown" (say it later or re-embed), else a name
    ``check_name`` accepts (a blank litellm model is refused there, with the valid names)."""
    if choice == "unknown":
        return None
    if choice == "litellm":
        return f"litellm:{litellm_model.strip()}" if litellm_model.strip() else "litellm:"
    return choice


def source_name(src: str) -> str:
    """A new index's default name: the source folder's name, or a PostgreSQL URL's workspace."""
    from urllib.parse import parse_qs, urlsplit

    from graphrag_ui.index.importers.lightrag_pg import is_url

    if is_url(src):
        return (parse_qs(urlsplit(src).query).get("workspace") or ["lightrag"])[0]
    return Path(src).name
