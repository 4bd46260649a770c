"""The family's part of the colour-count sweep (task=colour_sweep, seed 001's analysis): which colour
counts a board takes, the seed's instance, and one table row per solved board.

Why here: the task (studies/colour_sweep/task.py) is a study; it reaches these through the puzzle
class its config names (`EdgeMatching.sweep_colours`, `colour_limits`, `sweep_point`), never by import.
The seed's instance and its greedy point, for benchmarks and tests: seed_sweep.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from puzzles.edge_matching.board import MAX_COLOUR, Layout, inner_edges


def seed_colours(n: int, points: int | None = None) -> list[int]:
    """The seed's colour counts, 2 .. 2n(n-1); or `points` of them, spaced evenly on a log scale."""
    top = inner_edges(n)
    if points is None or points >= top - 1:
        return list(range(2, top + 1))
    return sorted({int(round(c)) for c in np.geomspace(2, top, points)})


def colour_limits(n: int) -> tuple[int, int]:
    """An n x n board's inner edges, and the most colours that can be dealt on them."""
    return inner_edges(n), min(inner_edges(n), MAX_COLOUR)


def point(puzzle: Any, layout: Layout, optimizer: str, seconds: float, cpu_seconds: float) -> dict[str, Any]:
    """One row of the table (an `EdgeMatching` board): what was solved, by whom, both scores, and the time it took (wall, CPU)."""
    scores = puzzle.score_layout(layout)
    return {
        "n": puzzle.n,
        "colours": puzzle.colours,
        "optimizer": optimizer,
        "instance_seed": puzzle.instance_seed,
        **{k: scores[k] for k in ("match_rate", "edge_score", "unmatched_edges", "duplicates")},
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
    }
