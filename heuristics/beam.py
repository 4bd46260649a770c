"""Beam search for edge-matching boards: the `width` best partial boards, cell by cell.

Beam search fills the cells in a fixed order -- the frame first, clockwise, as Eternity II solvers
start, then the inner cells row by row -- and keeps, at every cell, the `width` partial boards with
the fewest unmatched edges so far (ties broken at random, from `seed`). A candidate is a piece in
one of its turns (an orient); it fits a cell only when its grey sides, so turned, face exactly the
cell's off-board sides, so every join priced is an inner one. Pre-placed pieces are placed in turn.

Why: it is the strongest method the project has on boards near the phase transition.
  * The seed's boards (no turns): where exact search gives up (n = 13 at 4-8 colours, n = 15 at
    4-10; 2e9 nodes did not solve n = 13 at 8 colours, nor CP-SAT in a minute) the compiled SA
    stalls at 85-93% match rate; a beam leaves fewer edges unmatched the wider it is (n = 13 at 7
    colours: about 25 at width 100, 16-19 at 10,000, 15-17 at the default 40,000, where the
    hybrid's 2,000,000 moves leave about 30). A 40,000-wide beam takes about 5 s on 13 x 13.
  * The official Eternity II set (pieces turn, starter piece on): 447 of 480 edges at width 1,000
    (2 s), 450 at 10,000 (14 s), 451-452 at 100,000 (about 150 s), where the compiled hybrid
    SA's 60 s median is 432 (benchmarks/bench_eternity2.py beam).
"""

from __future__ import annotations

import numba
import numpy as np

from core import ConstructivePuzzle, InputError
from heuristics.edge_greedy import DC, DR, BoardBuilder

WIDTH = 40_000  # partial boards kept per cell, by default


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


@numba.njit(cache=True, nogil=True)
def _beam(table, orient_pattern, cell_pattern, fixed, n, order, width, seed):
    """The best board found (an orient per cell) and its unmatched inner edges (see the module)."""
    np.random.seed(seed)
    cells, pieces, turns = n * n, table.shape[0], table.shape[1]
    board = np.full((2, width, cells), -1, np.int32)  # two generations: the beam and its successor
    used = np.zeros((2, width, pieces), np.bool_)
    cost = np.zeros((2, width), np.int64)
    largest = 1
    for x in range(cells):
        largest = max(largest, (orient_pattern == cell_pattern[x]).sum())
    c_entry, c_orient, c_cost = np.empty((3, width * largest), np.int32)  # (entry, orient, cost so far)
    facing = np.empty(4, np.int64)  # the colour each placed neighbour shows the cell, -1: none
    size, now = 1, 0
    for x in order:
        row, col = x // n, x % n
        pool = np.flatnonzero(orient_pattern == cell_pattern[x]) if fixed[x] < 0 else fixed[x : x + 1]
        k = 0
        for e in range(size):
            for s in range(4):
                r, c = row + DR[s], col + DC[s]
                q = board[now, e, r * n + c] if 0 <= r < n and 0 <= c < n else -1
                facing[s] = table[q // turns, q % turns, (s + 2) % 4] if q >= 0 else -1
            for o in pool:
                p, t = o // turns, o % turns
                if used[now, e, p]:
                    continue
                add = 0
                for s in range(4):
                    add += (facing[s] >= 0) & (table[p, t, s] != facing[s])
                c_entry[k], c_orient[k], c_cost[k] = e, o, cost[now, e] + add
                k += 1
        keep, nxt = min(width, k), 1 - now
        chosen = _select(c_cost[:k], keep)
        for i in range(keep):
            j = chosen[i]
            e, o = c_entry[j], c_orient[j]
            board[nxt, i], used[nxt, i] = board[now, e], used[now, e]
            board[nxt, i, x], used[nxt, i, o // turns] = o, True
            cost[nxt, i] = c_cost[j]
        size, now = keep, nxt
    best = np.argmin(cost[now, :size])
    return board[now, best].astype(np.int64), cost[now, best]


def frame_first(n: int) -> np.ndarray:
    """The frame clockwise from the top-left corner, as Eternity II solvers start, then the inner
    cells row by row (a beam over this order leaves a few edges fewer than over plain rows)."""
    frame = list(range(n)) + [r * n + n - 1 for r in range(1, n)]
    frame += [(n - 1) * n + c for c in range(n - 2, -1, -1)] + [r * n for r in range(n - 2, 0, -1)]
    inner = [r * n + c for r in range(1, n - 1) for c in range(1, n - 1)]
    return np.array(frame + inner, dtype=np.int64)


def beam_search(table: np.ndarray, n: int, preplaced=None, width: int = WIDTH, seed: int = 0):
    """(piece per cell, turns per cell, unmatched inner edges) of the best board a beam finds.

    table: turn table[piece, turn, side] of colours [left, top, right, bottom] (one turn when pieces
    never turn); preplaced: rows (cell, piece, turns) kept where they are.
    """
    table = np.ascontiguousarray(table, dtype=np.int64)
    turns = table.shape[1]
    orient_pattern, cell_pattern = grey_patterns(table, n)
    fixed = np.full(n * n, -1, dtype=np.int64)
    rows = np.asarray(preplaced if preplaced is not None else [], dtype=np.int64).reshape(-1, 3)
    fixed[rows[:, 0]] = rows[:, 1] * turns + rows[:, 2]
    for piece in rows[:, 1]:  # a pre-placed piece is nobody else's candidate
        orient_pattern[piece * turns : (piece + 1) * turns] = -1
    _check_fits(orient_pattern, np.delete(cell_pattern, rows[:, 0]), turns)
    board, unmatched = _beam(table, orient_pattern, cell_pattern, fixed, n, frame_first(n), width, seed)
    return board // turns, board % turns, int(unmatched)


class Beam(BoardBuilder):
    """Beam search as a constructive solver (see the module).

    Args:
        width: partial boards kept at every cell (time and memory grow linearly with it).
        seed: breaks ties between equally good extensions.
    """

    def __init__(self, width: int = WIDTH, seed: int = 0):
        if width < 1:
            raise InputError(f"optimizer.width must be positive, got {width}")
        self.width, self.seed = width, seed
        self.name = "beam"

    def solve(self, puzzle: ConstructivePuzzle):
        """The best board of the beam, checked (each piece once, pre-placed pieces kept)."""
        puzzle = self._require(puzzle)
        piece, turns, _ = beam_search(puzzle.table, puzzle.n, puzzle.preplaced, self.width, self.seed)
        return puzzle.layout(piece, turns)
