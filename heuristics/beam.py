"""Beam search for edge-matching boards: the `width` best partial boards, cell by cell.

Beam search fills the cells in a fixed order (`order`: row by row, as record Eternity II
backtrackers scan, or the frame first, then the inner rows) and keeps, at every cell, the partial
boards with the fewest unmatched edges so far (ties broken at random, from `seed`). A candidate is a
piece in one of its turns (an orient); it fits a cell only when its grey sides, so turned, face
exactly the cell's off-board sides, so every join priced is an inner one. Pre-placed pieces are
placed in turn. A board prices only the pieces it has left, so late cells are cheap: there the beam
keeps more boards (up to `max_width`), as many as the same work per cell affords -- and late cells
are where a beam's mismatches fall.

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

import numba
import numpy as np

from core import Construction, ConstructivePuzzle, InputError, unmatched_edge
from heuristics.edge_greedy import DC, DR, BoardBuilder

WIDTH, MAX_WIDTH = 10_000, 1_000_000  # boards kept per cell, by default: on the official set 22 s on 2 cores


def grey_patterns(table: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Each orient's grey pattern (a bit per grey side, orient = piece * turns + turn, from a turn
    table[piece, turn, side]) and each cell's (a bit per side off the board)."""
    orients = ((table == 0) * (1 << np.arange(4))).sum(axis=2).ravel()
    rows, cols = np.divmod(np.arange(n * n), n)
    off = np.stack([cols == 0, rows == 0, cols == n - 1, rows == n - 1], axis=1)
    return orients.astype(np.int64), (off * (1 << np.arange(4))).sum(axis=1).astype(np.int64)


def _check_fits(orient_pattern: np.ndarray, cell_pattern: np.ndarray, turns: int) -> None:
    """Refuse, in one line, pieces that cannot fill the board's border (too few of some kind)."""
    for pattern in np.unique(cell_pattern):
        fit = len(np.unique(np.flatnonzero(orient_pattern == pattern) // turns))
        if fit < (cell_pattern == pattern).sum():
            raise InputError(
                f"beam search needs a piece whose grey sides face out for every border cell; only {fit} "
                f"pieces fit the {(cell_pattern == pattern).sum()} cells of one kind: use a compiled "
                "optimizer (optimizer=sa_compiled)"
            )


@numba.njit(cache=True, nogil=True)
def _select(cost, keep):
    """Indices of the `keep` lowest costs, ties at the threshold drawn at random."""
    hist = np.zeros(cost.max() + 2, np.int64)
    for c in cost:
        hist[c] += 1
    threshold, below = 0, 0
    while below + hist[threshold] < keep:
        below += hist[threshold]
        threshold += 1
    chosen, ties = np.empty(keep, np.int64), np.empty(hist[threshold], np.int64)
    j = t = 0
    for i in range(cost.shape[0]):
        if cost[i] < threshold:
            chosen[j] = i
            j += 1
        elif cost[i] == threshold:
            ties[t] = i
            t += 1
    for i in range(keep - j):  # the first keep - j of a random shuffle of the ties
        r = i + np.random.randint(t - i)
        ties[i], ties[r] = ties[r], ties[i]
        chosen[j + i] = ties[i]
    return chosen


_unmatched_edge = numba.njit(inline="always")(unmatched_edge)


@numba.njit(cache=True, inline="always")
def _unmatched(table, facing, orient):
    """Joins of the orient with its placed neighbours (facing: the colour each shows, -1: none)
    that the edge-matching rule calls unmatched."""
    turns, add = table.shape[1], 0
    for s in range(4):
        if facing[s] >= 0:
            add += _unmatched_edge(table[orient // turns, orient % turns, s], facing[s])
    return add


DE_BRUIJN = 0x03F79D71B4CB0A89  # multiply a lone bit by it: the top 6 bits name the bit
BIT_OF = np.zeros(64, np.int64)
BIT_OF[[((1 << b) * DE_BRUIJN % 2**64) >> 58 for b in range(64)]] = np.arange(64)


@numba.njit(cache=True, inline="always")
def _bit(low):
    """The index of the lone bit set in `low`."""
    return BIT_OF[((low * DE_BRUIJN) >> 58) & 63]


@numba.njit(cache=True, nogil=True, parallel=True)
def _beam(table, pool_mask, pool_orients, pool_count, cell_pool, fixed, n, order, keeps, cap, seed):
    """The best board found (an orient per cell) and its unmatched inner edges (see the module).

    A board's pieces in use are a bitset, so an entry prices only the pieces it has left: a cell
    late in the order costs little, and the beam can afford to keep more boards there (`keeps`).
    Candidates of entry e go to slots from start[e], so the beam does not depend on the threads.
    """
    np.random.seed(seed)
    cells, turns, words = n * n, table.shape[1], pool_mask.shape[1]
    width = keeps.max()
    board = np.full((2, width, cells), -1, np.int16)  # two generations: the beam and its successor
    used = np.zeros((2, width, words), np.int64)
    cost = np.zeros((2, width), np.int64)
    c_entry, c_orient, c_cost = np.empty(cap, np.int32), np.empty(cap, np.int16), np.empty(cap, np.int32)
    start = np.zeros(width + 1, np.int64)
    size, now = 1, 0
    for i in range(cells):
        x, pool = order[i], cell_pool[order[i]]
        row, col = x // n, x % n
        for e in numba.prange(size):  # candidates per entry
            count = 1
            if fixed[x] < 0:
                count = 0
                for w in range(words):
                    bits = pool_mask[pool, w] & ~used[now, e, w]
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
                r, c = row + DR[s], col + DC[s]
                q = board[now, e, r * n + c] if 0 <= r < n and 0 <= c < n else -1
                facing[s] = table[q // turns, q % turns, (s + 2) % 4] if q >= 0 else -1
            k = start[e]
            if fixed[x] >= 0:
                c_entry[k], c_orient[k], c_cost[k] = (
                    e,
                    fixed[x],
                    cost[now, e] + _unmatched(table, facing, fixed[x]),
                )
                continue
            for w in range(words):
                bits = pool_mask[pool, w] & ~used[now, e, w]
                while bits != 0:
                    low = bits & -bits
                    bits ^= low
                    p = 64 * w + _bit(low)
                    for j in range(pool_count[pool, p]):
                        o = pool_orients[pool, p, j]
                        c_entry[k], c_orient[k], c_cost[k] = e, o, cost[now, e] + _unmatched(table, facing, o)
                        k += 1
        k = start[size]
        keep, nxt = min(keeps[i], k), 1 - now
        chosen = _select(c_cost[:k], keep)
        for j in numba.prange(keep):
            e, o = c_entry[chosen[j]], c_orient[chosen[j]]
            board[nxt, j], used[nxt, j] = board[now, e], used[now, e]
            board[nxt, j, x] = o
            p = o // turns
            used[nxt, j, p // 64] |= 1 << (p % 64)
            cost[nxt, j] = c_cost[chosen[j]]
        size, now = keep, nxt
    best = np.argmin(cost[now, :size])
    return board[now, best].astype(np.int64), cost[now, best]


def pools(orient_pattern: np.ndarray, cell_pattern: np.ndarray, turns: int):
    """Each cell's pool (the orients whose grey pattern is the cell's), as kernel tables: a piece
    bitset per pool, each pool piece's orients and their count, and the pool of every cell."""
    patterns, cell_pool = np.unique(cell_pattern, return_inverse=True)
    pieces = len(orient_pattern) // turns
    mask = np.zeros((len(patterns), (pieces + 63) // 64), np.uint64)
    orients = np.zeros((len(patterns), pieces, turns), np.int64)
    count = np.zeros((len(patterns), pieces), np.int64)
    for pool, pattern in enumerate(patterns):
        for o in np.flatnonzero(orient_pattern == pattern):
            p = o // turns
            orients[pool, p, count[pool, p]] = o
            count[pool, p] += 1
            mask[pool, p // 64] |= np.uint64(1) << np.uint64(p % 64)
    return mask.view(np.int64), orients, count, cell_pool.astype(np.int64)


def keep_schedule(count, cell_pool, fixed, order, width: int, max_width: int):
    """How many boards to keep after each cell, and the candidates a cell can have at most.

    An entry's candidates at a cell are at most its pool's pieces not yet placed in cells of that
    pool, times their orients. Where that bound falls (late in the order) the beam keeps up to
    `max_width` boards, so that no cell prices more candidates than `width` boards do at the worst.
    """
    bound = np.ones(len(order), np.int64)
    placed = np.zeros(count.shape[0], np.int64)
    for i, x in enumerate(order):
        if fixed[x] < 0:
            pool = cell_pool[x]
            left = max(int((count[pool] > 0).sum() - placed[pool]), 1)
            bound[i] = left * max(int(count[pool].max()), 1)
            placed[pool] += 1
    budget = width * bound.max()
    after = np.append(bound[1:], 1)  # the bound of the cell each kept board goes on to
    keeps = np.clip(budget // after, width, max(width, max_width))
    keeps[-1] = width
    return keeps, int(max(bound[0], (keeps[:-1] * bound[1:]).max()))


def frame_first(n: int) -> np.ndarray:
    """The frame clockwise from the top-left corner, then the inner cells row by row (on the seed's
    boards, pieces fixed, a beam over this order leaves a few edges fewer than over plain rows)."""
    frame = list(range(n)) + [r * n + n - 1 for r in range(1, n)]
    frame += [(n - 1) * n + c for c in range(n - 2, -1, -1)] + [r * n for r in range(n - 2, 0, -1)]
    inner = [r * n + c for r in range(1, n - 1) for c in range(1, n - 1)]
    return np.array(frame + inner, dtype=np.int64)


def rows(n: int) -> np.ndarray:
    """Row by row, frame cells with their row, as record Eternity II backtrackers scan (on the
    official set a beam over this order matches 3-6 joins more than over frame_first)."""
    return np.arange(n * n, dtype=np.int64)


ORDERS = {"rows": rows, "frame_first": frame_first}


def beam_search(
    table: np.ndarray,
    n: int,
    preplaced=None,
    width: int = WIDTH,
    seed: int = 0,
    max_width: int | None = None,
    order: str = "rows",
):
    """(piece per cell, turns per cell, unmatched inner edges) of the best board a beam finds.

    table: turn table[piece, turn, side] of colours [left, top, right, bottom] (one turn when pieces
    never turn); preplaced: rows (cell, piece, turns) kept where they are; max_width: the most
    boards kept where few pieces are left (default: `width` everywhere); order: a name in ORDERS.
    """
    table = np.ascontiguousarray(table, dtype=np.int64)
    turns = table.shape[1]
    orient_pattern, cell_pattern = grey_patterns(table, n)
    fixed = np.full(n * n, -1, dtype=np.int64)
    given = np.asarray(preplaced if preplaced is not None else [], dtype=np.int64).reshape(-1, 3)
    fixed[given[:, 0]] = given[:, 1] * turns + given[:, 2]
    for piece in given[:, 1]:  # a pre-placed piece is nobody else's candidate
        orient_pattern[piece * turns : (piece + 1) * turns] = -1
    _check_fits(orient_pattern, np.delete(cell_pattern, given[:, 0]), turns)
    mask, orients, count, cell_pool = pools(orient_pattern, cell_pattern, turns)
    cells = ORDERS[order](n)
    keeps, cap = keep_schedule(count, cell_pool, fixed, cells, width, max_width or width)
    board, unmatched = _beam(table, mask, orients, count, cell_pool, fixed, n, cells, keeps, cap, seed)
    return board // turns, board % turns, int(unmatched)


class Beam(BoardBuilder):
    """Beam search as a constructive solver (see the module).

    Args:
        width: partial boards kept at every cell (time and memory grow linearly with it).
        seed: breaks ties between equally good extensions.
        max_width: where few pieces are left, keep up to this many boards, as many as the same
            work per cell affords (None: `width` everywhere). Memory: about 1 KB per board.
        order: the order cells are filled in: "frame_first" or "rows" (see ORDERS).
    """

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

    def construct(self, puzzle: ConstructivePuzzle, seconds: float | None = None) -> Construction:
        """The best board of the beam, checked (each piece once, pre-placed pieces kept)."""
        puzzle = self._require(puzzle)
        piece, turns, _ = beam_search(
            puzzle.table, puzzle.n, puzzle.preplaced, self.width, self.seed, self.max_width, self.order
        )
        return Construction(puzzle.layout(piece, turns), work=0)
