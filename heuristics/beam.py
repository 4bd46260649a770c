"""Beam search for edge-matching boards whose pieces never turn: the `width` best partial boards,
row by row.

Why: near the phase transition of the seed's boards (n = 13 about 6-8 colours, n = 15 about 6-10)
exact search gives up and the compiled SA stalls at 85-93% match rate, while many boards that are
perfect for most of their rows still exist. Beam search keeps `width` of them, fills the cells in
row-major order, and keeps, at every cell, the `width` extensions with the fewest unmatched edges so
far (ties broken at random, from `seed`): a board ends with its mismatches where the pieces left
over no longer fit, and a wide beam leaves fewer of them (n = 13, 7 colours: about 25 unmatched at
width 100, 17 at 10,000; the hybrid's 2,000,000 moves leave about 30).

A partial board is kept as its pieces used and its last n cells (all a row-major cell needs to price
its left and top joins); each cell's choice and its parent are kept so the best board is traced back
at the end. Pieces fit only cells of their grey pattern (a corner in its corner, a frame piece grey
side out), so every join priced is an inner one; pre-placed pieces are placed in their turn.
"""

from __future__ import annotations

import numba
import numpy as np

from core import ConstructivePuzzle, InputError
from heuristics.edge_greedy import BoardBuilder


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
def _beam(sides, piece_pattern, cell_pattern, fixed, n, width, seed):
    """The best board found and its unmatched inner edges (see the module docstring)."""
    np.random.seed(seed)
    cells, pieces = n * n, sides.shape[0]
    used = np.zeros((width, pieces), np.bool_)
    window = np.full((width, n), -1, np.int64)  # the last n placed pieces, oldest first
    cost = np.zeros(width, np.int64)
    parent = np.zeros((cells, width), np.int64)
    choice = np.zeros((cells, width), np.int64)
    size = 1
    for x in range(cells):
        row, col = x // n, x % n
        pool = np.flatnonzero(piece_pattern == cell_pattern[x])
        if fixed[x] >= 0:
            pool = np.array([fixed[x]])
        most = size * pool.shape[0]  # candidates: (beam entry, piece, cost so far)
        c_entry, c_piece, c_cost = np.empty((3, most), np.int64)
        k = 0
        for e in range(size):
            left = window[e, n - 1] if col > 0 else -1
            up = window[e, 0] if row > 0 else -1
            for p in pool:
                if used[e, p]:
                    continue
                add = 0
                if left >= 0:
                    add += sides[p, 0] != sides[left, 2]
                if up >= 0:
                    add += sides[p, 1] != sides[up, 3]
                c_entry[k], c_piece[k], c_cost[k] = e, p, cost[e] + add
                k += 1
        if k == 0:
            raise ValueError("no piece left for a cell: the pieces do not fit the board's grey pattern")
        keep = min(width, k)
        chosen = _select(c_cost[:k], keep)
        new_used = np.empty((keep, pieces), np.bool_)
        new_window = np.empty((keep, n), np.int64)
        for i in range(keep):
            j = chosen[i]
            e, p = c_entry[j], c_piece[j]
            new_used[i] = used[e]
            new_used[i, p] = True
            new_window[i, : n - 1] = window[e, 1:]
            new_window[i, n - 1] = p
            cost[i] = c_cost[j]
            parent[x, i], choice[x, i] = e, p
        used[:keep], window[:keep], size = new_used, new_window, keep
    best = np.argmin(cost[:size])
    board, e = np.empty(cells, np.int64), best
    for x in range(cells - 1, -1, -1):
        board[x] = choice[x, e]
        e = parent[x, e]
    return board, cost[best]


def beam_search(sides: np.ndarray, n: int, preplaced=None, width: int = 10_000, seed: int = 0):
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
    board, unmatched = _beam(sides, piece_pattern, cell_pattern, fixed, n, width, seed)
    return board, int(unmatched)


class Beam(BoardBuilder):
    """Beam search as a constructive solver, for boards whose pieces never turn (see the module).

    Args:
        width: partial boards kept at every cell (time and memory grow linearly with it).
        seed: breaks ties between equally good extensions.
    """

    def __init__(self, width: int = 10_000, seed: int = 0):
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
