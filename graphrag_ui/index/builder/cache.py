"""LLM response cache of the builder: resume after a crash, replay a build with no model at all.

File format: one JSON object ``{key: {"model", "kind", "ref", "return"}}`` where
``key = sha256(json.dumps([model, messages], ensure_ascii=False, sort_keys=True))``, ``kind`` is
extract / glean / summary / report and ``ref`` says which call it was (document + chunk, entity,
community). The file is rewritten atomically (temp file + rename) after each new answer, so a crash
loses at most the call in flight. API keys are never part of the key or the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg

LLMFunction = Callable[[list[dict]], str]


def cache_key(model: str, messages: list[dict]) -> str:
    payload = json.dumps([model, messages], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def load_entries(path: str | Path) -> dict[str, dict]:
    """Entries of a cache file ({} when it does not exist); a clear error when it is not ours."""
    file = Path(path)
    if not file.exists():
        return {}
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(
            msg("the LLM cache file cannot be read ({error})", error=str(exc)),
            where=str(file),
            fix=msg("delete it or pass another --cache"),
        ) from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) and "return" in v for v in data.values()):
        raise UserError(msg("not an LLM cache file (expected {key: {model, kind, ref, return}})"), where=str(file))
    return data


def replay_model(entries: dict[str, dict], path: str | Path) -> str:
    """The model id recorded in a cache (replay needs it to compute the keys)."""
    models = sorted({str(v.get("model", "")) for v in entries.values()})
    if not entries:
        raise UserError(
            msg("the LLM cache is empty or missing, nothing to replay"),
            where=str(path),
            fix=msg("build once with --llm MODEL"),
        )
    if len(models) != 1:
        raise UserError(
            msg("the LLM cache holds answers of several models ({models})", models=", ".join(models)), where=str(path)
        )
    return models[0]


class CachedLLM:
    """Wraps an LLM function: answers from the cache when possible, records new answers.

    In replay mode no function is called; a missing answer is a UserError naming the call.
    """

    def __init__(
        self, llm: LLMFunction | None, model: str, path: str | Path | None = None, replay: bool = False
    ) -> None:
        if llm is None and not replay:
            raise UserError(
                msg("no LLM given"), fix=msg("pass --llm MODEL, --llm replay:CACHE.json or --extractor offline")
            )
        self.llm, self.model, self.replay = llm, model, replay
        self.path = Path(path) if path else None
        self.entries: dict[str, dict] = load_entries(self.path) if self.path else {}
        self.hits = self.calls = 0
        self._lock = threading.Lock()

    def __call__(self, messages: list[dict], kind: str, ref: str, keep: Callable[[str], bool] | None = None) -> str:
        """The cached answer, or a new one; an empty answer, or one ``keep`` rejects, is not cached."""
        key = cache_key(self.model, messages)
        with self._lock:
            entry = self.entries.get(key)
        if entry is not None:
            with self._lock:
                self.hits += 1
            return str(entry["return"])
        if self.replay or self.llm is None:
            raise UserError(
                msg("replay cache miss for the {kind} call of {ref}", kind=kind, ref=ref),
                where=str(self.path) if self.path else "LLM cache",
                fix=msg(
                    "the cache was made from other documents, settings or prompts; rebuild with --llm MODEL to fill it"
                ),
            )
        try:
            answer = self.llm(messages)
        except UserError as exc:  # e.g. the provider refused: say which call, and that nothing is lost
            raise UserError(
                msg("{what} (during the {kind} call of {ref})", what=exc.what, kind=kind, ref=ref),
                where=exc.where,
                fix=self._resume_fix(exc.fix),
            ) from None
        if not isinstance(answer, str):
            raise UserError(
                msg(
                    "the LLM returned {type} instead of text for the {kind} call of {ref}",
                    type=type(answer).__name__,
                    kind=kind,
                    ref=ref,
                )
            )
        with self._lock:
            self.calls += 1
            if answer.strip() and (keep is None or keep(answer)):
                self.entries[key] = {"model": self.model, "kind": kind, "ref": ref, "return": answer}
                self._write()
        return answer

    def _resume_fix(self, fix: str) -> str:
        """What to do after a failed call: the call's own fix, where the answers so far are, resume."""
        if self.path and fix:
            return msg(
                "{fix}; the {n} answers so far are kept in {path}; run the same command again to resume",
                fix=fix,
                n=len(self.entries),
                path=str(self.path),
            )
        if self.path:
            return msg(
                "the {n} answers so far are kept in {path}; run the same command again to resume",
                n=len(self.entries),
                path=str(self.path),
            )
        if fix:
            return msg("{fix}; run the same command again to resume", fix=fix)
        return msg("run the same command again to resume")

    def _write(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".llm_cache.", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(self.entries, handle, ensure_ascii=False, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
