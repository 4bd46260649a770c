"""Exact backtracking for small edge-matching boards (up to about 6 x 6): the true optimum.

The optimum is the fewest unmatched inner edges (`board.unmatched_edge`: an edge matches when both
sides carry the same colour other than 0, the border colour), over every placement of the pieces,
with the pre-placed pieces kept. Iterative deepening on the number of unmatched edges allowed, k = 0, 1, 2, ...:
the first k with a board proves the optimum. Each depth-first search fills cells row-major and
prunes early: a 0 facing an inner edge dooms that edge as soon as it is placed, and border
colours (0) left over that the empty border sides cannot take must face inner edges, each of
which then fails (two zeros at most per edge; a 0 facing an empty cell leaves a doomed edge that one
more 0 joins at no cost, so those are taken off first: the cross-check of tests/puzzles/edge_matching/test_exact_crosscheck.py
found a 4 x 2 board, no grey rule, whose optimum 1 the bound without them had pruned). The first step
(k = 0), where a perfect board must put every grey side off the board (grey sides and border sides
equally many), is the perfect search of perfect_search/ (`search`), which walks the same tree
several times faster; the deepening starts at k = 1 when it proves there is none.

Boards that admit a perfect or nearly perfect arrangement (every generated instance, with or
without rotations, up to 6 x 6) are solved in well under a second. Arbitrary piece sets whose
optimum is far from 0 (e.g. random colours on every side) make each deepening step costly, so
`max_nodes` caps the work and the result then carries the lower bound proved so far.

`solve_exact` takes plain arrays: a turn table table[p, r, s], the colour side s ([left, top,
right, bottom]) of piece p shows in its r-th allowed clockwise quarter turn; a result gives, per
cell, the piece and its turns. `Backtrack` is the constructive solver built from config
(`optimizer=backtrack`): `solve(puzzle) -> layout`, on any `core.faces.ConstructivePuzzle`. The
deepening step's compiled kernel is backtrack_kernel.py; where each step starts, backtrack_setup.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from core import interrupt
from core.errors import InputError
from core.faces import Construction, ConstructivePuzzle
from puzzles.edge_matching.board import unmatched_edge

# STOP_EVERY, Setup and _by_key moved out with the kernel and the setup; callers still import them here
from puzzles.edge_matching.solvers.backtrack_kernel import STOP_EVERY as STOP_EVERY
from puzzles.edge_matching.solvers.backtrack_kernel import _search
from puzzles.edge_matching.solvers.backtrack_setup import Setup as Setup
from puzzles.edge_matching.solvers.backtrack_setup import _by_key as _by_key
from puzzles.edge_matching.solvers.backtrack_setup import _index, deepening, setup
from puzzles.edge_matching.solvers.base import BoardBuilder, alarm, threads_available
from puzzles.edge_matching.solvers.beam import Beam, beam_search
from puzzles.edge_matching.solvers.perfect_search import Board, search

HEDGE_CELLS = 100  # up to 10 x 10: the scan order chosen by estimate, the two best in turns, then one split


@dataclass(frozen=True)
class ExactResult:
    """The best board found, its unmatched inner edges, and whether that is proved optimal."""

    piece: np.ndarray | None
    rotation: np.ndarray | None
    unmatched: int | None
    optimal: bool
    lower_bound: int
    nodes: int
    priced: int = 0  # candidates priced: a piece in one turn, tried in one cell
    stop_reason: str = "finished"  # "finished" (optimum proved), "max_nodes" or "seconds" (gave up)
    order: str = ""  # the scan order of the perfect search that found a perfect board (or proved none)


def solve_exact(
    table,
    n: int,
    preplaced=None,
    max_nodes: int = 50_000_000,
    seconds: float | None = None,
    grey_rule: bool = False,
    m: int | None = None,
    threads: int = 1,
    proved: int = 0,
) -> ExactResult:
    """The fewest unmatched inner edges, proved by iterative deepening (see the module docstring).

    Args:
        table: (n*m, turns, 4) turn table (see the module docstring); one turn: pieces never turn.
        preplaced: rows (cell, piece, turns) already on the board.
        max_nodes: give up after this many search nodes in all; the result then says
            `optimal=False` and carries the proved lower bound.
        seconds: give up, as at max_nodes, once this time has passed (stop_reason "seconds").
        grey_rule: search legal boards only, under Eternity II's rules (grey sides exactly on the rim;
            a perfect board always is).
        m: columns (n: a square board).
        threads: the perfect search's threads (puzzles/edge_matching/solvers/perfect_search/); the deepening runs on one.
        proved: a lower bound already proved (1: a perfect search found no perfect board), where the
            deepening starts; the perfect search is not walked again.
    """
    started, m = time.perf_counter(), n if m is None else m
    s = setup(table, n, preplaced, grey_rule, m)
    spent = priced = 0
    k = max(s.base + (max(s.z0 - s.b0 - s.o0, 0) + 1) // 2, proved)
    if k == 0 and s.z0 == s.b0:  # a perfect board puts every grey side off the board
        order = "auto" if n * m <= HEDGE_CELLS else "short"  # larger boards: no perfect board in reach
        answer = search(
            Board(table, n, m, preplaced, order=order),
            limit=1,
            threads=threads,
            max_nodes=max_nodes,
            seconds=seconds,
            portfolio=True,
        )
        if answer.boards:
            piece, rot = answer.boards[0]
            _confirm(table, n, m, piece, rot, 0, 0, "the perfect search's board")
            return ExactResult(piece, rot, 0, True, 0, answer.nodes, answer.nodes, order=answer.order)
        if not answer.complete:
            return _gave_up(0, answer.nodes, answer.nodes, -1 if answer.stop_reason == "max_nodes" else -2)
        spent = priced = answer.nodes
        k = 1
    index = _index(s.table)  # only the deepening steps need it
    first = k  # a bound given (`proved`) or counted, not searched: the board found must not beat it
    with alarm(_left(seconds, started)) as stop:
        while k <= 2 * n * m - n - m:
            status, nodes, tried = deepening(s, n, m, k, index, max_nodes - spent, stop)
            spent, priced = spent + nodes, priced + tried
            if status == 1:  # at most k, and k - 1 ruled out: its re-score must be k
                _confirm(s.table, n, m, s.piece, s.rot, k, first, "the deepening search's board")
                return ExactResult(s.piece, s.rot, k, True, k, spent, priced)
            if status < 0:
                return _gave_up(k, spent, priced, status)
            k += 1
    raise AssertionError("every board has at most 2nm - n - m unmatched edges")


def unmatched_joins(table, n: int, m: int, piece, rot) -> int:
    """A board's unmatched inner edges, counted afresh from its colours (`board.unmatched_edge`): what
    the searches' answers are checked against, apart from their own tallies."""
    shown = np.asarray(table)[np.asarray(piece), np.asarray(rot)].reshape(n, m, 4)
    across = unmatched_edge(shown[:, :-1, 2], shown[:, 1:, 0]).sum()
    down = unmatched_edge(shown[:-1, :, 3], shown[1:, :, 1]).sum()
    return int(across + down)


def _confirm(table, n: int, m: int, piece, rot, claimed: int, bound: int, what: str) -> None:
    """Raise when a board's re-score is not what is claimed of it, or beats a lower bound proved before
    it (then that proof was wrong: issue 31's thin boards)."""
    score = unmatched_joins(table, n, m, piece, rot)
    if score != claimed or score < bound:
        raise RuntimeError(
            f"{what} re-scores to {score} unmatched edges, but the search claimed {claimed} with a lower "
            f"bound of {bound} proved: a bug in the exact search"
        )


def _gave_up(bound: int, nodes: int, priced: int, status: int) -> ExactResult:
    """No board: the node cap (status -1), the time limit or a stop request (-2) ended the search with
    `bound` proved."""
    reason = "max_nodes" if status == -1 else "interrupted" if interrupt.requested() else "seconds"
    return ExactResult(None, None, None, False, bound, nodes, priced, reason)


def warm_up() -> None:
    """Compile both searches, or load them from numba's cache, on a 2 x 2 board with no perfect
    arrangement (so both run): a timed search then spends its time searching."""
    table = np.array([[[0, 0, 1, 1]], [[1, 0, 0, 2]], [[0, 1, 1, 0]], [[1, 1, 0, 0]]], dtype=np.int64)
    if not _search.signatures:
        solve_exact(table, 2)


def solve_puzzle(
    puzzle: ConstructivePuzzle, max_nodes: int, seconds: float | None, threads: int = 1, proved: int = 0
) -> ExactResult:
    """`solve_exact` on a puzzle's board, under its rules where they apply."""
    return solve_exact(
        puzzle.table,
        puzzle.n,
        puzzle.preplaced,
        max_nodes,
        seconds=seconds,
        grey_rule=puzzle.rules is not None,
        m=puzzle.m,
        threads=threads,
        proved=proved,
    )


def _left(seconds: float | None, started: float) -> float | None:
    """What is left of `seconds` since `started` (perf_counter), never below 0; None: no limit."""
    return None if seconds is None else max(seconds - (time.perf_counter() - started), 0.0)


DEFAULT_MAX_NODES = 50_000_000  # optimizer=backtrack's node cap when neither it nor a time budget is set
FALLBACK_WIDTH = 100  # the beam that builds a board when the exact search gives up


@dataclass(frozen=True)
class ExactConstruction(Construction):
    """A `Construction` that says whether the exact search proved its board `optimal`, and the
    `nodes` it walked. `work` counts the exact search's nodes only."""

    optimal: bool = True
    nodes: int = 0


class Backtrack(BoardBuilder):
    """The exact backtracker as a constructive solver: a board with the fewest unmatched inner edges.

    Args:
        max_nodes: give up after this many search nodes. None (the default): no cap under a time
            budget (`budget.seconds`: the time is the budget), else DEFAULT_MAX_NODES.
        threads: the perfect search's threads (null: every core); the same board on any number.

    Its work counts search nodes. A search that gives up (the time or the node cap spent) returns a
    board all the same, a narrow beam search's (`FALLBACK_WIDTH`), in an `ExactConstruction` whose
    stop reason is "seconds" or "max_nodes" and which carries the lower bound proved, and says so in
    one line (`note`, also issued as a warning). Any n x m board.
    """

    work_unit = "node"
    rectangles = True
    default_seconds = 300.0  # small boards are proved in seconds; a large one gives up with its bound

    def __init__(self, max_nodes: int | None = None, threads: int | None = None):
        if max_nodes is not None and max_nodes < 1:
            raise InputError(f"optimizer.max_nodes must be positive (or null), got {max_nodes}")
        if threads is not None and threads < 1:
            raise InputError(f"optimizer.threads must be 1 or more (or null: every core), got {threads}")
        self.max_nodes, self.threads = max_nodes, threads or threads_available()
        self.name = "backtrack"

    def node_cap(self, seconds: float | None) -> int:
        """The nodes a search may walk: the cap set, else none under a time limit, else the default."""
        if self.max_nodes is not None:
            return self.max_nodes
        return DEFAULT_MAX_NODES if seconds is None else np.iinfo(np.int64).max

    def warm_up(self, puzzle: ConstructivePuzzle) -> None:
        warm_up()

    def construct(self, puzzle: ConstructivePuzzle, seconds: float | None = None) -> ExactConstruction:
        """An optimal board, checked (each piece once, pre-placed pieces kept); or, when the search
        gives up, a beam's board and what was proved (see the class docstring)."""
        started = time.perf_counter()
        puzzle = self._require(puzzle)
        if seconds is not None:
            warm_up()  # a process's first search loads the kernels: on the clock, but not the search's
        cap = self.node_cap(seconds)
        result = solve_puzzle(puzzle, cap, _left(seconds, started), self.threads)
        if result.piece is not None and result.rotation is not None:
            layout = puzzle.layout(result.piece, result.rotation)
            found = (
                f"optimizer=backtrack: a perfect board, found by the {result.order} scan order"
                if result.order
                else ""
            )
            return ExactConstruction(
                layout, result.nodes, "finished", result.lower_bound, found, optimal=True, nodes=result.nodes
            )
        elapsed = time.perf_counter() - started
        # milliseconds, so it runs to its end even after a stop request
        piece, turn, _ = beam_search(
            puzzle.table, puzzle.n, puzzle.preplaced, FALLBACK_WIDTH, 0, None, "frame_first", puzzle.m
        )
        fallback = puzzle.layout(piece, turn)
        score = unmatched_joins(puzzle.table, puzzle.n, puzzle.m, fallback.piece, fallback.rotation)
        note = give_up_note(result, seconds, cap, elapsed, score)
        return ExactConstruction(
            fallback,
            result.nodes,
            result.stop_reason,
            result.lower_bound or None,  # 0 is no bound on a count of unmatched edges
            note,
            optimal=False,
            nodes=result.nodes,
        )


def give_up_note(result: ExactResult, seconds: float | None, cap: int, elapsed: float, score: int) -> str:
    """One line on a search that gave up: what stopped it, the work done, a lower bound only where
    one above the trivial 0 was proved, and the board kept instead."""
    why = {"seconds": f"time budget {seconds or 0:g} s", "max_nodes": f"node cap {cap:,}"}.get(
        result.stop_reason, "interrupted"
    )
    bound = (
        f"; proved: the optimum is at least {result.lower_bound} unmatched edges"
        if result.lower_bound
        else ""
    )
    return (
        f"optimizer=backtrack stopped after {result.nodes:,} nodes, {elapsed:.1f} s ({why}) without an "
        f"exact answer{bound}; the board kept is a beam search's (width {FALLBACK_WIDTH}), with {score} "
        "unmatched edges (allow more time with budget.seconds, or set optimizer.max_nodes)"
    )


EXACT_SHARE = 0.5  # under a time limit, the exact search's share of it; the beam gets what is left


class ExactFirst(BoardBuilder):
    """The exact backtracker's optimal board where it finds one within `max_nodes`; else beam
    search's (`width`).

    Why both: on the seed's boards (no turns, centre given) the backtracker solves n = 13 from about
    9 colours up and n = 15 from about 11 within half a second, but near the phase transition (fewer
    colours) its tree outgrows any cap (the perfect search needed 1.7e10 nodes, 4 minutes, for one
    board of n = 13 at 8 colours, and more than 2e10 for another), and there beam search leaves the
    fewest unmatched edges of the project's methods. At the default cap (80 million nodes, 4x the
    cap before the lean perfect search, for the same time) a give-up costs about a second. The
    beam's settings are the ones the colour sweep was measured with: frame first, 40,000 boards,
    not widened (on these boards rows tie with frame first or lose by 1-3 edges, and widening to
    1,000,000 boards saves one edge at n = 13, 8 colours, for 5x the time).

    Its work counts candidates priced (a piece in one turn, tried in one cell) by the search and the
    beam alike, one unit for both. Under a time limit the search has at most EXACT_SHARE of it (then
    it gives up as at max_nodes) and the beam the rest (see `Beam`); the stop reason is "seconds"
    when the limit cut either short.
    """

    work_unit = "placement"

    def __init__(
        self,
        max_nodes: int = 80_000_000,
        width: int = 40_000,
        seed: int = 0,
        max_width: int | None = None,
        order: str = "frame_first",
    ):
        if max_nodes < 1:
            raise InputError(f"optimizer.max_nodes must be positive, got {max_nodes}")
        self.max_nodes = max_nodes
        self.fallback = Beam(width, seed, max_width, order)
        self.name = "exact_first"

    def warm_up(self, puzzle: ConstructivePuzzle) -> None:
        warm_up()
        self.fallback.warm_up(puzzle)

    def construct(self, puzzle: ConstructivePuzzle, seconds: float | None = None) -> Construction:
        """An optimal board if the capped search finds one, else the fallback's (both checked)."""
        started = time.perf_counter()
        puzzle = self._require(puzzle)
        if seconds is not None:
            warm_up()
        share = _left(None if seconds is None else EXACT_SHARE * seconds, started)
        result = solve_puzzle(puzzle, self.max_nodes, share)
        if result.piece is not None and result.rotation is not None:
            return Construction(puzzle.layout(result.piece, result.rotation), work=result.priced)
        beam = self.fallback.construct(puzzle, _left(seconds, started))
        cut = "seconds" in (result.stop_reason, beam.stop_reason)
        return Construction(beam.layout, result.priced + beam.work, "seconds" if cut else "finished")
