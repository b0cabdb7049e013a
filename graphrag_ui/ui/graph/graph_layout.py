"""Where each node sits: a force layout computed on the server, then label boxes pushed apart.

Why on the server and not vis-network's physics: the same nodes land in the same place on every
run, so a slider move, a filter or an expanded node does not reshuffle the picture (nodes already
placed stay where they are and only new ones are laid out around them); labels are kept from
overlapping, which vis's physics does not try to do; and the browser paints at once instead of
simulating for seconds (a 400-node neighbourhood on a 100k-entity index froze the tab).

Units are canvas pixels at zoom 1. A node's box is its label's box (drawn below the node, as
vis-network draws labels of dots, stars and diamonds) joined with the node itself; labels scale
with the zoom, so boxes that do not overlap here do not overlap at any zoom.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

GAP = 6.0  # px between two label boxes
LABEL_PAD = 3.0  # px vis leaves between a node and its label
ASPECT = 1.5  # a fresh layout is this much wider than tall (screens are)


@dataclass(frozen=True)
class Box:
    """A node's footprint: ``radius`` of the node, ``width``×``height`` of its label below it."""

    radius: float
    width: float
    height: float

    @property
    def span(self) -> tuple[float, float]:
        """Width and height of node + label."""
        return max(self.width, 2 * self.radius), 2 * self.radius + LABEL_PAD + self.height

    @property
    def offset(self) -> float:
        """How far below the node's centre the centre of the whole box lies."""
        return (LABEL_PAD + self.height) / 2


def text_width(text: str, size: float, bold: bool = False) -> float:
    """A generous estimate of ``text``'s width in a sans-serif font of ``size`` px (CJK: one em each)."""
    em = 0.0
    for ch in text:
        if unicodedata.east_asian_width(ch) in {"W", "F"}:
            em += 1.0
        elif ch == " ":
            em += 0.3
        elif ch.isupper() or ch.isdigit():
            em += 0.68
        elif ch in "ilj.,;:'|!":
            em += 0.3
        elif ch in "mwMW":
            em += 0.9
        else:
            em += 0.58
    return em * size * (1.08 if bold else 1.0) + 4


def label_box(label: str, radius: float, font_size: float, bold: bool = False) -> Box:
    return Box(radius, text_width(label, font_size, bold), font_size * 1.3)


def _initial(names, index_of, neighbours, known, centre, spread, rng) -> np.ndarray:
    """Known nodes where they were; a new node near the mean of its placed neighbours, else near the middle."""
    pos = np.zeros((len(names), 2))
    placed = set()
    for i, name in enumerate(names):
        if name in known:
            pos[i] = known[name]
            placed.add(name)
    for i, name in enumerate(names):
        if name in placed:
            continue
        near = [pos[index_of[n]] for n in neighbours.get(name, ()) if n in placed]
        base = np.mean(near, axis=0) if near else centre
        jitter = spread * (0.35 if near else 1.0)
        pos[i] = base + rng.uniform(-jitter, jitter, 2)
        placed.add(name)
    return pos


def _forces(pos, adjacency, fixed, k, iterations, gravity) -> np.ndarray:
    """Fruchterman–Reingold with a weak pull to the middle (keeps separate pieces together), in float32."""
    n = len(pos)
    if n < 2:
        return pos
    pos = pos.astype(np.float32)
    adjacency = adjacency.astype(np.float32)
    extent = max(float(np.ptp(pos[:, 0])), float(np.ptp(pos[:, 1])), k)
    temperature = 0.12 * extent
    cool = temperature / (iterations + 1)
    free = ~fixed
    k2 = np.float32(k * k)
    for _ in range(iterations):
        dx = pos[:, 0, None] - pos[None, :, 0]
        dy = pos[:, 1, None] - pos[None, :, 1]
        dist2 = np.maximum(dx * dx + dy * dy, np.float32(0.25))
        strength = k2 / dist2 - adjacency * np.sqrt(dist2) / np.float32(k)
        np.fill_diagonal(strength, 0.0)
        move = np.stack([(dx * strength).sum(axis=1), (dy * strength).sum(axis=1)], axis=1)
        move -= np.float32(gravity) * (pos - pos.mean(axis=0))
        length = np.maximum(np.hypot(move[:, 0], move[:, 1]), np.float32(1e-9))
        step = move * (np.minimum(length, temperature) / length)[:, None]
        pos[free] += step[free]
        temperature -= cool
    return pos.astype(float)


def _spiral(batch: int, start: int, step: float, aspect: float) -> np.ndarray:
    """Points ``start``..``start+batch`` of an Archimedean spiral with about ``step`` px between points."""
    k = np.arange(start, start + batch, dtype=float)
    theta = np.sqrt(k * 4 * np.pi)  # equal arc length between consecutive points
    radius = step * theta / (2 * np.pi)
    return np.stack([radius * np.cos(theta) * aspect, radius * np.sin(theta)], axis=1)


def place(preferred: np.ndarray, spans: np.ndarray, fixed: np.ndarray, order: list[int]) -> np.ndarray:
    """Each box at the free spot nearest its preferred position, in ``order`` (fixed boxes stay put).

    Greedy, like a word cloud: walk a spiral out of the preferred position until the box touches no
    box placed before it. No two boxes overlap afterwards (unless two fixed ones already did).
    """
    n = len(preferred)
    half = spans / 2 + GAP / 2
    pos = preferred.copy()
    done = np.zeros(n, dtype=bool)
    done[fixed] = True
    step = max(4.0, float(np.min(half[:, 1])))
    aspect = float(np.clip(np.median(half[:, 0] / half[:, 1]), 1.0, 4.0))
    widest = float(half[:, 0].max())
    for i in order:
        if done[i]:
            continue
        start = 0
        while True:
            offsets = _spiral(96, start, step, aspect)
            candidates = preferred[i] + offsets
            # only boxes within reach of this batch of candidates can clash with them
            far = float(np.abs(offsets).max()) + half[i, 0] + widest
            near = done & (np.abs(pos - preferred[i]).max(axis=1) < far)
            others, reach = pos[near], half[near]
            if len(others) == 0:
                pos[i] = candidates[0]
                break
            gap = np.abs(candidates[:, None, :] - others[None, :, :])
            clash = ((gap < half[i] + reach).all(axis=2)).any(axis=1)
            free = np.flatnonzero(~clash)
            if len(free):
                pos[i] = candidates[free[0]]
                break
            start += 96
        done[i] = True
    return pos


def _roomy(pos: np.ndarray, spans: np.ndarray, room: float = 2.2, aspect: float = ASPECT) -> np.ndarray:
    """Shape a fresh layout like a screen (``aspect`` wide), then spread it about its middle until its box
    is ``room`` times the labels' area: a crowded force layout (a hub's leaves on one ring) would
    otherwise send most labels on long walks."""
    if len(pos) < 3:
        return pos
    middle = pos.mean(axis=0)
    width, height = max(float(np.ptp(pos[:, 0])), 1.0), max(float(np.ptp(pos[:, 1])), 1.0)
    stretch = math.sqrt(aspect * height / width)
    pos = middle + (pos - middle) * np.array([stretch, 1 / stretch])
    need = float(np.sum(spans[:, 0] * spans[:, 1])) * room
    have = max(float(np.ptp(pos[:, 0]) * np.ptp(pos[:, 1])), 1.0)
    if have >= need:
        return pos
    return middle + (pos - middle) * math.sqrt(need / have)


def overlaps(positions: dict[str, tuple[float, float]], boxes: dict[str, Box]) -> list[tuple[str, str]]:
    """Pairs of nodes whose boxes (node + label) overlap — the tests' check."""
    names = [n for n in positions if n in boxes]
    out = []
    for i, a in enumerate(names):
        (ax, ay), (aw, ah) = positions[a], boxes[a].span
        ay += boxes[a].offset
        for b in names[i + 1 :]:
            (bx, by), (bw, bh) = positions[b], boxes[b].span
            by += boxes[b].offset
            if abs(ax - bx) < (aw + bw) / 2 and abs(ay - by) < (ah + bh) / 2:
                out.append((a, b))
    return out


def layout(
    names: list[str],
    edges: Iterable[tuple[str, str]],
    boxes: dict[str, Box],
    known: dict[str, tuple[float, float]] | None = None,
    priority: dict[str, int] | None = None,
    seed: int = 7,
) -> dict[str, tuple[float, float]]:
    """Positions of ``names``: those in ``known`` stay put, new ones are placed around their neighbours.

    ``priority`` (lower first, default: the order of ``names``) says who gets the spot it prefers when
    two labels want the same place. Deterministic for the same arguments. The result has no two
    overlapping boxes unless two *known* nodes already overlapped.
    """
    known = {n: tuple(p) for n, p in (known or {}).items() if n in boxes}
    if not names:
        return {}
    if all(n in known for n in names):
        return {n: known[n] for n in names}
    index_of = {n: i for i, n in enumerate(names)}
    neighbours: dict[str, list[str]] = {}
    adjacency = np.zeros((len(names), len(names)))
    for a, b in edges:
        if a in index_of and b in index_of and a != b:
            adjacency[index_of[a], index_of[b]] = adjacency[index_of[b], index_of[a]] = 1.0
            neighbours.setdefault(a, []).append(b)
            neighbours.setdefault(b, []).append(a)
    spans = np.array([boxes[n].span for n in names], dtype=float)
    k = float(np.sqrt(np.mean(spans[:, 0] * spans[:, 1])))  # ideal edge length: room for a box
    rng = np.random.default_rng(seed)
    placed = [known[n] for n in names if n in known]
    centre = np.mean(placed, axis=0) if placed else np.zeros(2)
    spread = k * math.sqrt(len(names)) / 2
    pos = _initial(names, index_of, neighbours, known, centre, spread, rng)
    fixed = np.array([n in known for n in names])
    iterations = 120 if len(names) <= 150 else max(20, 6000 // len(names))  # n² per step
    pos = _forces(pos, adjacency, fixed, k, iterations, gravity=0.02 if fixed.any() else 0.05)
    if not fixed.any():
        pos = _roomy(pos, spans)
    offsets = np.array([[0.0, boxes[n].offset] for n in names])
    order = sorted(range(len(names)), key=lambda i: (priority or {}).get(names[i], i))
    pos = place(pos + offsets, spans, fixed, order) - offsets
    return {n: (round(float(x), 1), round(float(y), 1)) for n, (x, y) in zip(names, pos, strict=True)}
