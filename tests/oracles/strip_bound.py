"""Branch and bound over piece orders for the bottom-left strip packing (fixed orientations).

A test-only second search, independent of tests/oracles/pentomino_exhaustive.py: it decodes with its own
bitmask version of seed 002's bottom-left rule and counts the orders whose packing uses at most
`max_rows` rows. A prefix is dropped as soon as its packing already passes `max_rows`, or when the
empty cells that the remaining pieces could still reach (any position inside the first `max_rows`
rows that overlaps nothing, whatever the decoder would pick) are fewer than the cells they need:
the board only fills up, so such a prefix has no completion within `max_rows`.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@numba.njit(cache=True)
def _reachable(board, cells, dims, placed, width, max_rows, reach):
    """OR into `reach` every cell some unplaced piece could cover; False if one has no room."""
    reach[:] = 0
    for q in range(dims.shape[0]):
        if placed[q]:
            continue
        h, w, k = dims[q, 0], dims[q, 1], dims[q, 2]
        shifts = (np.uint64(1) << np.uint64(width - w + 1)) - np.uint64(1)
        room = False
        for i in range(max_rows - h + 1):
            blocked = np.uint64(0)
            for t in range(k):
                blocked |= board[i + cells[q, t, 0]] >> np.uint64(cells[q, t, 1])
            free = shifts & ~blocked
            if free:
                room = True
                for t in range(k):
                    reach[i + cells[q, t, 0]] |= free << np.uint64(cells[q, t, 1])
        if not room:
            return False
    return True


@numba.njit(cache=True)
def _count(cells, dims, width, max_rows):
    n = dims.shape[0]
    rows = max_rows + int(dims[:, 0].max()) + 1
    boards = np.zeros((n + 1, rows), dtype=np.uint64)
    nxt = np.zeros(n + 1, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    placed = np.zeros(n, dtype=np.bool_)
    reach = np.zeros(rows, dtype=np.uint64)
    full = (np.uint64(1) << np.uint64(width)) - np.uint64(1)
    total = 0
    for p in range(n):
        total += dims[p, 2]
    left = np.zeros(n + 1, dtype=np.int64)  # cells still to place below each depth
    left[0] = total
    count, level = 0, 0
    while level >= 0:
        p = nxt[level]
        if p >= n:
            level -= 1
            if level >= 0:
                placed[order[level]] = False
            continue
        nxt[level] += 1
        if placed[p]:
            continue
        h, w, k = dims[p, 0], dims[p, 1], dims[p, 2]
        board = boards[level + 1]
        board[:] = boards[level]
        i, col = 0, -1  # bottom-left: first row top-down, then first column, where p fits
        while i + h <= max_rows:
            blocked = np.uint64(0)
            for t in range(k):
                blocked |= board[i + cells[p, t, 0]] >> np.uint64(cells[p, t, 1])
            free = ((np.uint64(1) << np.uint64(width - w + 1)) - np.uint64(1)) & ~blocked
            if free:
                col = 0
                while not (free >> np.uint64(col)) & np.uint64(1):
                    col += 1
                break
            i += 1
        if col < 0:  # p's first fit lies below max_rows (the first fit never moves up)
            continue
        for t in range(k):
            board[i + cells[p, t, 0]] |= np.uint64(1) << np.uint64(cells[p, t, 1] + col)
        if level + 1 == n:
            count += 1
            continue
        placed[p] = True
        ok = _reachable(board, cells, dims, placed, width, max_rows, reach)
        if ok:
            room = 0
            for r in range(max_rows):
                room += _popcount(reach[r] & ~board[r] & full)
            ok = room >= left[level] - k
        if not ok:
            placed[p] = False
            continue
        order[level] = p
        left[level + 1] = left[level] - k
        level += 1
        nxt[level] = 0
    return count


def orders_within(pieces, width: int, max_rows: int) -> int:
    """How many orders of `pieces` (0/1 arrays, as drawn) pack into at most `max_rows` rows."""
    size = max(int(np.sum(p)) for p in pieces)
    cells = np.zeros((len(pieces), size, 2), dtype=np.int64)
    dims = np.zeros((len(pieces), 3), dtype=np.int64)  # height, width, cell count
    for q, piece in enumerate(pieces):
        piece = np.asarray(piece)
        found = np.argwhere(piece != 0)
        cells[q, : len(found)] = found
        dims[q] = piece.shape[0], piece.shape[1], len(found)
    assert dims[:, 1].max() <= width <= 62
    return int(_count(cells, dims, width, max_rows))
