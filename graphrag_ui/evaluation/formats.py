"""Read a question set: our JSONL (``gold``) or a public benchmark's own file, into one ``QuestionSet``.

Readers for the formats people already have (field names as each benchmark spells them):

- MultiHop-RAG: ``query``, ``answer``, ``question_type``, ``evidence_list[].fact`` / ``.title``;
- HotpotQA and 2WikiMultihopQA: ``_id``, ``question``, ``answer``, ``type``, ``supporting_facts`` as
  ``[title, sentence index]`` resolved against ``context`` as ``[title, [sentences]]``;
- GraphRAG-Bench: ``id``, ``question``, ``answer``, ``question_type``, ``evidence`` where present.

A file is a JSON array or one JSON object per line; the format is told by each record's fields (or
forced with ``fmt``). Every record that cannot be read becomes a ``LineProblem`` (its line in a JSONL
file, its position in an array); ``on_bad="refuse"`` turns the first ones into one ``UserError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.evaluation.gold import (
    MAX_FILE_BYTES,
    MAX_QUESTIONS,
    LineProblem,
    Question,
    QuestionSet,
    _strings,
    _text,
    question_from,
    text_id,
)

FORMATS = ("auto", "jsonl", "multihop-rag", "hotpotqa", "graphrag-bench")
MAX_PROBLEMS = 1000  # bad records listed at most; the reader stops there


def _multihop(obj: dict[str, Any], number: int) -> Question:
    evidence = obj.get("evidence_list") or []
    if not isinstance(evidence, list) or not all(isinstance(e, dict) for e in evidence):
        raise ValueError(msg("'evidence_list' must be a list of objects with 'fact' and 'title'"))
    return Question(
        id=text_id(obj.get("id"), f"mh-{number}"),
        question=_text(obj.get("query"), "query", required=True),
        answer=_text(obj.get("answer"), "answer"),
        evidence=_strings([e.get("fact") for e in evidence if e.get("fact")], "evidence_list[].fact"),
        evidence_docs=list(dict.fromkeys(_strings([e.get("title") for e in evidence if e.get("title")], "title"))),
        type=_text(obj.get("question_type"), "question_type"),
    )


def _hotpot(obj: dict[str, Any], number: int) -> Question:
    facts, context = obj.get("supporting_facts") or [], obj.get("context") or []
    shape = msg("'supporting_facts' must be [title, sentence index] pairs and 'context' [title, [sentences]]")
    try:
        sentences = {str(title): sents if isinstance(sents, list) else None for title, sents in context}
        pairs = [(str(title), idx) for title, idx in facts]
    except (TypeError, ValueError):
        raise ValueError(shape) from None
    if any(not isinstance(idx, int) or isinstance(idx, bool) for _, idx in pairs) or any(
        sents is None or not all(isinstance(s, str) for s in sents) for sents in sentences.values()
    ):
        raise ValueError(shape)  # 1.5, NaN, true or an object is no sentence index; a sentence is a string
    evidence = []
    for title, idx in pairs:
        sents = sentences.get(title)
        if sents is None or not 0 <= idx < len(sents):
            raise ValueError(msg("supporting fact ({title}, {idx}) is not in 'context'", title=title, idx=idx))
        evidence.append(str(sents[idx]).strip())
    answer = obj.get("answer")
    return Question(
        id=text_id(obj.get("_id") if obj.get("_id") is not None else obj.get("id"), f"hp-{number}"),
        question=_text(obj.get("question"), "question", required=True),
        answer=_text(answer if isinstance(answer, str) else None, "answer"),
        evidence=_strings(evidence, "supporting_facts"),
        evidence_docs=list(dict.fromkeys(title for title, _ in pairs)),
        type=_text(obj.get("type"), "type"),
    )


def _bench(obj: dict[str, Any], number: int) -> Question:
    evidence = obj.get("evidence")
    return Question(
        id=text_id(obj.get("id"), f"gb-{number}"),
        question=_text(obj.get("question"), "question", required=True),
        answer=_text(obj.get("answer"), "answer"),
        evidence=_strings(evidence, "evidence"),
        type=_text(obj.get("question_type"), "question_type"),
    )


def _ours(obj: Any, number: int) -> Question:
    return question_from(obj)


READERS: dict[str, Callable[[Any, int], Question]] = {
    "jsonl": _ours,
    "multihop-rag": _multihop,
    "hotpotqa": _hotpot,
    "graphrag-bench": _bench,
}


def detect(obj: Any) -> str:
    """The format a record is written in, told by its fields."""
    if isinstance(obj, dict):
        if "evidence_list" in obj or ("query" in obj and "question" not in obj):
            return "multihop-rag"
        if "supporting_facts" in obj:
            return "hotpotqa"
        if "question_type" in obj and "type" not in obj:
            return "graphrag-bench"
    return "jsonl"


def _records(text: str) -> Iterator[tuple[int, Any] | LineProblem]:
    """(position, parsed record) pairs, or a ``LineProblem`` for a line that is not JSON, one at a time (the
    reader stops early): a JSON array or JSON lines."""
    text = text.removeprefix("\ufeff")  # a byte-order mark (Windows editors write one) is not the first record
    stripped = text.lstrip(" \t\r\n")
    if stripped.startswith("["):
        try:
            data = json.loads(stripped)
        except (ValueError, RecursionError) as exc:  # ValueError: also a number of more than 4,300 digits
            raise UserError(
                msg("the question file is a JSON array that cannot be read: {error}", error=str(exc))
            ) from None
        if not isinstance(data, list):
            raise UserError(msg("the question file must be a JSON array or JSON lines"))
        yield from enumerate(data, start=1)
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            yield LineProblem(number, msg("not JSON ({error})", error=exc.msg))
        except ValueError:
            yield LineProblem(number, msg("not JSON (a number of more than 4,300 digits)"))
        except RecursionError:
            yield LineProblem(number, msg("JSON nested too deeply to read"))


def read_questions(text: str, name: str = "questions", *, fmt: str = "auto", on_bad: str = "skip") -> QuestionSet:
    """Parse a question file's text (see the module docstring); ``on_bad`` is "skip" or "refuse"."""
    if fmt not in FORMATS:
        raise UserError(
            msg("unknown question format {fmt}", fmt=repr(fmt)), fix=msg("formats: {names}", names=", ".join(FORMATS))
        )
    if on_bad not in ("skip", "refuse"):
        raise UserError(msg("on_bad must be 'skip' or 'refuse', got {value}", value=repr(on_bad)))
    problems: list[LineProblem] = []
    chosen = fmt if fmt != "auto" else ""
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for record in _records(text):
        if isinstance(record, LineProblem):
            problems.append(record)
            if _too_many(problems, record.line):
                break
            continue
        number, obj = record
        if not chosen and isinstance(obj, dict):
            chosen = detect(obj)
        if len(questions) >= MAX_QUESTIONS:
            problems.append(
                LineProblem(
                    number, msg("more than {limit} questions: this one and the rest are not read", limit=MAX_QUESTIONS)
                )
            )
            break
        try:
            if not isinstance(obj, dict):
                raise ValueError(msg("each record must be a JSON object, got {kind}", kind=type(obj).__name__))
            question = READERS[chosen](obj, number)
        except ValueError as exc:
            problems.append(LineProblem(number, str(exc.args[0]) if exc.args else str(exc)))
            if _too_many(problems, number):
                break
            continue
        if question.id in seen:
            shown = repr(question.id if len(question.id) <= 60 else question.id[:57] + "...")
            problems.append(LineProblem(number, msg("id {id} repeats line {first}", id=shown, first=seen[question.id])))
            if _too_many(problems, number):
                break
            continue
        seen[question.id] = number
        questions.append(question)
    problems.sort(key=lambda p: p.line)
    if problems and on_bad == "refuse":
        shown = "; ".join(str(p) for p in problems[:3])
        more = msg(" (and {n} more)", n=len(problems) - 3) if len(problems) > 3 else ""
        raise UserError(
            msg("{n} bad record(s): {shown}{more}", n=len(problems), shown=shown, more=more),
            where=name,
            fix=msg("fix those lines, or skip them"),
        )
    if not questions:
        named = [str(problems[0])] + ([str(problems[-1])] if len(problems) > MAX_PROBLEMS else [])
        first = msg(": {problem}", problem="; ".join(named)) if problems else ""
        raise UserError(
            msg("the question file holds no readable question{first}", first=first), where=name, fix=_format_hint()
        )
    return QuestionSet(name, questions, problems, chosen or "jsonl")


def _too_many(problems: list[LineProblem], line: int) -> bool:
    """Whether the reader stops at ``MAX_PROBLEMS`` bad records (a file of a million bad lines is said in one
    line, not read to its end and listed)."""
    if len(problems) < MAX_PROBLEMS:
        return False
    problems.append(
        LineProblem(line, msg("more than {limit} bad records: the rest of the file is not read", limit=MAX_PROBLEMS))
    )
    return True


def _format_hint() -> str:
    return msg('one JSON object per line with at least "id" and "question" (see docs/evaluation.md)')


def load_questions(path: str | Path, *, fmt: str = "auto", on_bad: str = "skip") -> QuestionSet:
    """Read a question file from disk (at most ``MAX_FILE_BYTES``, never past them), see ``read_questions``."""
    file = Path(path)
    if not file.is_file():
        what = msg("the question file is a folder") if file.is_dir() else msg("no such question file")
        if file.exists() and not file.is_dir():  # a FIFO or a device: reading it could block or never end
            what = msg("the question file is not a regular file")
        raise UserError(what, where=str(path), fix=_format_hint())
    try:
        data = b""
        if file.stat().st_size <= MAX_FILE_BYTES:  # a 1 GB file is refused unread
            with file.open("rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)  # /proc files say 0 bytes: the size alone is no bound
        if file.stat().st_size > MAX_FILE_BYTES or len(data) > MAX_FILE_BYTES:
            raise UserError(
                msg("the question file is more than {limit} bytes", limit=f"{MAX_FILE_BYTES:,}"),
                where=str(path),
                fix=msg("split it or keep a subset"),
            )
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(msg("the question file is not UTF-8 (byte {at})", at=exc.start), where=str(path)) from None
    except OSError as exc:
        raise UserError(
            msg("cannot read the question file: {error}", error=str(exc.strerror)), where=str(path)
        ) from None
    return read_questions(text, file.name, fmt=fmt, on_bad=on_bad)
