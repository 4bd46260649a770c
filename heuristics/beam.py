"""Beam search for edge-matching boards whose pieces never turn: the `width` best partial boards,
cell by cell.

Why: near the phase transition of the seed's boards (n = 13 about 6-8 colours, n = 15 about 6-10)
exact search gives up (2e9 nodes did not solve n = 13 at 8 colours, nor CP-SAT in a minute) and the
compiled SA stalls at 85-93% match rate. Beam search fills the cells in a fixed order -- the frame
first, clockwise, then the inner cells row by row -- and keeps, at every cell, the `width` partial
boards with the fewest unmatched edges so far (ties broken at random, from `seed`). The mismatches
gather where the pieces left over no longer fit, and a wide beam leaves fewer of them (n = 13 at 7
colours: about 25 unmatched at width 100, 16-19 at 10,000, 15-17 at the default 40,000, where the
hybrid's 2,000,000 moves leave about 30; a 40,000-wide beam takes about 5 s on 13 x 13, 11 s on
15 x 15).

Pieces fit only cells of their grey pattern (a corner in its corner, a frame piece grey side out),
so every join priced is an inner one; pre-placed pieces are placed in their turn.
"""

from __future__ import annotations

import numba
import numpy as np

from core import ConstructivePuzzle, InputError
from heuristics.edge_greedy import BoardBuilder

WIDTH = 40_000  # partial boards kept per cell, by default
_DR = (0, -1, 0, 1)  # neighbour across side s: [left, top, right, bottom]
_DC = (-1, 0, 1, 0)


def grey_patterns(sides: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Each piece's grey pattern (a bit per grey side) and each cell's (a bit per side off the board)."""
    pieces = ((sides == 0) * (1 << np.arange(4))).sum(axis=1)
    rows, cols = np.divmod(np.arange(n * n), n)
    off = np.stack([cols == 0, rows == 0, cols == n - 1, rows == n - 1], axis=1)
    return pieces.astype(np.int64), (off * (1 << np.arange(4))).sum(axis=1).astype(np.int64)


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
def _beam(sides, piece_pattern, cell_pattern, fixed, n, order, width, seed):
    """The best board found and its unmatched inner edges (see the module docstring)."""
    np.random.seed(seed)
    cells, pieces = n * n, sides.shape[0]
    board = np.full((2, width, cells), -1, np.int16)  # two generations: the beam and its successor
    used = np.zeros((2, width, pieces), np.bool_)
    cost = np.zeros((2, width), np.int64)
    largest = max([(piece_pattern == cell_pattern[x]).sum() for x in range(cells)] + [1])
    c_entry, c_piece, c_cost = np.empty((3, width * largest), np.int32)  # (entry, piece, cost so far)
    facing = np.empty(4, np.int64)  # the colour each placed neighbour shows the cell, -1: none
    size, now = 1, 0
    for x in order:
        row, col = x // n, x % n
        pool = np.flatnonzero(piece_pattern == cell_pattern[x]) if fixed[x] < 0 else fixed[x : x + 1]
        k = 0
        for e in range(size):
            for s in range(4):
                r, c = row + _DR[s], col + _DC[s]
                q = board[now, e, r * n + c] if 0 <= r < n and 0 <= c < n else -1
                facing[s] = sides[q, (s + 2) % 4] if q >= 0 else -1
            for p in pool:
                if used[now, e, p]:
                    continue
                add = 0
                for s in range(4):
                    add += (facing[s] >= 0) & (sides[p, s] != facing[s])
                c_entry[k], c_piece[k], c_cost[k] = e, p, cost[now, e] + add
                k += 1
        if k == 0:
            raise ValueError("no piece left for a cell: the pieces do not fit the board's grey pattern")
        keep, nxt = min(width, k), 1 - now
        chosen = _select(c_cost[:k], keep)
        for i in range(keep):
            j = chosen[i]
            e, p = c_entry[j], c_piece[j]
            board[nxt, i], used[nxt, i] = board[now, e], used[now, e]
            board[nxt, i, x], used[nxt, i, p] = p, True
            cost[nxt, i] = c_cost[j]
        size, now = keep, nxt
    board, cost = board[now], cost[now]
    best = np.argmin(cost[:size])
    return board[best].astype(np.int64), cost[best]


def frame_first(n: int) -> np.ndarray:
    """The frame clockwise from the top-left corner, as Eternity II solvers start, then the inner
    cells row by row (a beam over this order leaves a few edges fewer than over plain rows)."""
    frame = list(range(n)) + [r * n + n - 1 for r in range(1, n)]
    frame += [(n - 1) * n + c for c in range(n - 2, -1, -1)] + [r * n for r in range(n - 2, 0, -1)]
    inner = [r * n + c for r in range(1, n - 1) for c in range(1, n - 1)]
    return np.array(frame + inner, dtype=np.int64)


def beam_search(sides: np.ndarray, n: int, preplaced=None, width: int = WIDTH, seed: int = 0):
    """(pieces per cell, unmatched inner edges) of the best board a beam of `width` finds.

    sides: (n*n, 4) colours [left, top, right, bottom] of pieces that never turn; preplaced: rows
    (cell, piece, turns) kept where they are.
    """
    sides = np.ascontiguousarray(sides, dtype=np.int64)
    piece_pattern, cell_pattern = grey_patterns(sides, n)
    if sorted(piece_pattern) != sorted(cell_pattern):
        raise InputError(
            "beam search needs pieces whose grey sides fit the board's border unturned (the seed's "
            "boards); these do not: use a compiled optimizer (optimizer=sa_compiled)"
        )
    fixed = np.full(n * n, -1, dtype=np.int64)
    rows = np.asarray(preplaced if preplaced is not None else [], dtype=np.int64).reshape(-1, 3)
    fixed[rows[:, 0]] = rows[:, 1]
    piece_pattern[fixed[fixed >= 0]] = -1  # a pre-placed piece is nobody else's candidate
    board, unmatched = _beam(sides, piece_pattern, cell_pattern, fixed, n, frame_first(n), width, seed)
    return board, int(unmatched)


class Beam(BoardBuilder):
    """Beam search as a constructive solver, for boards whose pieces never turn (see the module).

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
        if puzzle.table.shape[1] != 1:
            raise InputError("optimizer=beam needs pieces that never turn (puzzle.rotations=false)")
        board, _ = beam_search(puzzle.table[:, 0], puzzle.n, puzzle.preplaced, self.width, self.seed)
        return puzzle.layout(board, np.zeros_like(board))
