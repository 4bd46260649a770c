"""The deepening search's compiled kernel (backtrack.py): one depth-first search for a board with at most
k unmatched edges (`_search`) and the tallies it prices a candidate by (`_cost`, `_open_zeros`) and
picks candidates with (`_candidates`). Apart from backtrack.py, which sets the search up and reads its
answers, so that the numba code sits in one module of its own.
"""

from __future__ import annotations

import numba
import numpy as np

from puzzles.edge_matching.board import DC, DR, EMPTY, unmatched_join

STOP_EVERY = 4096  # nodes between two looks at a time limit's flag


@numba.njit(cache=True, nogil=True)
def _cost(cell, p, r, n, m, piece, rot, table):
    """Inner edges of `cell` that placing piece p (turned r) there dooms, counted once each.

    An edge fails when its sides differ or carry 0; a 0 facing an empty cell already dooms the
    edge, so it is counted now and not again when the neighbour comes.
    """
    row, col, bad = cell // m, cell % m, 0
    for s in range(4):
        rr, cc = row + DR[s], col + DC[s]
        if rr < 0 or rr >= n or cc < 0 or cc >= m:
            continue
        q, a = rr * m + cc, table[p, r, s]
        if piece[q] == EMPTY:
            bad += a == 0  # unmatched whatever comes
            continue
        b = table[piece[q], rot[q], (s + 2) % 4]
        bad += (b != 0) & unmatched_join(a, b)  # a 0 there was counted when it was placed
    return bad


@numba.njit(cache=True, nogil=True)
def _open_zeros(cell, p, r, n, m, piece, rot, table):
    """How placing piece p (turned r) in `cell` changes the open grey joins: grey sides facing an empty
    cell (a doomed edge that one more grey side can join at no cost). Its greys towards empty cells
    open one each; a neighbour's grey side towards `cell` is closed."""
    row, col, change = cell // m, cell % m, 0
    for s in range(4):
        rr, cc = row + DR[s], col + DC[s]
        if rr < 0 or rr >= n or cc < 0 or cc >= m:
            continue
        q = rr * m + cc
        if piece[q] == EMPTY:
            change += table[p, r, s] == 0
        else:
            change -= table[piece[q], rot[q], (s + 2) % 4] == 0
    return change


@numba.njit(cache=True, nogil=True)
def _doomed(cells, piece, rot, table, n, m):
    """Inner edges the pieces in `cells` already doom, each counted once (placed in turn; any order)."""
    board, bad = np.full_like(piece, EMPTY), 0
    for cell in cells:
        bad += _cost(cell, piece[cell], rot[cell], n, m, board, rot, table)
        board[cell] = piece[cell]
    return bad


@numba.njit(cache=True, nogil=True)
def _needed(cell, side, m, piece, rot, table, any_colour):
    """The colour `side` ([left, top]) of `cell` must carry to match its filled neighbour, else any_colour."""
    row, col = cell // m, cell % m
    rr, cc = row + DR[side], col + DC[side]
    if rr < 0 or cc < 0 or piece[rr * m + cc] == EMPTY:
        return any_colour
    q = rr * m + cc
    b = table[piece[q], rot[q], (side + 2) % 4]
    return any_colour if b == 0 else b  # a 0 there already doomed the edge


@numba.njit(cache=True, nogil=True)
def _candidates(cell, slack, m, piece, rot, table, starts):
    """(first, end) in the candidate index: with no slack left, only turns matching left and top."""
    width = int(np.sqrt(starts.shape[0] - 1))
    a = b = width - 1
    if slack == 0:
        a = _needed(cell, 0, m, piece, rot, table, width - 1)
        b = _needed(cell, 1, m, piece, rot, table, width - 1)
    key = a * width + b
    return starts[key], starts[key + 1]


@numba.njit(cache=True, nogil=True)
def _search(
    k,
    cells,
    piece,
    rot,
    used,
    twin,
    skip_turn,
    zeros,
    border,
    table,
    n,
    m,
    base,
    z0,
    b0,
    o0,
    starts,
    entries,
    want,
    pattern,
    max_nodes,
    stop,
):
    """Depth-first search for a board with <= k unmatched edges: (1 found, 0 none, -1 out of nodes, -2
    stopped by `stop[0]` (a time limit; read every STOP_EVERY nodes); nodes; candidates priced).

    Under Eternity II's rules `want[cell]` is the cell's off-board sides (bits) and only orients whose
    grey sides (`pattern`) are exactly those are tried; -1: any orient."""
    f, turns = cells.shape[0], table.shape[1]
    nxt = np.zeros(f + 1, dtype=np.int64)
    end = np.zeros(f + 1, dtype=np.int64)
    bad = np.zeros(f + 1, dtype=np.int64)
    zl = np.zeros(f + 1, dtype=np.int64)
    bl = np.zeros(f + 1, dtype=np.int64)
    zo = np.zeros(f + 1, dtype=np.int64)
    bad[0], zl[0], bl[0], zo[0] = base, z0, b0, o0
    nxt[0], end[0] = _candidates(cells[0], k - base, m, piece, rot, table, starts)
    d, nodes, priced = 0, 0, 0
    while d >= 0:
        if d == f:
            return 1, nodes, priced
        cell, placed = cells[d], False
        while nxt[d] < end[d] and not placed:
            p, r = entries[nxt[d]] // turns, entries[nxt[d]] % turns
            nxt[d] += 1
            if used[p] or (twin[p] >= 0 and not used[twin[p]]) or skip_turn[p, r]:
                continue
            if want[cell] >= 0 and pattern[p * turns + r] != want[cell]:
                continue
            priced += 1
            z, b = zl[d] - zeros[p], bl[d] - border[cell]
            o = zo[d] + _open_zeros(cell, p, r, n, m, piece, rot, table)
            cost = bad[d] + _cost(cell, p, r, n, m, piece, rot, table)
            if cost + (max(z - b - o, 0) + 1) // 2 <= k:
                piece[cell], rot[cell], used[p] = p, r, True
                bad[d + 1], zl[d + 1], bl[d + 1], zo[d + 1] = cost, z, b, o
                placed = True
        nodes += 1
        if nodes > max_nodes:
            return -1, nodes, priced
        if nodes % STOP_EVERY == 0 and stop[0] != 0:
            return -2, nodes, priced
        if placed:
            d += 1
            if d < f:
                nxt[d], end[d] = _candidates(cells[d], k - bad[d], m, piece, rot, table, starts)
        else:
            d -= 1
            if d >= 0:
                used[piece[cells[d]]], piece[cells[d]] = False, EMPTY
    return 0, nodes, priced
