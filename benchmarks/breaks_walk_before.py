"""The baseline of `bench_eternity2 walk`: puzzles/edge_matching/solvers/breaks_walk.py as it was before
the sentinel-list walk (commit 9941140), kept here unchanged (this docstring aside) so the speed ratio is
measured in the same run and the new walk's boards and node counts can be compared with it.

Called with the tables of `breaks_tables.Tables`: `_restart((t.geometry, t.lists, t.allow, t.board0),
t.quota(colours), caps, seed, stop, outs)`."""

from __future__ import annotations

import numba
import numpy as np

from puzzles.edge_matching.board import unmatched_join

COMPLETE_EVERY = 1 << 17  # placements between two greedy completions at a restart's deepest depth
STOP_EVERY = 1 << 12  # placements between two looks at the stop flag


@numba.njit(cache=True, nogil=True)
def _used(board, piece_of):
    """used[p]: is piece p on the board (orient per cell, -1: empty)?"""
    used = np.zeros(piece_of.max() + 1, np.bool_)
    for x in range(board.shape[0]):
        if board[x] >= 0:
            used[piece_of[board[x]]] = True
    return used


@numba.njit(cache=True, nogil=True, inline="always")
def _better(score, best, board, out_best):
    """The best score so far: `score`, its board copied to out_best, when it is a board's (>= 0) and lower."""
    if 0 <= score < best:
        out_best[:] = board
        return score
    return best


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
def _unmatched(board, col, nb):
    """Unmatched inner joins of a full board (each join read from its left or top cell)."""
    bad = 0
    for x in range(board.shape[0]):
        for s in (2, 3):
            y = nb[x, s]
            if y >= 0:
                bad += unmatched_join(col[board[x], s], col[board[y], s - 2])
    return bad


@numba.njit(cache=True, nogil=True)
def _shuffled(entries0, kstart, kmid, kend):
    """The candidate entries with each key's exact part and break part shuffled (numba's generator,
    seeded by the caller)."""
    entries = entries0.copy()
    for k in range(kstart.shape[0]):
        for a, b in ((kstart[k], kmid[k]), (kmid[k], kend[k])):
            for t in range(b - a - 1, 0, -1):
                r = a + np.random.randint(t + 1)
                entries[a + t], entries[r] = entries[r], entries[a + t]
    return entries


@numba.njit(cache=True, nogil=True)
def _restart(tables, quota, caps, seed, stop, outs):
    """One restart of the depth-first search; (nodes, best unmatched, deepest depth, its breaks,
    exhausted). tables = (geometry, lists, allow, board0) (`Tables`); outs = (hist, out_best,
    out_deep): hist[d] counts the placements at depth d, out_best gets the best complete board found
    (complete or completed greedily), out_deep the deepest partial.

    At depth i the board has cells order[:i] filled (and the pre-placed ones); the cell's candidates
    are the list of its (kind, left, bottom) key, exact fits in [start, mid), one-break fits in
    [mid, end), reshuffled from `seed`; breaks so far may not pass allow[i], nor the best complete
    board's breaks minus one. quota = (sides, need): a placement at depth i is cut when the quota
    colours' sides placed so far (sides[o] per orient) stay below need[i + 1]. caps = (placements,
    abandon nodes, abandon depth, fewer): the restart stops after its placements, or after abandon
    nodes if it has not yet reached the abandon depth (Verhaard's restarts); it looks only for boards
    of fewer than `fewer` breaks (the run's best so far)."""
    geometry, lists, allow, board0 = tables
    entries0, kstart, kmid, kend = lists[2], lists[3], lists[4], lists[5]
    np.random.seed(seed)
    entries = _shuffled(entries0, kstart, kmid, kend)
    depth = geometry[0].shape[0]
    board = board0.copy()
    used = _used(board, lists[1])
    j, mid, end = np.zeros(depth, np.int64), np.zeros(depth, np.int64), np.zeros(depth, np.int64)
    brk, qc, scratch = np.zeros(depth + 1, np.int64), np.zeros(depth + 1, np.int64), np.empty_like(board)
    work = (board, used, entries, j, mid, end, brk, qc, scratch)
    return _walk(geometry, lists, allow, quota, caps, stop, outs, work)


@numba.njit(cache=True, nogil=True)
def _walk(geometry, lists, allow, quota, caps, stop, outs, work):
    """`_restart`'s walk from depth 0 of the board it set up (`work`). One loop, its steps written out:
    an inlined helper to lift a piece slowed it by 70%, one to try the candidates 8x."""
    node_cap, abandon_nodes, abandon_depth, fewer = caps
    cells, left, bottom, pat, fixed, req_top, req_right, top_brk, right_brk, nb, cell_pat = geometry
    col, piece_of, entries0, kstart, kmid, kend, radix, pat_orients, pat_start = lists
    (q_sides, q_need), (hist, out_best, out_deep) = quota, outs
    board, used, entries, j, mid, end, brk, qc, scratch = work
    nodes, since, cap, depth = 0, 0, fewer - 1, cells.shape[0]
    best, deep, deep_brk, deep_seen = 1 << 30, -1, 0, -1
    exhausted, i, fresh = False, 0, True
    while True:
        if fresh:  # enter depth i: the list of its key, or its pre-placed piece
            if fixed[i] >= 0:
                j[i], mid[i], end[i] = 0, 1, 1
            else:
                lc = col[board[left[i]], 2] if left[i] >= 0 else 0
                bc = col[board[bottom[i]], 1] if bottom[i] >= 0 else 0
                k = (pat[i] * radix + lc) * radix + bc
                j[i], mid[i], end[i] = kstart[k], kmid[k], kend[k]
            fresh = False
        placed, limit, base = False, min(allow[i], cap), brk[i]
        if fixed[i] >= 0:
            if j[i] == 0:
                j[i], brk[i + 1], qc[i + 1] = 1, base, qc[i] + q_sides[fixed[i]]
                placed = qc[i + 1] >= q_need[i + 1]
        else:
            stop_at = end[i] if base < limit else mid[i]
            while j[i] < stop_at:
                o = entries[j[i]]
                cost = 1 if j[i] >= mid[i] else 0
                j[i] += 1
                p = piece_of[o]
                if used[p]:
                    continue
                if req_top[i] >= 0 and col[o, 1] != req_top[i]:
                    if not top_brk[i]:
                        continue
                    cost += 1
                if req_right[i] >= 0 and col[o, 2] != req_right[i]:
                    if not right_brk[i]:
                        continue
                    cost += 1
                if cost > 1 or base + cost > limit or qc[i] + q_sides[o] < q_need[i + 1]:
                    continue
                qc[i + 1], board[cells[i]], used[p], brk[i + 1] = qc[i] + q_sides[o], o, True, base + cost
                nodes, since, placed = nodes + 1, since + 1, True
                hist[i] += 1
                break
        if placed:
            i += 1
            if i > deep or (i == deep and brk[i] < deep_brk):
                deep, deep_brk = i, brk[i]
                out_deep[:] = board
            if i == depth:  # a complete board: later ones must have fewer breaks
                best, cap = _better(_unmatched(board, col, nb), best, board, out_best), brk[i] - 1
                if best == 0:
                    break
            elif i >= deep_seen and (i > deep_seen or since >= COMPLETE_EVERY):
                deep_seen, since = i, 0
                scratch[:] = board
                score = _complete(scratch, col, piece_of, cells, nb, cell_pat, pat_orients, pat_start)
                best = _better(score, best, scratch, out_best)
            fresh = i < depth
            if nodes >= node_cap or (nodes >= abandon_nodes and deep < abandon_depth):
                break
            if nodes % STOP_EVERY == 0 and stop[0] != 0:
                break
            if fresh:
                continue
        i -= 1  # back up: nothing (more) fits at depth i, or the board was completed
        if i < 0:
            exhausted = True
            break
        if fixed[i] < 0:
            used[piece_of[board[cells[i]]]] = False
            board[cells[i]] = -1
    return nodes, best, deep, deep_brk, exhausted
