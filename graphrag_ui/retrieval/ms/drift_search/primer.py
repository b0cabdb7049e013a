"""DRIFT's primer, the part that needs no model: template choice, report ranking, folds.

Follows graphrag 3.3.0 (and 2.x, which does the same here):

- ``PrimerQueryProcessor.expand_query`` picks the HyDE template with ``secrets.choice(self.reports)``
  over the reports ``read_indexer_reports`` loaded (community_reports.parquet order, level ≤
  ``community_level``); we pick with ``random.Random(seed).choice`` over the same list, so one seed is
  one template (``pick_template``). An empty expansion is replaced by the question itself.
- ``DRIFTSearchContextBuilder.build_context`` ranks every loaded report by the cosine of the
  expansion's embedding to the report's ``full_content`` vector (LanceDB ``community_full_content``),
  computed as GraphRAG computes it (float64 norms, one dot product per report), and keeps
  ``nlargest(drift_k_followups, "similarity")``: ties in list order, NaN similarities (zero vectors)
  last (``rank_reports``). A report without a vector makes GraphRAG raise ``ValueError`` before ranking.
- ``DRIFTPrimer.split_reports`` cuts the ranked reports into ``primer_folds`` folds with
  ``np.array_split`` (the first ``n % folds`` folds one report longer; empty folds still get a call;
  ``primer_folds`` 0 acts as 1), and ``decompose_query`` sends each fold's ``full_content`` texts joined
  by blank lines (``fold_text``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from graphrag_ui.index.model import Community, Index
from graphrag_ui.index.servers import vector_server


@dataclass
class RankedReport:
    community: Community
    similarity: float  # cosine of the expansion's vector to the report's full_content vector
    position: int  # place in GraphRAG's report list (read_indexer_reports order), from 0


def pick_template(reports: list[Community], seed: int) -> int:
    """Index in ``reports`` of the HyDE template report: ``random.Random(seed).choice`` (GraphRAG: secrets)."""
    rng = random.Random(seed)
    return reports.index(rng.choice(reports))


def full_content(c: Community) -> str:
    """The report text GraphRAG reads as ``CommunityReport.full_content``."""
    return c.extra["full_content"] if "full_content" in c.extra else c.report


def report_vectors(index: Index, reports: list[Community]) -> tuple[np.ndarray | None, list[str]]:
    """(float64 matrix of the reports' full_content vectors in list order, ids of reports without one)."""
    table = index.vectors.get("communities")
    if table is None:
        return None, [c.id for c in reports]
    row = {cid: i for i, cid in enumerate(table.ids)}
    missing = [c.id for c in reports if c.id not in row]
    if missing or not reports:
        return None, missing
    if vector_server.is_server(table):  # --vectors server: no local matrix; the collection gives the rows
        got = vector_server.server_vectors(table, [c.id for c in reports])
        return np.asarray([got[c.id] for c in reports], dtype=np.float32).astype(np.float64), []
    return table.matrix[[row[c.id] for c in reports]].astype(np.float64), []


def similarities(matrix: np.ndarray, query_vector: np.ndarray) -> np.ndarray:
    """GraphRAG's vectorised cosine: ``dot / (document_norms * query_norm)`` in float64."""
    q = np.asarray(query_vector, dtype=np.float64)
    query_norm = np.linalg.norm(q)
    document_norms = np.linalg.norm(matrix, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.dot(matrix, q) / (document_norms * query_norm)


def rank_reports(reports: list[Community], sims: np.ndarray) -> list[RankedReport]:
    """Every report, best first; ties keep list order (``nlargest(keep="first")``). NaN similarities
    (a zero vector) come last in list order, as ``nlargest`` places them when k reaches them."""
    nan = [i for i in range(len(reports)) if np.isnan(sims[i])]
    order = sorted((i for i in range(len(reports)) if not np.isnan(sims[i])), key=lambda i: -float(sims[i]))
    return [RankedReport(reports[i], float(sims[i]), i) for i in order + nan]


def fold_sizes(n: int, primer_folds: int) -> list[int]:
    """``np.array_split(np.arange(n), primer_folds)`` lengths; ``primer_folds or 1``, one fold for 1."""
    folds = primer_folds or 1
    if folds == 1:
        return [n]
    base, extra = divmod(n, folds)
    return [base + 1 if i < extra else base for i in range(folds)]


def split_folds(ranked: list[Community], primer_folds: int) -> list[list[Community]]:
    out, start = [], 0
    for size in fold_sizes(len(ranked), primer_folds):
        out.append(ranked[start : start + size])
        start += size
    return out


def fold_text(fold: list[Community]) -> str:
    """``"\\n\\n".join(reports["full_content"].tolist())``: what one primer call holds."""
    return "\n\n".join(full_content(c) for c in fold)
