"""Constructive solvers run concurrently, one thread each, the better board kept (issue 33, item 3):
`BestOfConcurrent`, the portfolio's start (`optimizer.start=concurrent`: the break backtracker and the
beam). Not "race": that word is Optuna's racing of trials (experiments/racing.py).

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
from dataclasses import dataclass

import numba

from core.faces import Construction, ConstructivePuzzle
from puzzles.edge_matching.solvers.backtrack import unmatched_joins
from puzzles.edge_matching.solvers.base import STOP_GROUP, BoardBuilder, StopGroup, threads_available

SPARE_SEED = 1_000  # the spare's seed is the builders' plus this: restarts of its own
SPARE_MIN_SHARE = 0.05  # a thread takes the spare only with this share of the builders' time left
NOTE = "best of concurrent builders (unmatched joins)"  # the note's head: each builder's board, the kept one


class BestOfConcurrent(BoardBuilder):
    """The better board of `solvers`, each on its own thread within the same `seconds` (ties: the
    earlier solver's); under a time limit, once one has solved the board, the others stop
    (`StopGroup`: the time left is the next phase's; under a node budget each runs its own, so the
    same seed gives the same board). Under a time limit, with a core per solver, a thread whose
    solver ends early (the beam at its full width) runs `spare` (another stream of the backtracker's
    restarts) for the time left, unless the board is solved: on Eternity II the beam is done at 240 s
    of the portfolio's 480, and its core would idle (on fewer cores, the other solvers take it).
    Each thread runs numba kernels on one thread of numba's: a solver with threads of its own (the
    break backtracker's restarts) starts them itself. Its history is the best board held by any of
    them over time, and its work the sum of theirs (in their own units)."""

    rectangles = True

    def __init__(self, solvers: Sequence[BoardBuilder], spare: BoardBuilder | None = None):
        self.solvers = list(solvers)
        self.spare = spare
        self.name = "+".join(solver.name for solver in self.solvers)

    def seeded(self, seed: int) -> BestOfConcurrent:
        spare = None if self.spare is None else self.spare.seeded(seed + SPARE_SEED)
        return BestOfConcurrent([solver.seeded(seed) for solver in self.solvers], spare)

    def warm_up(self, puzzle: ConstructivePuzzle) -> None:
        for solver in self.solvers + ([self.spare] if self.spare else []):
            solver.warm_up(puzzle)

    def construct(self, puzzle: ConstructivePuzzle, seconds: float | None = None) -> Construction:
        started = time.perf_counter()
        puzzle = self._require(puzzle)

        group = StopGroup()

        def run(solver: BoardBuilder, name: str) -> Run:
            """`solver`'s board within the time left, its history on the builders' shared clock."""
            began = time.perf_counter() - started
            left = None if seconds is None else seconds - began
            joined = STOP_GROUP.set(None if seconds is None else group)  # a node budget: the same boards
            try:
                built = solver.construct(puzzle, left)
            finally:
                STOP_GROUP.reset(joined)
            score = self._unmatched(puzzle, built)
            if score == 0:
                group.stop()  # solved: the others stop at their next look at their flag
            history = tuple((t + began, work, value) for t, work, value in built.history)
            return Run(name, built, score, time.perf_counter() - started, history)

        def build(solver: BoardBuilder) -> list[Run]:
            numba.set_num_threads(1)  # numba's thread count is per thread: this one's only
            runs = [run(solver, solver.name)]
            if (
                seconds is not None
                and self.spare is not None
                and solver.name != self.spare.name
                and threads_available() >= len(self.solvers)  # on fewer cores the others take the freed one
            ):
                left = seconds - (time.perf_counter() - started)
                if not group.stopped and left >= max(1.0, SPARE_MIN_SHARE * seconds):
                    runs.append(run(self.spare, f"{self.spare.name} (spare)"))
            return runs

        with ThreadPoolExecutor(max_workers=len(self.solvers)) as pool:
            results = [r for runs in pool.map(build, self.solvers) for r in runs]
        winner = min(range(len(results)), key=lambda k: (results[k].score, k))
        built = results[winner].built
        notes = [f"{r.name} {r.score}" for r in results]
        return Construction(
            built.layout,
            sum(r.built.work for r in results),
            built.stop_reason,
            None,
            f"{NOTE}: {', '.join(notes)}; {results[winner].name}'s board kept"
            + (f"; {built.note}" if built.note else ""),
            self._history(results),
        )

    @staticmethod
    def _unmatched(puzzle: ConstructivePuzzle, built: Construction) -> int:
        board = built.layout
        return unmatched_joins(puzzle.table, puzzle.n, puzzle.m, board.piece, board.rotation)

    @staticmethod
    def _history(results: list[Run]) -> tuple[tuple[float, int, float], ...]:
        """The best board held by any solver over time: each solver's own curve, or (a solver without
        one, such as the beam, whose board exists only at its end) its final board when it ended."""
        rows = []
        for r in results:
            rows += list(r.history) if r.history else [(r.ended, r.built.work, float(r.score))]
        curve, best = [], float("inf")
        for row in sorted(rows):
            _, _, value = row  # (seconds, work, unmatched joins): Construction.history's rows
            if value < best:
                curve.append(row)
                best = value
        return tuple(curve)


@dataclass(frozen=True)
class Run:
    """One solver's part of a `BestOfConcurrent`: its board (re-scored), when it ended and its curve, on
    their shared clock."""

    name: str
    built: Construction
    score: int
    ended: float
    history: tuple[tuple[float, int, float], ...]


class BySize(BoardBuilder):
    """`small` on boards of fewer than `cells` cells, `large` on the others: the portfolio runs the beam
    beside the backtracker where it wins or ties (boards of 10 x 10 to 12 x 12) and gives its core to
    the backtracker on Eternity II's 256 cells, where the beam's board is 5-6 joins behind and every 464
    was the backtracker's (benchmarks/log/bench_eternity2.md)."""

    rectangles = True

    def __init__(self, small: BoardBuilder, large: BoardBuilder, cells: int):
        self.small, self.large, self.cells = small, large, cells
        self.name = large.name

    def chosen(self, puzzle: ConstructivePuzzle) -> BoardBuilder:
        return self.small if puzzle.n * puzzle.m < self.cells else self.large

    def seeded(self, seed: int) -> BySize:
        return BySize(self.small.seeded(seed), self.large.seeded(seed), self.cells)

    def warm_up(self, puzzle: ConstructivePuzzle) -> None:
        self.chosen(puzzle).warm_up(puzzle)

    def construct(self, puzzle: ConstructivePuzzle, seconds: float | None = None) -> Construction:
        return self.chosen(puzzle).construct(puzzle, seconds)
