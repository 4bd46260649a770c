"""Constructive solvers raced at once, one thread each: the better board wins (issue 33, item 3).

Why: on boards of 10 x 10 to 12 x 12 the beam and the break backtracker are about as good at equal
time and miss by a join on different boards (benchmarks/log/bench_eternity2.md); on Eternity II the
backtracker is 5-6 joins ahead. Where two builders' results are close and independent, running both
at once and keeping the better board hedges against either one's bad draw; where one is far ahead,
the other costs a share of the cores.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numba

from core.faces import Construction, ConstructivePuzzle
from puzzles.edge_matching.solvers.backtrack import unmatched_joins
from puzzles.edge_matching.solvers.beam import STOP_GROUP, StopGroup
from puzzles.edge_matching.solvers.greedy import BoardBuilder


class Race(BoardBuilder):
    """The better board of `solvers`, each on its own thread within the same `seconds` (ties: the
    earlier solver's); under a time limit, once one has solved the board, the others stop
    (`StopGroup`: the time left is the next phase's; under a node budget each runs its own, so the
    same seed gives the same board). Each thread runs numba kernels on one thread of numba's: a
    solver with threads of its own (the break backtracker's restarts) starts them itself. Its
    history is the best board held by any of them over time, and its work the sum of theirs (in
    their own units)."""

    rectangles = True

    def __init__(self, solvers: Sequence[BoardBuilder]):
        self.solvers = list(solvers)
        self.name = "+".join(solver.name for solver in self.solvers)

    def seeded(self, seed: int) -> Race:
        return Race([solver.seeded(seed) for solver in self.solvers])

    def warm_up(self, puzzle: ConstructivePuzzle) -> None:
        for solver in self.solvers:
            solver.warm_up(puzzle)

    def construct(self, puzzle: ConstructivePuzzle, seconds: float | None = None) -> Construction:
        started = time.perf_counter()
        puzzle = self._require(puzzle)

        group = StopGroup()

        def build(solver: BoardBuilder) -> tuple[Construction, float]:
            numba.set_num_threads(1)  # numba's thread count is per thread: this one's only
            left = None if seconds is None else seconds - (time.perf_counter() - started)
            joined = STOP_GROUP.set(None if seconds is None else group)  # a node budget: the same boards
            try:
                built = solver.construct(puzzle, left)
            finally:
                STOP_GROUP.reset(joined)
            if self._unmatched(puzzle, built) == 0:
                group.stop()  # solved: the others stop at their next look at their flag
            return built, time.perf_counter() - started

        with ThreadPoolExecutor(max_workers=len(self.solvers)) as pool:
            results = list(pool.map(build, self.solvers))
        scores = [self._unmatched(puzzle, built) for built, _ in results]
        winner = min(range(len(results)), key=lambda k: (scores[k], k))
        history = self._history(results, scores)
        built = results[winner][0]
        notes = [f"{solver.name} {score}" for solver, score in zip(self.solvers, scores, strict=True)]
        return Construction(
            built.layout,
            sum(b.work for b, _ in results),
            built.stop_reason,
            None,
            f"race (unmatched joins): {', '.join(notes)}; {self.solvers[winner].name}'s board kept"
            + (f"; {built.note}" if built.note else ""),
            history,
        )

    @staticmethod
    def _unmatched(puzzle: ConstructivePuzzle, built: Construction) -> int:
        board = built.layout
        return unmatched_joins(puzzle.table, puzzle.n, puzzle.m, board.piece, board.rotation)

    @staticmethod
    def _history(
        results: list[tuple[Construction, float]], scores: list[int]
    ) -> tuple[tuple[float, int, float], ...]:
        """The best board held by any solver over time: each solver's own curve, or (a solver without
        one, such as the beam, whose board exists only at its end) its final board when it ended."""
        rows = []
        for (built, ended), score in zip(results, scores, strict=True):
            rows += list(built.history) if built.history else [(ended, built.work, float(score))]
        curve, best = [], float("inf")
        for row in sorted(rows):
            if row[2] < best:
                curve.append(row)
                best = row[2]
        return tuple(curve)
