"""The Eternity II benchmarks' own re-scoring: a final board checked under the official rules and its
joins counted from the pieces alone, apart from the puzzle's code (`checked_unmatched`), and agreed
with the puzzle's scorer and the run's tally (`rescored`)."""

from __future__ import annotations

import numpy as np

from puzzles.edge_matching.board import Layout, inner_edges
from puzzles.edge_matching.eternity2 import DATA, STARTER, Eternity2


def official_sides() -> np.ndarray:
    """The official pieces read straight from the bundled file (its columns: bottom, left, top, right),
    as [left, top, right, bottom]: the check's own reading, not the puzzle's."""
    raw = np.loadtxt(DATA, dtype=np.int64, comments="#", ndmin=2)
    return raw[:, [1, 2, 3, 0]]


def checked_unmatched(sides: np.ndarray, layout: Layout, fixed=(), rim: bool = True) -> int:
    """Unmatched joins of a board under Eternity II's rules, counted from the pieces alone, after
    checking the rules: every piece exactly once, each fixed (row, col, piece, turns) piece (1-based,
    as STARTER) in place, grey (0) sides exactly on the rim (with `rim`: off for a board of a fitness that
    puts any piece anywhere, where a grey side inside counts as unmatched). Raises AssertionError naming
    what breaks.

    Independent of the puzzle's tables and scorer: its own turning (a clockwise quarter turn brings the
    left side to the top) and its own loops over the joins."""
    n, m = layout.n, layout.m
    piece, turn = [int(p) for p in layout.piece], [int(t) for t in layout.rotation]
    problems = []
    if sorted(piece) != list(range(len(sides))):
        problems.append(f"the {n * m} cells do not hold each of the {len(sides)} pieces once")
    for row, col, p, t in fixed:
        cell = (row - 1) * m + col - 1
        if (piece[cell], turn[cell] % 4) != (p - 1, t):
            problems.append(
                f"cell ({row}, {col}) holds piece {piece[cell] + 1} turned {turn[cell]}, not {p} turned {t}"
            )
    shown = []  # per cell, the colours on [left, top, right, bottom]
    for cell in range(n * m):
        row, col = divmod(cell, m)
        colours = [int(sides[piece[cell]][(k - turn[cell]) % 4]) for k in range(4)]
        shown.append(colours)
        on_rim = [col == 0, row == 0, col == m - 1, row == n - 1]
        if rim and [c == 0 for c in colours] != on_rim:
            problems.append(f"cell ({row + 1}, {col + 1}): grey sides {colours} where the rim is {on_rim}")
    if problems:
        raise AssertionError(f"illegal board ({len(problems)} problems): " + "; ".join(problems[:5]))
    unmatched = 0
    for cell in range(n * m):
        row, col = divmod(cell, m)
        right, below = shown[cell][2], shown[cell][3]
        if col < m - 1:
            unmatched += right != shown[cell + 1][0] or right == 0
        if row < n - 1:
            unmatched += below != shown[cell + m][1] or below == 0
    return unmatched


def rescored(puzzle, tally: float, layout: Layout, what: str, rim: bool = True) -> int:
    """Matched joins of a final board, re-scored: the puzzle's check and scorer, and checked_unmatched;
    every count and `tally` (a run's own unmatched count) must agree, else AssertionError."""
    puzzle.check(layout)
    official = isinstance(puzzle, Eternity2)
    fixed = [STARTER] if official and len(puzzle.preplaced) else []
    if official and len(puzzle.preplaced) != len(fixed):
        raise ValueError("rescored knows the starter alone; clues are not checked")
    sides = official_sides() if official else puzzle.sides
    ours = checked_unmatched(sides, layout, fixed, rim)
    scored = int(puzzle.score_layout(layout)["unmatched_edges"])
    fitness = int(puzzle.fitness(puzzle.encode(layout)))
    if not ours == scored == fitness == tally:
        raise AssertionError(
            f"{what}: the run's tally says {tally:g} unmatched joins, but its final board re-scored gives "
            f"{scored} (puzzle scorer), {fitness} (fitness), {ours} (benchmark's own count)"
        )
    return inner_edges(layout.n, layout.m) - ours
