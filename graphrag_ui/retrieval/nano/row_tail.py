"""A section's rows past its budget cut, made into candidates when read (``core.candidates.Tail``).

nano.local's Reports and Sources are prefix cuts of a gathered list: every row from the cut on is dropped
"over budget" with its running total. A sweep step, or a page that shows the kept rows and the counts,
reads none of them, so they stay the gather's rows and a function that makes row ``pos`` exactly as the
eager loop made it (the reason's template is what ``binding`` counts them by).
"""

from __future__ import annotations

from collections.abc import Callable

from graphrag_ui.retrieval.core.result import Candidate


class RowTail:
    """Rows ``start`` to ``end`` of a gathered section, all dropped for one reason template."""

    def __init__(self, make: Callable[[int], Candidate], start: int, ids: list[str], template: str) -> None:
        self.make, self.start, self._ids, self.template = make, start, ids, template

    def __len__(self) -> int:
        return len(self._ids)

    def row(self, i: int) -> Candidate:
        return self.make(self.start + i)

    def ids(self) -> list[str]:
        return list(self._ids)

    def reasons(self) -> list[tuple[str, None, int]]:
        return [(self.template, None, len(self._ids))] if self._ids else []
