"""Exhaustive search over every order of the fixed pieces: the ground truth behind `known_optimum`.

A depth-first walk over orders shares the packing of each prefix among all orders that start with
it, and drops a prefix once it already uses more rows than allowed (rows never shrink as pieces are
added), so "which orders give at most g gaps" is answered without decoding all n! orders.
"""

from __future__ import annotations

import numba
import numpy as np

from core.errors import InputError
from puzzles.pentomino import PentominoStrip


@numba.njit(cache=True)
def _walk(cells, dims, width, rows, max_rows):
    """(fewest rows of any order, number of orders using that many) among orders within max_rows.

    The boards of every depth sit in one flat array, and the bottom-left placement is written into
    the loop: a row view or a call taking arrays per node would cost numba's reference counting on
    each of the ~10^8 nodes."""
    n = dims.shape[0]
    boards = np.zeros((n + 1) * rows, dtype=np.uint64)
    lows = np.zeros(n + 1, dtype=np.int64)
    useds = np.zeros(n + 1, dtype=np.int64)
    nxt = np.zeros(n + 1, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    placed = np.zeros(n, dtype=np.bool_)
    full = (np.uint64(1) << np.uint64(width)) - np.uint64(1)
    best, count, level = max_rows, 0, 0
    while level >= 0:
        p = nxt[level]
        if p >= n:  # every piece tried at this depth: step back
            level -= 1
            if level >= 0:
                placed[order[level]] = False
            continue
        nxt[level] += 1
        if placed[p]:
            continue
        here = level * rows  # this depth's board; the next depth's starts at here + rows
        k = dims[p, 0, 2]
        shifts = (np.uint64(1) << np.uint64(width - dims[p, 0, 1] + 1)) - np.uint64(1)
        i = lows[level]
        while True:  # the first row, then column, where piece p fits (as puzzles.pentomino._place)
            blocked = np.uint64(0)
            for q in range(k):
                blocked |= boards[here + i + cells[p, 0, q, 0]] >> np.uint64(cells[p, 0, q, 1])
            free = shifts & ~blocked
            if free:
                break
            i += 1
        col = 0
        while not (free >> np.uint64(col)) & np.uint64(1):
            col += 1
        used = max(useds[level], i + dims[p, 0, 0])
        if used > best:
            continue
        if level + 1 == n:
            if used < best:
                best, count = used, 0
            count += 1
            continue
        there = here + rows
        for r in range(rows):
            boards[there + r] = boards[here + r]
        for q in range(k):
            boards[there + i + cells[p, 0, q, 0]] |= np.uint64(1) << np.uint64(cells[p, 0, q, 1] + col)
        low = lows[level]
        while boards[there + low] == full:
            low += 1
        lows[level + 1], useds[level + 1] = low, used
        order[level], placed[p] = p, True
        level += 1
        nxt[level] = 0
    return best, count


def best_orders(puzzle: PentominoStrip, max_gaps: int) -> tuple[int, int] | None:
    """(fewest gaps of any order, how many orders reach it), searching orders with <= max_gaps gaps.

    None when no order is that good. Fixed orientations only: free ones multiply the space by the
    product of the orientation counts.
    """
    if puzzle.space.orientations:
        raise InputError("exhaustive search covers fixed orientations only (puzzle.orientations=fixed)")
    max_rows = (puzzle.area + max_gaps) // puzzle.width
    rows, count = _walk(puzzle._cells, puzzle._dims, puzzle.width, puzzle._rows, max_rows)
    if count == 0:
        return None
    return rows * puzzle.width - puzzle.area, int(count)
