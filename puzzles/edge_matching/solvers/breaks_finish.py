"""Completing a restart's partial boards (the scheduled-break backtracker, breaks_walk.py): greedily
(`_complete`, every free cell takes the free piece matching most of its neighbours) and exactly for the
last cells (`_finish`, branch and bound for the fewest unmatched joins), and a full board's score
(`_unmatched`). Apart from the walk because they never run in its inner loop: the walk calls them at a
new deepest depth or a complete board."""

from __future__ import annotations

import numba
import numpy as np

from puzzles.edge_matching.board import unmatched_join


@numba.njit(cache=True, nogil=True)
def _used(board, piece_of):
    """used[p]: is piece p on the board (orient per cell, -1: empty)?"""
    used = np.zeros(piece_of.max() + 1, np.bool_)
    for x in range(board.shape[0]):
        if board[x] >= 0:
            used[piece_of[board[x]]] = True
    return used


@numba.njit(cache=True, nogil=True)
def _complete(board, col, piece_of, cells, nb, cell_pat, pat_orients, pat_start):
    """Fill every empty cell of `board` (orient per cell, -1: empty), in the order `cells`, with the
    free orient of its kind matching most placed neighbours; return its unmatched inner joins (-1 when
    some cell had no piece of its kind left)."""
    used = _used(board, piece_of)
    for x in cells:
        if board[x] >= 0:
            continue
        best, best_cost = -1, 5
        p = cell_pat[x]
        for j in range(pat_start[p], pat_start[p + 1]):
            o = pat_orients[j]
            if used[piece_of[o]]:
                continue
            cost = 0
            for s in range(4):
                y = nb[x, s]
                if y >= 0 and board[y] >= 0:
                    cost += unmatched_join(col[o, s], col[board[y], (s + 2) % 4])
            if cost < best_cost:
                best, best_cost = o, cost
                if cost == 0:
                    break
        if best < 0:
            return -1
        board[x] = best
        used[piece_of[best]] = True
    return _unmatched(board, col, nb)


@numba.njit(cache=True, nogil=True)
def _finish(board, col, piece_of, cells, nb, cell_pat, pat_orients, pat_start, bound, max_nodes):
    """Fill the empty cells of `board` (the last of `cells`) with the completion of fewest unmatched
    joins below `bound` (depth-first branch and bound over the free orients of each cell's kind, every
    join priced when its second cell fills); return its unmatched inner joins, or -1 when none is below
    `bound` within `max_nodes` placements (`board` then unchanged). Why exact: a restart's deepest
    partial boards are a few cells short, where the greedy completion leaves joins a search would match."""
    used = _used(board, piece_of)
    empty = np.array([x for x in cells if board[x] < 0], np.int64)
    t = empty.shape[0]
    placed = 0
    for x in range(board.shape[0]):
        if board[x] >= 0:
            for s in (2, 1):
                y = nb[x, s]
                if y >= 0 and board[y] >= 0:
                    placed += unmatched_join(col[board[x], s], col[board[y], (s + 2) % 4])
    if t == 0:
        return placed if placed < bound else -1
    best, best_orients = bound - placed, np.full(t, -1, np.int64)
    at, cost = np.zeros(t + 1, np.int64), np.zeros(t + 1, np.int64)
    chosen = np.full(t, -1, np.int64)
    j, nodes = 0, 0
    at[0] = pat_start[cell_pat[empty[0]]]
    while j >= 0 and nodes < max_nodes:
        x = empty[j]
        end = pat_start[cell_pat[x] + 1]
        found = False
        while at[j] < end:
            o = pat_orients[at[j]]
            at[j] += 1
            if used[piece_of[o]]:
                continue
            c = cost[j]
            for s in range(4):
                y = nb[x, s]
                if y >= 0 and board[y] >= 0:
                    c += unmatched_join(col[o, s], col[board[y], (s + 2) % 4])
            if c >= best:
                continue
            found = True
            board[x], used[piece_of[o]], chosen[j], cost[j + 1] = o, True, o, c
            nodes += 1
            break
        if found:
            if j + 1 == t:
                best, best_orients[:] = cost[t], chosen
                board[x], used[piece_of[o]] = -1, False
                continue  # the next orient here, under the lower bound
            j += 1
            at[j] = pat_start[cell_pat[empty[j]]]
            continue
        j -= 1  # back up
        if j >= 0:
            used[piece_of[chosen[j]]] = False
            board[empty[j]] = -1
    for k in range(t):  # undo what the search left placed, then write the best completion
        if board[empty[k]] >= 0:
            used[piece_of[board[empty[k]]]] = False
            board[empty[k]] = -1
    if best_orients[0] < 0:
        return -1
    for k in range(t):
        board[empty[k]] = best_orients[k]
    return placed + best


@numba.njit(cache=True, nogil=True)
def _unmatched(board, col, nb):
    """Unmatched inner joins of a full board (each join read from its left or top cell)."""
    bad = 0
    for x in range(board.shape[0]):
        for s in (2, 3):
            y = nb[x, s]
            if y >= 0:
                bad += unmatched_join(col[board[x], s], col[board[y], s - 2])
    return bad
