"""The compiled fitness: unmatched inner edges of a board, from a genome in one packed plan.

Every compiled loop here counts with `unmatched`, the one edge rule of `core.unmatched_edge`.
"""

from __future__ import annotations

import numba
import numpy as np

from core import unmatched_edge
from puzzles.edge_matching.board import MAX_COLOUR

unmatched = numba.njit(inline="always")(unmatched_edge)


@numba.njit(cache=True, nogil=True)
def count_unmatched(piece, rot, table, n):
    """Unmatched inner edges of a board of n rows given as piece and turns per cell (row-major)."""
    bad = 0
    m = len(piece) // n
    for r in range(n):
        for c in range(m):
            i = r * m + c
            if c + 1 < m:
                bad += unmatched(table[piece[i], rot[i], 2], table[piece[i + 1], rot[i + 1], 0])
            if r + 1 < n:
                bad += unmatched(table[piece[i], rot[i], 3], table[piece[i + m], rot[i + m], 1])
    return bad


HEAD = 4  # plan = [rows n, free count f, turns? (0/1), columns m, free cells (f), free pieces (f),
#              word per cell of the pre-placed board (n m), word per piece and turn (n m * 4)]


def pack(sides: np.ndarray) -> np.ndarray:
    """One int64 word per [left, top, right, bottom] row: side s in bits 16 s .. 16 s + 15."""
    t = np.asarray(sides, dtype=np.int64)
    return t[..., 0] | (t[..., 1] << 16) | (t[..., 2] << 32) | (t[..., 3] << 48)


def fitness_plan(
    n: int, m: int, free_cells, free_pieces, rotations: bool, preplaced_sides, table
) -> np.ndarray:
    """Everything the compiled fitness needs in one int array, so a call passes two arguments.

    `table` has all four turns of every piece. Each array argument costs the dispatcher time, and
    one packed word per piece and turn is one load per cell instead of four: on a 16 x 16 board
    these halve the time of a call.
    """
    if table.max() > MAX_COLOUR:
        raise ValueError(f"colours above {MAX_COLOUR} do not fit the packed fitness")
    head = [n, len(free_cells), int(rotations), m]
    return np.concatenate([head, free_cells, free_pieces, pack(preplaced_sides), pack(table).ravel()]).astype(
        np.int64
    )


@numba.njit(cache=True, nogil=True)
def plan_unmatched(genome, plan):
    """Fill the free cells from the genome (a packed word per cell), then count unmatched inner edges."""
    n, f, turned, m = plan[0], plan[1], plan[2], plan[3]
    cells, preplaced = n * m, HEAD + 2 * f
    words = preplaced + cells
    board = np.empty(cells, dtype=np.int64) if f == cells else plan[preplaced:words].copy()
    for k in range(f):
        item = genome[k]
        board[plan[HEAD + k]] = plan[words + plan[HEAD + f + item] * 4 + (genome[f + item] if turned else 0)]
    bad, side = 0, 0xFFFF
    for r in range(n):
        for c in range(r * m, r * m + m - 1):  # right side against the next cell's left
            bad += unmatched((board[c] >> 32) & side, board[c + 1] & side)
    for i in range(cells - m):  # bottom side against the top of the cell below
        bad += unmatched((board[i] >> 48) & side, (board[i + m] >> 16) & side)
    return bad
