"""Every message the package can show, found by reading its source with ``ast``, and whether it is marked.

A *sink* is where a message enters something a reader sees: the ``what``/``fix`` of a ``UserError``
(and its subclasses), a ``warnings``/``notes`` list's ``append``, ``warn(...)``, a ``Problem``'s
reason, a stages ``note``, an ``error=`` keyword (an answer's or a model call's error), the reasons
the tables show (a candidate's, a point's or a rating's ``why`` and ``dropped``), a parameter's help
and a mode's summary. Each sink's expression is resolved to templates: literals and
f-strings (a formatted value becomes a placeholder), both branches of ``a if c else b``, ``+``,
local and module constants, a package function's return values, a parameter's arguments at every
call site, and ``what, fix = table[key]`` over a literal table. A formatted value that itself
resolves to text (a parameter fed with a message, a local message) yields its own templates too,
since a message's values are translated when they are messages. A template that is exactly one
``msg(...)`` call's text is *marked* (``Template.marked``): gettext translates it; any other text at a
sink (an f-string, a literal, a message glued to other text) reaches the reader in English.
"""

from __future__ import annotations

import ast
import itertools
import string
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "graphrag_ui"
ERROR_CLASSES = {"UserError", "IndexFormatError", "EmbedderMismatchError", "LLMError"}
# dataclasses whose fields the tables and the sidebar show: class -> {field: position in the constructor}
REASON_FIELDS = {
    "Candidate": {"why": 4, "dropped": 8},  # the tables' "why" and "why dropped"
    "Point": {"why": None, "dropped": None},  # map-reduce points (keyword fields)
    "Rating": {"why": None},  # dynamic community selection
    "ParamSpec": {"help": 3},  # a slider's help
    "ModeSpec": {"summary": 4},  # the mode's summary under the picker
}
REASON_ATTRIBUTES = {"why", "dropped"}  # c.why = ..., p.dropped = ...
LIST_SINKS = {"warnings", "notes"}  # x.warnings.append(...), notes.append(...)


class Hole:
    """A formatted value's place in a template; ``expr`` is its source (for naming), not its identity."""

    def __init__(self, expr: str = "") -> None:
        self.expr = expr

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hole)

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"Hole({self.expr!r})"


HOLE = Hole()


class _Mark:
    """Where a ``msg(...)`` call's text starts and ends inside a template (invisible in its text)."""

    def __repr__(self) -> str:
        return "MARK"


OPEN, CLOSE = _Mark(), _Mark()


@dataclass(frozen=True)
class Template:
    parts: tuple[str | Hole | _Mark, ...]  # literal text, a Hole for a formatted value, OPEN/CLOSE of a msg
    file: str
    line: int

    def sample(self) -> tuple[str, list[str]]:
        """The message with each hole filled by a distinct value that no catalogue entry translates."""
        values, out = [], []
        for part in self.parts:
            if isinstance(part, Hole):
                values.append(f"⟦{len(values)}⟧")
                out.append(values[-1])
            elif isinstance(part, str):
                out.append(part)
        return "".join(out), values

    @property
    def literal(self) -> str:
        return "".join(p for p in self.parts if isinstance(p, str))

    @property
    def marked(self) -> bool:
        """Whether the whole text is one ``msg``/``pmsg`` call's (not glued to other text around it)."""
        inner = self.parts[1:-1]
        return len(self.parts) >= 2 and self.parts[0] is OPEN and self.parts[-1] is CLOSE and OPEN not in inner


# a package class may offer a mapping's own methods (``index.RelationsByEntity.get``): a call ``x.get(k, d)``
# is then any dict's as often as that class's, and reading it as the class's would take ``d`` for a message
MAPPING_METHODS = {"get", "pop", "setdefault", "items", "keys", "values"}


def _template_parts(template: str) -> tuple[str | Hole, ...]:
    """A ``msg`` template as parts: its literal text, a hole for each ``{placeholder}``."""
    parts: list[str | Hole] = []
    for literal, field, _spec, _conv in string.Formatter().parse(template):
        if literal:
            parts.append(literal)
        if field is not None:
            parts.append(Hole(field))
    return tuple(parts)


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _items(node: ast.expr) -> list[ast.expr]:
    """The elements a literal list expression can hold (through ``*``, ``a if c else b`` and nesting)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return [item for elt in node.elts for item in _items(elt)]
    if isinstance(node, ast.Starred):
        return _items(node.value)
    if isinstance(node, ast.IfExp):
        return _items(node.body) + _items(node.orelse)
    if isinstance(node, ast.ListComp):
        return [node.elt]
    return [node]


class _Source:
    """The parsed package: functions by name, module constants by name, call sites by callee name."""

    def __init__(self) -> None:
        self.files: dict[str, ast.Module] = {}
        for path in sorted(PACKAGE.rglob("*.py")):
            rel = path.relative_to(PACKAGE.parent).as_posix()
            if rel == "graphrag_ui/base/i18n.py":
                continue
            self.files[rel] = ast.parse(path.read_text(encoding="utf-8"))
        self.functions: dict[str, list[tuple[str, ast.FunctionDef]]] = {}
        self.constants: dict[str, list[tuple[str, ast.expr]]] = {}
        self.calls: dict[str, list[tuple[str, ast.Call, ast.FunctionDef | None]]] = {}
        self.parent_fn: dict[int, ast.FunctionDef | None] = {}
        self.by_file: dict[str, list[ast.FunctionDef]] = {}
        for rel, tree in self.files.items():
            for stmt in tree.body:
                if isinstance(stmt, ast.Assign):
                    for target in stmt.targets:
                        if isinstance(target, ast.Name):
                            self.constants.setdefault(target.id, []).append((rel, stmt.value))
                elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
                    self.constants.setdefault(stmt.target.id, []).append((rel, stmt.value))
            self._walk(rel, tree, None)

    def _walk(self, rel: str, node: ast.AST, fn: ast.FunctionDef | None) -> None:
        for child in ast.iter_child_nodes(node):
            inner = fn
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.setdefault(child.name, []).append((rel, child))
                self.by_file.setdefault(rel, []).append(child)
                inner = child
            self.parent_fn[id(child)] = inner
            if isinstance(child, ast.Call) and _name(child.func):
                self.calls.setdefault(_name(child.func), []).append((rel, child, inner))
            self._walk(rel, child, inner)


class Collector:
    def __init__(self) -> None:
        self.src = _Source()
        self.found: dict[tuple, Template] = {}
        self._memo: dict[tuple[int, int], list[tuple]] = {}

    # --- resolving an expression to templates -------------------------------------------------
    def resolve(self, node: ast.AST | None, rel: str, fn, depth: int = 0) -> list[tuple]:
        """Templates (tuples of parts) the expression can produce; unknown values are one hole."""
        if node is None or depth > 12:
            return [(HOLE,)]
        key = (id(node), id(fn))
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = [(HOLE,)]  # a cycle (a parameter fed with itself) ends in a hole
        self._memo[key] = result = self._resolve(node, rel, fn, depth)
        return result

    def _resolve(self, node: ast.AST, rel: str, fn, depth: int) -> list[tuple]:
        if isinstance(node, ast.Constant):
            return [(node.value,)] if isinstance(node.value, str) else [(HOLE,)]
        if isinstance(node, ast.JoinedStr):
            pieces: list[list[tuple]] = []
            for value in node.values:
                if isinstance(value, ast.Constant):
                    pieces.append([(value.value,)])
                else:
                    if value.conversion == -1:  # a repr (!r) shows data, never a message
                        self._submessages(value.value, rel, fn, depth)
                    pieces.append([(Hole(ast.unparse(value.value)),)])
            return self._product(pieces)
        if isinstance(node, ast.BoolOp):  # x or "default"
            return [parts for value in node.values for parts in self.resolve(value, rel, fn, depth + 1)]
        if isinstance(node, ast.IfExp):
            return self.resolve(node.body, rel, fn, depth + 1) + self.resolve(node.orelse, rel, fn, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self._product(
                [self.resolve(node.left, rel, fn, depth + 1), self.resolve(node.right, rel, fn, depth + 1)]
            )
        if isinstance(node, ast.Name):
            return self._name_value(node.id, rel, fn, depth) or [(HOLE,)]
        if isinstance(node, ast.Attribute) and node.attr.isupper():
            return self._constant(node.attr, depth) or [(HOLE,)]
        if isinstance(node, ast.Call) and _name(node.func) in ("msg", "pmsg") and node.args:
            template = node.args[-1] if _name(node.func) == "msg" else node.args[1]
            for keyword in node.keywords:  # a value may be a message itself
                self._submessages(keyword.value, rel, fn, depth)
            if isinstance(template, ast.Constant) and isinstance(template.value, str):
                if not node.keywords:  # msg(template) alone is not formatted: its braces are text
                    return [(OPEN, template.value, CLOSE)]
                return [(OPEN, *_template_parts(template.value), CLOSE)]
            return [(HOLE,)]
        if isinstance(node, ast.Call) and _name(node.func) == "joined":
            for arg in node.args:
                for parts in self.resolve(arg, rel, fn, depth + 1):
                    self._add(parts, rel, getattr(arg, "lineno", 0))
            return [(HOLE,)]
        if (
            isinstance(node, ast.Call)
            and _name(node.func) in self.src.functions
            and not _name(node.func)[0].isupper()
            and not (isinstance(node.func, ast.Attribute) and _name(node.func) in MAPPING_METHODS)
        ):
            out = []
            for frel, fdef in self.src.functions[_name(node.func)]:
                for ret in (n for n in ast.walk(fdef) if isinstance(n, ast.Return) and n.value is not None):
                    if self.src.parent_fn.get(id(ret)) is fdef:
                        out += self.resolve(ret.value, frel, fdef, depth + 1)
            return out or [(HOLE,)]
        if isinstance(node, ast.Call) and _name(node.func) == "join" and isinstance(node.func.value, ast.Constant):
            for item in (a for arg in node.args for a in _items(arg)):  # "; ".join([note, *more]): each a message
                self._submessages(item, rel, fn, depth)
        return [(HOLE,)]

    @staticmethod
    def _product(pieces: list[list[tuple]]) -> list[tuple]:
        out = []
        for combo in itertools.islice(itertools.product(*pieces), 64):
            parts: list = []
            for piece in combo:
                for part in piece:
                    if parts and isinstance(part, str) and isinstance(parts[-1], str):
                        parts[-1] += part
                    elif part != "":
                        parts.append(part)
            out.append(tuple(parts))
        return out

    def _constant(self, name: str, depth: int) -> list[tuple]:
        out = []
        for crel, value in self.src.constants.get(name, []):
            marked = isinstance(value, ast.Call) and _name(value.func) in ("msg", "pmsg")  # REBUILD = msg("...")
            if marked or isinstance(value, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.IfExp)):
                out += self.resolve(value, crel, None, depth + 1)
        return out

    def _name_value(self, name: str, rel: str, fn, depth: int) -> list[tuple]:
        if fn is not None:
            local = self._assigned(name, rel, fn, depth)
            if local:
                return local
            params = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]
            if name in params:
                return self._arguments(fn, params, name, depth)
        if name.isupper() or name.startswith("_") and name[1:].isupper():
            return self._constant(name, depth)
        return []

    def _assigned(self, name: str, rel: str, fn, depth: int) -> list[tuple]:
        out, extra = [], []
        for node in ast.walk(fn):
            if self.src.parent_fn.get(id(node)) is not fn:
                continue
            if isinstance(node, ast.AugAssign) and _name(node.target) == name and isinstance(node.op, ast.Add):
                extra.append(node.value)  # what += f" and ..." (the message with and without it)
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    out += self.resolve(node.value, rel, fn, depth + 1)
                elif isinstance(target, ast.Tuple):
                    names = [_name(e) for e in target.elts]
                    if name in names:
                        out += self._unpacked(node.value, names.index(name), rel, fn, depth)
        for value in extra:
            out += self._product([out, self.resolve(value, rel, fn, depth + 1)])
        return out

    def _unpacked(self, value: ast.expr, position: int, rel: str, fn, depth: int) -> list[tuple]:
        """``what, fix = table[key]`` (a literal dict of tuples) or ``a, b = x, y``."""
        if isinstance(value, ast.Tuple):
            return self.resolve(value.elts[position], rel, fn, depth + 1)
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    if any(_name(t) == value.value.id for t in targets):
                        out = []
                        for item in node.value.values:
                            if isinstance(item, ast.Tuple):
                                out += self.resolve(item.elts[position], rel, fn, depth + 1)
                        return out
        return []

    def _arguments(self, fn, params: list[str], name: str, depth: int) -> list[tuple]:
        """What every call site of ``fn`` passes for parameter ``name``."""
        out = []
        positional = fn.args.posonlyargs + fn.args.args
        with_default = [a.arg for a in positional][len(positional) - len(fn.args.defaults) :]
        defaults = dict(zip(with_default, fn.args.defaults, strict=True))
        kw_defaults = zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True)
        defaults.update({a.arg: d for a, d in kw_defaults if d is not None})
        if name in defaults:  # def check_finite(..., fix: str = REEMBED)
            out += self.resolve(defaults[name], self._file_of(fn), None, depth + 1)
        offset = 1 if params and params[0] in {"self", "cls"} else 0
        position = params.index(name) - offset
        for crel, call, caller in self.src.calls.get(fn.name, []):
            arg = next((k.value for k in call.keywords if k.arg == name), None)
            if (
                arg is None
                and 0 <= position < len(call.args)
                and not any(isinstance(a, ast.Starred) for a in call.args)
            ):
                arg = call.args[position]
            if arg is not None:
                out += self.resolve(arg, crel, caller, depth + 1)
        return out

    def _file_of(self, fn) -> str:
        return next(rel for rel, defs in self.src.by_file.items() if fn in defs)

    def _submessages(self, value: ast.expr, rel: str, fn, depth: int) -> None:
        """A formatted value that is text of the package (a message passed on) is a message too."""
        if isinstance(value, (ast.Name, ast.Call, ast.IfExp, ast.BoolOp, ast.JoinedStr, ast.Constant, ast.BinOp)) or (
            isinstance(value, ast.Attribute) and value.attr.isupper()
        ):
            for parts in self.resolve(value, rel, fn, depth + 1):
                self._add(parts, rel, getattr(value, "lineno", 0))

    # --- sinks ----------------------------------------------------------------------------------
    def _add(self, parts: tuple, rel: str, line: int) -> None:
        key = tuple(parts)
        if key not in self.found:
            self.found[key] = Template(key, rel, line)

    def _sink(self, node: ast.expr, rel: str, fn) -> None:
        for parts in self.resolve(node, rel, fn):
            self._add(parts, rel, node.lineno)

    def collect(self) -> list[Template]:
        for rel, tree in self.src.files.items():
            for node in ast.walk(tree):
                fn = self.src.parent_fn.get(id(node))
                if isinstance(node, ast.Call):
                    callee = _name(node.func)
                    if callee in ERROR_CLASSES:
                        what = next((k.value for k in node.keywords if k.arg == "what"), None)
                        fix = next((k.value for k in node.keywords if k.arg == "fix"), None)
                        what = what or (node.args[0] if node.args else None)
                        fix = fix or (node.args[2] if len(node.args) > 2 else None)
                        for arg in (what, fix):
                            if arg is not None:
                                self._sink(arg, rel, fn)
                    elif callee == "append" and _name(node.func.value) in LIST_SINKS and node.args:
                        self._sink(node.args[0], rel, fn)
                    elif callee == "warn" and node.args:
                        self._sink(node.args[0], rel, fn)
                    elif callee == "Problem" and len(node.args) > 1:
                        self._sink(node.args[1], rel, fn)
                    elif callee in REASON_FIELDS:
                        for name, position in REASON_FIELDS[callee].items():
                            arg = next((k.value for k in node.keywords if k.arg == name), None)
                            if arg is None and position is not None and position < len(node.args):
                                arg = node.args[position]
                            if arg is not None:
                                self._sink(arg, rel, fn)
                    for keyword in node.keywords:  # AnswerResult(..., error=...): shown under the answer
                        if keyword.arg == "error":
                            self._sink(keyword.value, rel, fn)
                elif isinstance(node, ast.Assign):
                    sinks = {"note", *REASON_ATTRIBUTES}
                    if any(isinstance(t, ast.Attribute) and t.attr in sinks for t in node.targets):
                        self._sink(node.value, rel, fn)
                    for target in node.targets:  # stages.status, stages.note = FAILED, note
                        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                            for elt, value in zip(target.elts, node.value.elts, strict=False):
                                if isinstance(elt, ast.Attribute) and elt.attr == "note":
                                    self._sink(value, rel, fn)
        return sorted(self.found.values(), key=lambda t: (t.file, t.line))


def templates() -> list[Template]:
    """Every template with words in it (a template of holes and punctuation has nothing to translate)."""
    return [t for t in Collector().collect() if _worded(t)]


def _worded(template: Template) -> bool:
    """Words to translate: a template of holes and punctuation has none, and a single token with no
    hole (``tokens``, ``vdb_entities.json``, ``hl``) is a name passed along, not a sentence."""
    if not any(c.isalpha() for c in template.literal):
        return False
    return any(isinstance(p, Hole) for p in template.parts) or " " in template.literal.strip()
