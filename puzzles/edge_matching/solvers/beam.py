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
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numba
import numpy as np

# OpenMP threads that spin while they wait make a busy machine's beam crawl (Eternity II, width 32, two
# threads beside other jobs: 4.7 s spinning, 0.16 s passive or on one thread); read when numba first
# starts its threads, so set here, before any beam runs (a value the user set is kept).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from core import progress
from core.errors import InputError
from core.faces import Construction, ConstructivePuzzle
from puzzles.edge_matching.board import grey_patterns, unmatched_join
from puzzles.edge_matching.solvers.base import BoardBuilder, alarm
from puzzles.edge_matching.solvers.beam_tables import (
    candidate_bounds,
    check_fits,
    colour_lists,
    keep_schedule,
    pools,
    ring_slots,
)

WIDTH, MAX_WIDTH = 10_000, 1_000_000  # boards kept per cell, by default: on the official set 22 s on 2 cores
SERIAL_WORK = 1_000_000  # a beam that prices at most this many candidates runs on one thread


@numba.njit(cache=True, nogil=True)
def _select(cost, keep):
    """Indices of the `keep` lowest costs, ties at the threshold drawn at random.

    Costs are unmatched joins, so below 4096 (`Prepared` refuses boards with more joins); the scan writes
    without branching (every index is written, and kept only where its cost passes)."""
    hist = np.zeros(4096, np.int64)
    for c in cost:
        hist[c] += 1
    threshold, below = 0, 0
    while below + hist[threshold] < keep:
        below += hist[threshold]
        threshold += 1
    chosen, ties = np.empty(keep + 1, np.int64), np.empty(hist[threshold] + 1, np.int64)
    j = t = 0
    for i in range(cost.shape[0]):
        c = cost[i]
        chosen[j] = i
        j += c < threshold
        ties[t] = i
        t += c == threshold
    for i in range(keep - j):  # the first keep - j of a random shuffle of the ties
        r = i + np.random.randint(t - i)
        ties[i], ties[r] = ties[r], ties[i]
        chosen[j + i] = ties[i]
    return chosen[:keep]


@numba.njit(cache=True, inline="always")
def _unmatched(table, facing, orient):
    """Joins of the orient with its placed neighbours (facing: the colour each shows, -1: none)
    that the edge-matching rule calls unmatched."""
    turns, add = table.shape[1], 0
    for s in range(4):
        if facing[s] >= 0:
            add += unmatched_join(table[orient // turns, orient % turns, s], facing[s])
    return add


DE_BRUIJN = 0x03F79D71B4CB0A89  # multiply a lone bit by it: the top 6 bits name the bit
BIT_OF = np.zeros(64, np.int64)
BIT_OF[[((1 << b) * DE_BRUIJN % 2**64) >> 58 for b in range(64)]] = np.arange(64)


@numba.njit(cache=True, inline="always")
def _bit(low):
    """The index of the lone bit set in `low`."""
    return BIT_OF[((low * DE_BRUIJN) >> 58) & 63]


@numba.njit(cache=True, inline="always")
def _free(used, p):
    """Is piece p not in the bitset `used`?"""
    return (used[p // 64] >> (p % 64)) & 1 == 0


@numba.njit(cache=True, inline="always")
def _shown(table, orient, side):
    """The colour an orient (piece * turns + turn) shows on a side."""
    turns = table.shape[1]
    return table[orient // turns, orient % turns, side]


@numba.njit(cache=True, nogil=True, parallel=True)
def _beam(table, pools, fixed, order, keeps, cap, seed, stop, lists, slots, ring):
    """(best board found, an orient per cell; its unmatched inner edges; candidates priced; finished).

    A kept board is its last `ring` placements (slot = position in the order % ring: every
    neighbour a later cell reads lies within that many), its pieces in use (a bitset) and its cost; the boards
    themselves are a history of one (parent, orient) per kept board and cell, walked back at the end.
    So a board costs tens of bytes a cell to carry, not its whole length (`slots`: the ring slot of
    each cell's placed neighbours, -1 for none; `pools`: the pool tables, see `beam_tables.pools`).
    An entry prices only the pieces it has left, so late cells are cheap and the beam keeps more
    boards there (`keeps`). Candidates of entry e go to slots from start[e], so the beam does not
    depend on the threads. Once another thread sets stop[0], it gives up at its next look (twice a cell).

    At a cell whose placed neighbours are its left, its top or both (`lists.fast`), an entry first
    prices only the orients that match its left or its top colour (`lists`), a tenth of its pool; any
    other costs a join more for each placed neighbour. When those are too few to fill the beam, or a
    board that many joins below the threshold could gain, the cell is priced in full (`_full`).
    """
    fast = lists[0]
    pool_mask, pool_orients, pool_count, cell_pool = pools
    np.random.seed(seed)
    cells, turns, words = order.shape[0], table.shape[1], pool_mask.shape[1]
    width = keeps.max()
    last = np.zeros((2, width, ring), np.int16)  # two generations: the beam and its successor
    used = np.zeros((2, width, words), np.int64)
    cost = np.zeros((2, width), np.int64)
    offset = np.zeros(cells + 1, np.int64)
    for i in range(cells):
        offset[i + 1] = offset[i] + keeps[i]
    parent, placed = np.empty(offset[cells], np.int32), np.empty(offset[cells], np.int16)
    c_entry, c_orient, c_cost = np.empty(cap, np.int32), np.empty(cap, np.int16), np.empty(cap, np.int32)
    out = (c_entry, c_orient, c_cost)
    start = np.zeros(width + 1, np.int64)
    size, now, priced = 1, 0, 0
    for i in range(cells):
        if stop[0] != 0:
            return np.empty(0, np.int64), -1, priced, False
        x, pool = order[i], cell_pool[order[i]]
        full = True
        if fast[i]:
            at_left, at_top = slots[i, 0], slots[i, 1]  # one may be -1: no placed neighbour there
            _fast(table, lists, pool, at_left, at_top, last[now], used[now], cost[now], size, start, out)
            k = start[size]
            priced += k
            if stop[0] != 0:  # a wide beam's cell takes a while: look again before selecting
                return np.empty(0, np.int64), -1, priced, False
            if k >= keeps[i]:
                chosen = _select(c_cost[:k], keeps[i])
                threshold = 0
                for j in range(keeps[i]):
                    threshold = max(threshold, c_cost[chosen[j]])
                omitted = (at_left >= 0) + (at_top >= 0)  # the least an orient matching neither would add
                full = cost[now, :size].min() + omitted < threshold
        if full:
            _full(table, pools, fixed[x], x, slots[i], last[now], used[now], cost[now], size, start, out, cap)
            k = start[size]
            priced += k
            chosen = _select(c_cost[:k], min(keeps[i], k))
        keep, nxt, slot = min(keeps[i], k), 1 - now, i % ring
        for j in numba.prange(keep):
            e, o = c_entry[chosen[j]], c_orient[chosen[j]]
            last[nxt, j], used[nxt, j] = last[now, e], used[now, e]
            last[nxt, j, slot] = o
            p = o // turns
            used[nxt, j, p // 64] |= 1 << (p % 64)
            cost[nxt, j] = c_cost[chosen[j]]
            parent[offset[i] + j], placed[offset[i] + j] = e, o
        size, now = keep, nxt
    best = np.argmin(cost[now, :size])
    board, e = np.empty(cells, np.int64), best
    for i in range(cells - 1, -1, -1):
        board[order[i]] = placed[offset[i] + e]
        e = parent[offset[i] + e]
    return board, cost[now, best], priced, True


@numba.njit(cache=True, nogil=True, parallel=True)
def _fast(table, lists, pool, at_left, at_top, last, used, cost, size, start, out):
    """`_full` for a cell whose placed neighbours are its left, its top or both (ring slots at_left,
    at_top; -1: none): only the pool's orients that match the left or the top colour."""
    c_entry, c_orient, c_cost = out
    _, starts, members, member_piece, member_left, member_top = lists
    for e in numba.prange(size):  # matching candidates per entry
        left = _shown(table, last[e, at_left], 2) if at_left >= 0 else -1
        top = _shown(table, last[e, at_top], 3) if at_top >= 0 else -1
        count = 0
        if left >= 0:
            for j in range(starts[pool, 0, left], starts[pool, 0, left + 1]):
                count += _free(used[e], member_piece[j])
        if top >= 0:
            for j in range(starts[pool, 1, top], starts[pool, 1, top + 1]):
                count += _free(used[e], member_piece[j]) and member_left[j] != left
        start[e + 1] = count
    for e in range(size):
        start[e + 1] += start[e]
    for e in numba.prange(size):
        left = _shown(table, last[e, at_left], 2) if at_left >= 0 else -1
        top = _shown(table, last[e, at_top], 3) if at_top >= 0 else -1
        k = start[e]
        for side in range(2):
            shown = left if side == 0 else top
            if shown < 0:
                continue
            for j in range(starts[pool, side, shown], starts[pool, side, shown + 1]):
                if not _free(used[e], member_piece[j]) or (side == 1 and member_left[j] == left):
                    continue
                add = 0
                if left >= 0:
                    add += unmatched_join(member_left[j], left)
                if top >= 0:
                    add += unmatched_join(member_top[j], top)
                c_entry[k], c_orient[k], c_cost[k] = e, members[j], cost[e] + add
                k += 1


@numba.njit(cache=True, nogil=True, parallel=True)
def _full(table, pools, fixed, x, slots, last, used, cost, size, start, out, cap):
    """Price every candidate of every entry at cell x (its pool's free pieces in every orient; only the
    fixed orient where `fixed` >= 0) into out = (entry, orient, cost) from slot start[e] on; their
    count ends in start[size]. slots[s]: the ring slot of the neighbour across side s, -1: none."""
    c_entry, c_orient, c_cost = out
    pool_mask, pool_orients, pool_count, cell_pool = pools
    pool, words = cell_pool[x], pool_mask.shape[1]
    for e in numba.prange(size):  # candidates per entry
        count = 1
        if fixed < 0:
            count = 0
            for w in range(words):
                bits = pool_mask[pool, w] & ~used[e, w]
                while bits != 0:
                    low = bits & -bits
                    count += pool_count[pool, 64 * w + _bit(low)]
                    bits ^= low
        start[e + 1] = count
    for e in range(size):
        start[e + 1] += start[e]
    if start[size] > cap:  # keep_schedule's bound is wrong: fail rather than write past the end
        raise RuntimeError("beam search: more candidates than keep_schedule allowed for")
    for e in numba.prange(size):
        facing = np.empty(4, np.int64)  # the colour each placed neighbour shows the cell, -1: none
        for s in range(4):
            q = slots[s]
            facing[s] = _shown(table, last[e, q], (s + 2) % 4) if q >= 0 else -1
        k = start[e]
        if fixed >= 0:
            c_entry[k], c_orient[k], c_cost[k] = e, fixed, cost[e] + _unmatched(table, facing, fixed)
            continue
        for w in range(words):
            bits = pool_mask[pool, w] & ~used[e, w]
            while bits != 0:
                low = bits & -bits
                bits ^= low
                p = 64 * w + _bit(low)
                for j in range(pool_count[pool, p]):
                    o = pool_orients[pool, p, j]
                    c_entry[k], c_orient[k], c_cost[k] = e, o, cost[e] + _unmatched(table, facing, o)
                    k += 1


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


GROWTH = 8  # the widest step from one width to the next (the first beam's time is all overhead)
SUPERLINEAR = (
    0.1  # a beam's time grows as work ** 1.1 (official set, one core: 4,096 wide 5.8 s, 40,000 68 s)
)
SAFETY = 0.9  # plan a beam to end by this share of the time left


def beam_within(
    prepared: Prepared, width: int, seed: int, max_width: int | None, seconds: float, started: float
) -> tuple[BeamRun, int, str]:
    """The best board beams find by `started + seconds` (perf_counter): (run, work of every beam, stop
    reason: "finished" when the configured beam finished, else "seconds"). The board is the best of
    every beam finished, the configured one's only when no narrower beam did better (each beam's board
    is shown on the live line, and the record keeps at least that).

    Why a schedule rather than one beam: a beam yields no board until its last cell, so one too wide
    for the time yields nothing. Beams widen (width and max_width in proportion) from one board,
    whose time is the per-cell overhead; each next width is the widest that the last beam's time,
    scaled by `most_work`, predicts to end in time (at most GROWTH x the last width). A timer stops a
    beam that would overrun; the result is then the best board finished.
    """

    def widened(v: int) -> int | None:
        return None if max_width is None else max(v, max_width * v // width)

    def predicted(v: int) -> float:
        work = prepared.most_work(v, widened(v))
        return overhead + per_work * work * (work / measured) ** SUPERLINEAR

    deadline = started + seconds
    finished: list[tuple[int, BeamRun]] = []
    work, w, overhead, per_work, measured = 0, 1, 0.0, 0.0, 1
    with alarm(deadline - time.perf_counter()) as stop:
        while True:
            begun = time.perf_counter()
            run = prepared.run(w, seed, widened(w), stop if finished else None)  # the first always ends
            took = time.perf_counter() - begun
            work += run.work
            progress.report(run.work, run.unmatched if run.finished else None, "candidate")
            if not run.finished:
                break
            finished.append((w, run))
            if w == width:  # a narrower beam may have found the better board: keep the best
                return best_of(finished), work, "finished"
            if len(finished) == 1:
                overhead = took
            else:
                measured = prepared.most_work(w, widened(w))
                per_work = max(took - overhead, took / 4) / measured
            left = SAFETY * (deadline - time.perf_counter())
            low, high = w, min(width, GROWTH * w)  # the widest v in (w, high] predicted to fit
            while low < high:
                mid = (low + high + 1) // 2
                low, high = (mid, high) if predicted(mid) <= left else (low, mid - 1)
            if low == w:
                break
            w = low
    return best_of(finished), work, "seconds"


def best_of(finished: list[tuple[int, BeamRun]]) -> BeamRun:
    """The fewest unmatched joins of the beams finished, the widest among equals."""
    return min(finished, key=lambda pair: (pair[1].unmatched, -pair[0]))[1]


def beam_unlimited(
    prepared: Prepared, width: int, seed: int, max_width: int | None
) -> tuple[BeamRun, int, str]:
    """The configured beam with no time limit, as (run, work, stop reason). A beam yields no board
    until its last cell, and a stop request (Ctrl-C) cuts it short: a beam of one (milliseconds) then
    builds the board the run keeps ("interrupted")."""
    with alarm(None) as stop:
        run = prepared.run(width, seed, max_width, stop)
    progress.report(run.work, run.unmatched if run.finished else None, "candidate")
    if run.finished:
        return run, run.work, "finished"
    first = prepared.run(1, seed, None if max_width is None else max(1, max_width // width))
    return first, run.work + first.work, "interrupted"


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
