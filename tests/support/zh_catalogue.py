"""What a reader sees on a page, and whether the zh catalogue accounts for it.

``visible_strings`` walks an AppTest element tree and returns every UI string a reader sees: titles,
headings, captions, notices, labels, help texts, placeholders, options, tab and expander labels,
metric labels, table column headers, the reason cells of tables (``REASON_COLUMNS``: why kept, why
dropped, a rating's reason, a map call's outcome) and chart titles. Other table cells, code blocks
(contexts, prompts) and the answer are data, not UI.

``untranslated`` keeps the strings that neither match a zh catalogue template (with every value
filled in being acceptable itself) nor are names the page shows as data (index content, mode names,
reference parameter names and values).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from graphrag_ui.base.i18n import t
from graphrag_ui.retrieval.registry import get_mode, mode_names

ROOT = Path(__file__).resolve().parents[2]

# element types whose ``body`` is UI text (markdown holds UI text too: headings, bold labels)
_BODY = {"title", "header", "subheader", "caption", "markdown", "info", "warning", "error", "success", "exception"}
# words that read the same in both languages (formats, units, protocols, brand names)
TECHNICAL = {
    "token",
    "tokens",
    "JSON",
    "CSV",
    "HTML",
    "URL",
    "API",
    "LLM",
    "MB",  # a size unit and the upload file types (uploader_text's limit line)
    "MD",
    "TXT",
    "pyvis",
    "ILIKE",
    "ms",
    "USD",
    "hl",
    "ll",
    "jaccard",
    "LightRAG",
    "GraphRAG",
    "Microsoft",
    "nano",
    "graphrag",
    "nano-graphrag",
    "LanceDB",
    "litellm",
    "chroma",
    "sqlite",
    "PostgreSQL",
    "ONNX",
    "UTF",
    "md",
    "txt",
    "English",
    "Language",
    "seed",
    "CLI",
    "hash",
    "True",
    "False",
    "None",
}
STREAMLIT_PLACEHOLDER = "Choose an option"
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.\-/:<>]*")


def _markdown_text(body: str) -> str:
    """Markdown without its emphasis, code ticks, links' targets, headings' hashes and Streamlit's text
    directives (``:small[…]``, ``:gray[…]``: styling the page never shows as text)."""
    body = re.sub(r"\]\([^)]*\)", "]", body)
    body = re.sub(r":(small|gray|grey|blue|green|orange|red|violet|rainbow|primary)\[", "[", body)
    body = re.sub(r"^\s*#+\s*", "", body, flags=re.M)
    return re.sub(r"[*`\[\]]+", " ", body).strip()


# columns (by their name in the frame) whose cells are reasons the package wrote: UI text, not data
# ("step", "detail": the Trace view's step names and what each step did)
REASON_COLUMNS = {"why", "dropped", "why dropped", "reason", "map", "step", "detail"}


def _table(proto):
    import pyarrow as pa

    return pa.ipc.open_stream(proto.arrow_data.data).read_all()


def reason_cells(proto) -> list[str]:
    """The texts in a dataframe's reason columns (see ``REASON_COLUMNS``), without duplicates."""
    table = _table(proto)
    cells = [v for name in table.schema.names if name in REASON_COLUMNS for v in table.column(name).to_pylist()]
    return list(dict.fromkeys(v for v in cells if isinstance(v, str) and v.strip()))


def _column_headers(proto) -> list[str]:
    """A dataframe's visible headers: its column config labels, else the column names it shows."""
    config = json.loads(proto.columns) if proto.columns else {}
    table = _table(proto)
    names = [n for n in table.schema.names if not n.startswith("__index_level")]
    order = list(proto.column_order) or names
    headers = []
    for name in order:
        conf = config.get(f"name:{name}") or config.get(name) or {}
        if conf.get("hidden"):
            continue
        headers.append(conf.get("label") or name)
        if conf.get("help"):
            headers.append(conf["help"])
    return headers


def _chart_titles(spec_json: str) -> Iterator[str]:
    """Axis, legend and chart titles of a Vega-Lite spec, and field names shown without a title."""

    def walk(node: object) -> Iterator[str]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "title" and isinstance(value, str):
                    yield value
                elif key in {"x", "y", "color"} and isinstance(value, dict) and "title" not in value:
                    if isinstance(value.get("field"), str):
                        yield value["field"]
                    yield from walk(value)
                else:
                    yield from walk(value)
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)

    yield from walk(json.loads(spec_json))


def _element_strings(node) -> Iterator[str]:
    kind = getattr(node, "type", "")
    proto = getattr(node, "proto", None)
    if kind in _BODY and proto is not None and getattr(proto, "body", ""):
        yield _markdown_text(proto.body) if kind == "markdown" else proto.body
        return
    if kind in {"tab", "expander"}:
        yield node.label
        return
    if proto is None:
        return
    if kind == "arrow_data_frame" or type(node).__name__ == "Dataframe":
        yield from _column_headers(proto)
        yield from reason_cells(proto)
        return
    if kind == "arrow_vega_lite_chart":
        yield from _chart_titles(proto.spec)
        return
    if kind == "progress" and proto.text:
        yield proto.text
    for field in ("label", "help", "placeholder"):
        value = getattr(proto, field, "") if hasattr(proto, field) else ""
        if isinstance(value, str) and value:
            yield _markdown_text(value) if field == "help" else value
    if kind in {"selectbox", "multiselect"} and not proto.placeholder:
        yield STREAMLIT_PLACEHOLDER  # what the browser shows for an empty choice unless placeholder= is given
    if hasattr(proto, "options"):
        yield from (getattr(o, "content", o) if not isinstance(o, str) else o for o in proto.options)


def visible_strings(tree) -> list[str]:
    """Every UI string on the rendered page, in page order, without duplicates."""
    out: list[str] = []

    def walk(node) -> None:
        for text in _element_strings(node):
            if text and text.strip() and text not in out:
                out.append(text.strip())
        children = getattr(node, "children", None)
        if children:
            for child in children.values() if isinstance(children, dict) else children:
                walk(child)

    walk(tree)
    return out


def reference_names() -> set[str]:
    """Mode names, families, reference parameter and field names, choice values, embedder ids (kept as they are)."""
    from graphrag_ui.embedding.embed import available_embedders
    from graphrag_ui.ui.results.tables import _DATA_COLUMNS

    names: set[str] = set(available_embedders())
    names |= {field for fields in _DATA_COLUMNS.values() for field in fields}  # the reference's row fields
    # (nano-graphrag's section names, Reports / Entities / Relationships / Sources, are not among them: the
    # change line and the Budget view show them translated, the reference's spelling beside the translation)
    for mode in mode_names():
        spec = get_mode(mode)
        names |= {mode, spec.family}
        for param in spec.params:
            names.add(param.name)
            names |= {str(c) for c in param.choices}
            if param.type == "str":
                names.add(str(param.default))
    return names


def index_names(index) -> set[str]:
    """Names the page shows from the index itself (entities, communities, chunks, documents)."""
    names = {e.name for e in index.entities} | {c.id for c in index.communities} | {c.title for c in index.communities}
    names |= {e.type for e in index.entities}  # entity types are the extraction's words (the graph's filter)
    names |= {str(c.id) for c in index.chunks} | {str(getattr(c, "doc_id", "")) for c in index.chunks}
    names |= {str(index.manifest.source), str(index.manifest.embedder), str(index.manifest.tokenizer)}
    return {n for n in names if n}


def _plain(text: str, allowed: set[str]) -> bool:
    """No English word left once allowed names are taken out (technical words and numbers may stay)."""
    text = re.sub(r"'[^']*'", " ", text)  # quoted list items are data (keywords taken from the question)
    text = re.sub(r"\S*/\S*", " ", text)  # paths and model ids are data
    for name in sorted(allowed, key=len, reverse=True):
        if len(name) > 1 and name in text:
            text = text.replace(name, " ")
    words = [w.strip(".-/:<>_") for w in _WORD.findall(text)]
    # a word with a slash is a path or a model id (data); a word with an underscore is an identifier
    return all(w in TECHNICAL or "/" in w or "_" in w or not re.search(r"[A-Za-z]{2,}", w) for w in words)


_FIELD = re.compile(r"\{(\w+)(?:[:!][^}]*)?\}")


def template_pattern(template: str) -> re.Pattern[str]:
    """A regex matching every text the template can produce; each placeholder is a named group."""
    parts, seen, pos = [], set(), 0
    for m in _FIELD.finditer(template):
        parts.append(re.escape(template[pos : m.start()]))
        name = m.group(1)
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        pos = m.end()
    parts.append(re.escape(template[pos:]))
    return re.compile("".join(parts) + r"\Z", re.S)


def zh_texts() -> list[str]:
    """Every Chinese text of the zh gettext catalogue."""
    from babel.messages.pofile import read_po

    with (ROOT / "graphrag_ui" / "locales" / "zh_CN" / "LC_MESSAGES" / "graphrag_ui.po").open("rb") as f:
        catalog = read_po(f)
    return [m.string for m in catalog if m.id and m.string]


def _templates() -> list[re.Pattern[str]]:
    return [template_pattern(t) for t in zh_texts() if re.search(r"[A-Za-z]{2,}", t)]


def translated(text: str, allowed: set[str], patterns: list[re.Pattern[str]], depth: int = 0) -> bool:
    """No English in ``text`` beyond allowed names, or it is a zh catalogue text whose values are so too.

    (zh catalogue texts that keep an English word, e.g. a reference's section name, pass only as a
    whole template, never word by word.)"""
    if _plain(text, allowed):
        return True
    if depth > 3:
        return False
    for pattern in patterns:
        match = pattern.match(text)
        if match and all(translated(v, allowed, patterns, depth + 1) for v in match.groupdict().values()):
            return True
    for sep in ("；", "，"):  # parts the package joined (i18n.joined) or listed (i18n.listed), each its own message
        if sep in text:
            return all(translated(part, allowed, patterns, depth + 1) for part in text.split(sep))
    return False


def untranslated(strings: Iterable[str], allowed: set[str]) -> list[str]:
    patterns = _templates()
    return [s for s in strings if not translated(s, allowed, patterns)]


def allowed_names() -> set[str]:
    """Everything a zh page may show untranslated: reference names, both samples' content and questions."""
    from pathlib import Path

    from graphrag_ui.base.i18n import LANGUAGES
    from graphrag_ui.index import store
    from graphrag_ui.ui.shell.state import SAMPLES, suggested_questions

    names = reference_names() | set(LANGUAGES) | set(LANGUAGES.values()) | {"Language / 语言"}
    for key, folder in SAMPLES.items():
        names |= {key} | index_names(store.load(Path(folder) / "index")) | set(suggested_questions(key))
    return names


# the text a reader sees in the browser: visible text nodes outside data grids, code blocks and iframes
VISIBLE_UI_TEXT = """() => {
  // icon ligatures render as glyphs and the skip link is a screen-reader aid: neither is text a reader sees
  const skip = '[data-testid="stCode"],[data-testid="stDataFrame"],[data-testid="stIFrame"],script,style,'
    + '[data-testid="stMarkdownContainer"] code,[data-testid="stIconMaterial"],[data-testid="stSkipToContent"]';
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, el = node.parentElement, text = node.nodeValue.trim();
    if (!text || !el || el.closest(skip) || el.offsetParent === null) continue;
    if (parseFloat(getComputedStyle(el).fontSize) === 0) continue;  // drawn at size 0: replaced, not seen
    out.push(text);
  }
  // words a style draws in place of others (uploader_text): a ::after's quoted content
  for (const el of document.body.querySelectorAll('*')) {
    const after = getComputedStyle(el, '::after').content;
    if (el.offsetParent !== null && after && after.startsWith('"') && after.length > 2) out.push(JSON.parse(after));
  }
  return [...new Set(out)];
}"""


def reason_headers(lang: str) -> list[str]:
    """The headers the grids give their reason columns (``REASON_COLUMNS``) in ``lang``."""
    return [t(text, lang) for text in ("Why selected", "why dropped", "why kept", "why", "map call", "step", "detail")]


# the grids' headers and the cells under a reason header, as the browser draws them (the data grid
# paints on a canvas; its accessibility table holds the headers and the rows in view)
GRID_REASON_TEXT = """(reasonHeaders) => {
  const headers = [], reasons = [];
  for (const grid of document.querySelectorAll('[data-testid="stDataFrame"]')) {
    if (grid.offsetParent === null) continue;
    const columns = new Set();
    for (const th of grid.querySelectorAll('th')) {
      const text = th.innerText.trim();
      if (text) headers.push(text);
      if (reasonHeaders.includes(text)) columns.add(th.getAttribute('aria-colindex'));
    }
    for (const td of grid.querySelectorAll('td')) {
      const text = td.innerText.trim();
      if (text && columns.has(td.getAttribute('aria-colindex'))) reasons.push(text);
    }
  }
  return {headers: [...new Set(headers)], reasons: [...new Set(reasons)]};
}"""
