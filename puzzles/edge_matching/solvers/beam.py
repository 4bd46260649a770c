"""Beam search for edge-matching boards: the `width` best partial boards, cell by cell.

Beam search fills an n x m board's cells in a fixed order (`order`: row by row, as record Eternity II
backtrackers scan, or the frame first, then the inner rows) and keeps, at every cell, the partial
boards with the fewest unmatched edges so far (ties broken at random, from `seed`). A candidate is a
piece in one of its turns (an orient); it fits a cell only when its grey sides, so turned, face
exactly the cell's off-board sides, so every join priced is an inner one. Pre-placed pieces are
placed in turn. A board prices only the pieces it has left, so late cells are cheap: there the beam
keeps more boards (up to `max_width`), as many as the same work per cell affords -- and late cells
are where a beam's mismatches fall.

A beam has no board before its last cell, so under a time limit (`Beam.construct(puzzle, seconds)`)
beams widen up to the configured width while the time allows, and the best board finished is the
result (`beam_within`); with no limit it is the configured beam alone.

Why: it is the strongest method the project has on Eternity II and near the phase transition.
  * The official Eternity II set (pieces turn, starter on): rows and a tail widened from 10,000 to
    1,000,000 boards match 456-458 of 480 joins in about 22 s on 2 cores (the defaults); the frame-
    first order at width 10,000 matched 448-450, at 100,000 451-452; the compiled hybrid SA's 60 s
    median is 432 (benchmarks/bench_eternity2.py beam).
  * The seed's boards (no turns): where exact search gives up (n = 13 at 4-8 colours, n = 15 at
    4-10; 2e9 nodes did not solve n = 13 at 8 colours, nor CP-SAT in a minute) the compiled SA
    stalls at 85-93% match rate; a frame-first beam of 40,000 leaves 15-17 unmatched at n = 13 and
    7 colours (16-19 at 10,000, about 25 at 100), where the hybrid's 2,000,000 moves leave about 30.
    Rows tie there, and widening saves about one edge for 5x the time (see ExactFirst).

Its parts: beam_tables.py builds a board's kernel tables, beam_kernel.py is the compiled beam,
beam_timing.py widens beams under a time limit; this module is the solver (`Beam`), a board's tables
(`Prepared`) and one beam over them (`beam_search`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba
import numpy as np

from core.errors import InputError
from core.faces import Construction, ConstructivePuzzle
from puzzles.edge_matching.board import grey_patterns
from puzzles.edge_matching.solvers.base import BoardBuilder
from puzzles.edge_matching.solvers.beam_kernel import _beam
from puzzles.edge_matching.solvers.beam_tables import (
    candidate_bounds,
    check_fits,
    colour_lists,
    keep_schedule,
    pools,
    ring_slots,
)
from puzzles.edge_matching.solvers.beam_timing import beam_unlimited, beam_within

WIDTH, MAX_WIDTH = 10_000, 1_000_000  # boards kept per cell, by default: on the official set 22 s on 2 cores
SERIAL_WORK = 1_000_000  # a beam that prices at most this many candidates runs on one thread


def frame_first(n: int, m: int) -> np.ndarray:
    """The frame of n rows of m cells clockwise from the top-left corner, then the inner cells row by
    row (on the seed's boards, pieces fixed, a beam over this order leaves a few edges fewer than over
    plain rows). A board one cell thick is all frame: each cell once."""
    frame = list(range(m)) + [r * m + m - 1 for r in range(1, n)]
    frame += [(n - 1) * m + c for c in range(m - 2, -1, -1)] + [r * m for r in range(n - 2, 0, -1)]
    inner = [r * m + c for r in range(1, n - 1) for c in range(1, m - 1)]
    return np.array(list(dict.fromkeys(frame)) + inner, dtype=np.int64)


def rows(n: int, m: int) -> np.ndarray:
    """Row by row, frame cells with their row, as record Eternity II backtrackers scan (on the
    official set a beam over this order matches 3-6 joins more than over frame_first)."""
    return np.arange(n * m, dtype=np.int64)


ORDERS = {"rows": rows, "frame_first": frame_first}


@dataclass(frozen=True)
class BeamRun:
    """One beam's outcome: an orient per cell (empty if a time limit stopped it), the board's
    unmatched inner edges, the candidates it priced (`work`) and whether it finished."""

    board: np.ndarray
    unmatched: int
    work: int
    finished: bool


class Prepared:
    """A board's kernel tables, built once for any number of beams over it (see `beam_search`); n rows
    of m cells (m = n: a square)."""

    def __init__(self, table: np.ndarray, n: int, preplaced=None, order: str = "rows", m: int | None = None):
        self.table = np.ascontiguousarray(table, dtype=np.int64)
        m = n if m is None else m
        self.n, self.m, self.turns = n, m, self.table.shape[1]
        if 2 * n * m - n - m >= 4096:  # `_select` counts costs, unmatched joins, below 4096
            raise InputError(
                f"beam search takes boards of fewer than 4096 inner joins (squares up to 45 x 45), this one "
                f"is {n} x {m}: use a compiled optimizer (optimizer=sa_compiled)"
            )
        orient_pattern, cell_pattern = grey_patterns(self.table, n, m)
        self.fixed = np.full(n * m, -1, dtype=np.int64)
        given = np.asarray(preplaced if preplaced is not None else [], dtype=np.int64).reshape(-1, 3)
        self.fixed[given[:, 0]] = given[:, 1] * self.turns + given[:, 2]
        for piece in given[:, 1]:  # a pre-placed piece is nobody else's candidate
            orient_pattern[piece * self.turns : (piece + 1) * self.turns] = -1
        check_fits(orient_pattern, np.delete(cell_pattern, given[:, 0]), self.turns)
        self.mask, self.orients, self.count, self.cell_pool = pools(orient_pattern, cell_pattern, self.turns)
        self.cells = ORDERS[order](n, m)
        self.bound = candidate_bounds(self.count, self.cell_pool, self.fixed, self.cells)
        self.lists = colour_lists(self.table, self.orients, self.count, self.fixed, self.cells, n, m)
        self.ring = ring_slots(self.cells, n, m)

    def schedule(self, width: int, max_width: int | None) -> tuple[np.ndarray, int]:
        """`keep_schedule` for this board."""
        return keep_schedule(self.count, self.cell_pool, self.fixed, self.cells, width, max_width or width)

    def most_work(self, width: int, max_width: int | None) -> int:
        """The most candidates a beam of this width can price (its time grows with it)."""
        keeps = self.schedule(width, max_width)[0]
        return int(self.bound[0] + (keeps[:-1] * self.bound[1:]).sum())

    def run(self, width: int, seed: int, max_width: int | None, stop: np.ndarray | None = None) -> BeamRun:
        """One beam; it gives up (no board) once `stop[0]` is set (see `alarm`). A narrow one runs on
        one thread: waking the others three times a cell costs more than its work (Eternity II, a beam
        of one: 4 ms on one thread, 9 ms on two, seconds where threads spin on a busy machine); the
        board is the same on any number."""
        keeps, cap = self.schedule(width, max_width)
        flag = np.zeros(1, np.int64) if stop is None else stop
        threads = numba.get_num_threads()
        if self.most_work(width, max_width) <= SERIAL_WORK:
            numba.set_num_threads(1)
        try:
            pools = (self.mask, self.orients, self.count, self.cell_pool)
            board, unmatched, work, finished = _beam(
                self.table, pools, self.fixed, self.cells, keeps, cap, seed, flag, self.lists, *self.ring
            )
        finally:
            numba.set_num_threads(threads)
        return BeamRun(board, int(unmatched), int(work), bool(finished))


def beam_search(
    table: np.ndarray,
    n: int,
    preplaced=None,
    width: int = WIDTH,
    seed: int = 0,
    max_width: int | None = None,
    order: str = "rows",
    m: int | None = None,
):
    """(piece per cell, turns per cell, unmatched inner edges) of the best board a beam finds.

    table: turn table[piece, turn, side] of colours [left, top, right, bottom] (one turn when pieces
    never turn); n, m: the board's rows and columns (m = n: a square), cells row-major; preplaced:
    rows (cell, piece, turns) kept where they are; max_width: the most boards kept where few pieces
    are left (default: `width` everywhere); order: a name in ORDERS.
    """
    prepared = Prepared(table, n, preplaced, order, m)
    run = prepared.run(width, seed, max_width)
    return run.board // prepared.turns, run.board % prepared.turns, run.unmatched


def warm_up() -> None:
    """Compile the kernel, or load it from numba's cache (seconds on a busy machine), on a 2 x 2 board:
    a timed beam then spends its time on the board."""
    table = np.array([[[0, 0, 1, 1]], [[1, 0, 0, 1]], [[0, 1, 1, 0]], [[1, 1, 0, 0]]], dtype=np.int64)
    if not _beam.signatures:
        beam_search(table, 2, width=1)


class Beam(BoardBuilder):
    """Beam search as a constructive solver (see the module).

    Args:
        width: partial boards kept at every cell (time and memory grow linearly with it).
        seed: breaks ties between equally good extensions.
        max_width: where few pieces are left, keep up to this many boards, as many as the same
            work per cell affords (None: `width` everywhere). Memory: about 150 bytes per board
            kept at a cell, and 6 bytes per board and cell of history (0.5 GB for the defaults).
        order: the order cells are filled in: "frame_first" or "rows" (see ORDERS).

    Its work counts the candidates priced (a piece in one turn, tried in one cell), over every beam
    run. Under a time limit it widens beams up to `width` (see `beam_within`).
    """

    rectangles = True  # every table follows the board's rows and columns (see Prepared)
    default_seconds = 60.0  # the defaults finish in about 22 s on Eternity II; a wider beam may not

    def __init__(
        self, width: int = WIDTH, seed: int = 0, max_width: int | None = MAX_WIDTH, order: str = "rows"
    ):
        if width < 1:
            raise InputError(f"optimizer.width must be positive, got {width}")
        if max_width is not None and max_width < width:
            raise InputError(f"optimizer.max_width must be at least width ({width}), got {max_width}")
        if order not in ORDERS:
            raise InputError(f"optimizer.order must be one of {', '.join(ORDERS)}, got {order!r}")
        self.width, self.seed, self.max_width, self.order = width, seed, max_width, order
        self.name = "beam"

    def warm_up(self, puzzle: ConstructivePuzzle) -> None:
        warm_up()

    def seeded(self, seed: int) -> Beam:
        return Beam(self.width, seed, self.max_width, self.order)

    def construct(self, puzzle: ConstructivePuzzle, seconds: float | None = None) -> Construction:
        """The best board of the beam, checked (each piece once, pre-placed pieces kept); within
        `seconds` of the call, the best of beams as wide as fit (stop reason "seconds" when the
        configured width did not)."""
        started = time.perf_counter()
        puzzle = self._require(puzzle)
        prepared = Prepared(puzzle.table, puzzle.n, puzzle.preplaced, self.order, puzzle.m)
        if seconds is None:
            run, work, reason = beam_unlimited(prepared, self.width, self.seed, self.max_width)
        else:
            warm_up()  # a process's first beam loads the kernel: on the clock, but outside the schedule
            run, work, reason = beam_within(prepared, self.width, self.seed, self.max_width, seconds, started)
        board = puzzle.layout(run.board // prepared.turns, run.board % prepared.turns)
        return Construction(board, work, reason)
