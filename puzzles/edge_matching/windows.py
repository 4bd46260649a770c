"""Window re-solves for edge matching: lift a block of cells and re-fill it optimally by exact search.

Why: a beam board of Eternity II (456 of 480) is a deep local optimum; a swap or turn cannot
mend a mismatch whose cure moves four or five pieces at once. A window of k x k cells (k = 4: 16
pieces in 4 turns) is re-filled by a depth-first branch and bound over its own pieces, the cells
around it held fixed: the best re-fill it finds is never worse than the board (the board itself is
one), and a re-fill as good as the board but different is taken too, so the search walks plateaus
instead of sitting on them. Windows are placed on a mismatched join (probability `focus`) or
anywhere. This is the destroy-and-repair step of large neighbourhood search with an exact repair.

`window_search` keeps the kernel contract of heuristics/kernels.py (state, best, home, rng, ctl,
params, max moves, trace), so the chain driver runs, budgets, traces and exchanges it like SA; one
evaluation is one candidate placement priced in the search tree. Its settings (the `window` row of
kernel_rows.py, which the face hands over): the window side, the most placements one re-solve may price (it then
keeps the best re-fill found so far), the probability of a window on a mismatch, the lone cells that
join a re-fill, the probability of a kick.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from core.rng import randint, uniform
from heuristics.kernels import BEST, CURRENT, EVALS
from puzzles.edge_matching.board_moves import _unmatched
from puzzles.edge_matching.face_instance import INNER, turning
from puzzles.edge_matching.kernel_rows import WINDOW

SIZE, CAP, FOCUS, EXTRA, KICK, TARGET = map(WINDOW.slot, ("size", "cap", "focus", "extra", "kick", "target"))


@njit(inline="always")
def _allowed(inst, piece, cell, rotation, turns):
    """face_states.turn_allowed, every read of inst in one block before the branches. Inlined, numba
    copies inst (an NRT incref per array) and frees the copy after its last use: after turn_allowed's
    two returns that took 22 NRT calls a try in the windows' loops; in one block they are dropped."""
    forced = (inst.out_side[cell] - inst.piece_grey[piece]) & 3  # face_states.forced_rotation
    inner = inst.cell_class[cell] == INNER
    return (inner or rotation == forced) if turns else (rotation == 0 and forced == 0)


@njit(cache=True)
def _mismatched_cell(inst, st, rng, tries):
    """A free cell with an unmatched join, drawn at random (up to `tries` draws; else the last)."""
    N = inst.n * inst.m
    x = 0
    for _ in range(tries):
        x = randint(rng, N)
        if inst.fixed[x] >= 0:
            continue
        for k in range(4):
            y = inst.nbr[4 * x + k]
            if y >= 0 and _unmatched(st[N + 4 * x + k], st[N + 4 * y + (k ^ 2)]):
                return x
    return x


@njit(cache=True)
def _window(inst, st, rng, size, focus, extra):
    """The free cells of a size x size block (row-major) holding a mismatch (probability focus) or anywhere,
    then up to `extra` free cells anywhere, none next to the block or to each other: their pieces
    join the re-fill, so a block can take a piece from across the board."""
    n, m = inst.n, inst.m
    x = _mismatched_cell(inst, st, rng, 4 * n * m) if uniform(rng) < focus else randint(rng, n * m)
    h, w = min(size, n), min(size, m)
    top = min(max(x // m - randint(rng, h), 0), n - h)
    left = min(max(x % m - randint(rng, w), 0), m - w)
    cells = np.empty(h * w + extra, np.int64)
    near = np.zeros(n * m, np.bool_)  # cells in the window or next to one of its cells
    c = 0
    for r in range(top, top + h):
        for col in range(left, left + w):
            if inst.fixed[r * m + col] < 0:
                cells[c] = r * m + col
                c += 1
    for i in range(c):
        near[cells[i]] = True
        for s in range(4):
            if inst.nbr[4 * cells[i] + s] >= 0:
                near[inst.nbr[4 * cells[i] + s]] = True
    block, inside = c, np.zeros(n * m, np.bool_)
    for i in range(c):
        inside[cells[i]] = True
    for _ in range(4 * extra):
        if c == cells.shape[0] or block == 0:
            break
        y = _fitting_cell(inst, st, rng, cells[randint(rng, block)], near, inside)
        if y < 0:
            continue
        cells[c] = y
        c += 1
        near[y] = True
        for s in range(4):
            if inst.nbr[4 * y + s] >= 0:
                near[inst.nbr[4 * y + s]] = True
    return cells[:c]


@njit(cache=True)
def _fitting_cell(inst, st, rng, x, near, inside):
    """A cell away from the window (not `near`) whose piece, in some turn allowed on window cell x, shows
    the most of the colours x's neighbours outside the window (not `inside`) show it (at random among the best; -1:
    none shows any). Its piece joining the re-fill is the one most likely to mend x."""
    N = inst.n * inst.m
    want = np.full(4, -1, np.int64)
    for s in range(4):
        y = inst.nbr[4 * x + s]
        if y >= 0 and not inside[y]:
            want[s] = st[N + 4 * y + (s ^ 2)]
    best, chosen, ties = 0, -1, 0
    turns = turning(inst)
    for y in range(N):
        p = st[y] >> 2
        if near[y] or inst.fixed[y] >= 0 or inst.piece_class[p] != inst.cell_class[x]:
            continue
        fit = 0
        for r in range(4):
            if _allowed(inst, p, x, r, turns):
                f = 0
                for s in range(4):
                    f += want[s] >= 0 and inst.rc[4 * (4 * p + r) + s] == want[s]
                fit = max(fit, f)
        if fit > best:
            best, chosen, ties = fit, y, 1
        elif fit == best and fit > 0:
            ties += 1
            if randint(rng, ties) == 0:
                chosen = y
    return chosen


@njit(cache=True)
def _cost_around(inst, st, cells, inside):
    """Unmatched joins touching the cells, each join once, as the board stands."""
    N = inst.n * inst.m
    f = 0
    for x in cells:
        for k in range(4):
            y = inst.nbr[4 * x + k]
            if y >= 0 and (not inside[y] or y > x):
                f += _unmatched(st[N + 4 * x + k], st[N + 4 * y + (k ^ 2)])
    return f


@njit(cache=True)
def _outside_bound(inst, st, cells, pieces, inside, turns):
    """rest[i]: a lower bound on the unmatched joins that cells[i:] make with the cells around the
    window, each cell at the best of the window's pieces for it (any piece, used or not)."""
    N, k = inst.n * inst.m, cells.shape[0]
    rest = np.zeros(k + 1, np.int64)
    for i in range(k - 1, -1, -1):
        x, least = cells[i], 4
        for p in pieces:
            if inst.piece_class[p] != inst.cell_class[x]:
                continue
            for r in range(4):
                if not _allowed(inst, p, x, r, turns):
                    continue
                o, f = 4 * p + r, 0
                for s in range(4):
                    y = inst.nbr[4 * x + s]
                    if y >= 0 and not inside[y]:
                        f += _unmatched(inst.rc[4 * o + s], st[N + 4 * y + (s ^ 2)])
                least = min(least, f)
        rest[i] = rest[i + 1] + least
    return rest


@njit(cache=True, inline="always")
def _placement_cost(inst, st, x, o, d, inside, local, orient):
    """Unmatched joins of orient o on window cell x (depth d) with the cells around the window and the
    window's cells filled before it."""
    N, add = inst.n * inst.m, 0
    for s in range(4):
        y = inst.nbr[4 * x + s]
        if y < 0:
            continue
        if inside[y]:
            j = local[y]
            if orient[j] < 0 or j >= d:
                continue
            add += _unmatched(inst.rc[4 * o + s], inst.rc[4 * orient[j] + (s ^ 2)])
        else:
            add += _unmatched(inst.rc[4 * o + s], st[N + 4 * y + (s ^ 2)])
    return add


@njit(cache=True)
def resolve(inst, st, rng, cells, cap, turns, slack=0):
    """Re-fill `cells` with their own pieces, at least as well as they stand; (change, placements priced).

    Depth-first over the cells in order; a placement is priced against the cells outside the window
    and the window's cells already filled, and the branch is cut once it costs as much as the best
    fill found (at first: one more than the board, so the first complete fill, in a random piece
    order, is taken even when it only ties). Stops after `cap` placements with the best fill so far.
    """
    N, k = inst.n * inst.m, cells.shape[0]
    inside = np.zeros(N, np.bool_)
    for x in cells:
        inside[x] = True
    pieces = np.empty(k, np.int64)
    for i in range(k):
        pieces[i] = st[cells[i]] >> 2
    for i in range(k - 1, 0, -1):  # a random piece order: ties resolve differently each time
        j = randint(rng, i + 1)
        pieces[i], pieces[j] = pieces[j], pieces[i]
    before = _cost_around(inst, st, cells, inside)
    local = np.full(N, -1, np.int64)  # a window cell's position in `cells`
    for i in range(k):
        local[cells[i]] = i
    rest = _outside_bound(inst, st, cells, pieces, inside, turns)
    orient = np.full(k, -1, np.int64)  # the fill being built
    best_fill = np.empty(k, np.int64)
    used = np.zeros(k, np.bool_)
    next_choice = np.zeros(k, np.int64)  # per depth: the next (piece index * 4 + turn) to try
    acc = np.zeros(k + 1, np.int64)
    bound, found, priced, d = before + 1 + slack, False, 0, 0
    while d >= 0:
        if d == k:
            bound, found = acc[k], True
            best_fill[:] = orient
            if slack > 0:  # a kick: the first re-fill within the slack, worse or not
                break
            d -= 1
            continue
        x, placed = cells[d], False
        if orient[d] >= 0:  # undo this depth's last placement, the choice before next_choice[d]
            used[(next_choice[d] - 1) >> 2] = False
            orient[d] = -1
        while next_choice[d] < 4 * k and priced < cap:
            c = next_choice[d]
            next_choice[d] += 1
            i, r = c >> 2, c & 3
            p = pieces[i]
            if used[i] or inst.piece_class[p] != inst.cell_class[x] or not _allowed(inst, p, x, r, turns):
                continue
            priced += 1
            o = 4 * p + r
            add = _placement_cost(inst, st, x, o, d, inside, local, orient)
            if acc[d] + add + rest[d + 1] >= bound:
                continue
            orient[d], used[i], acc[d + 1] = o, True, acc[d] + add
            placed = True
            break
        if placed:
            d += 1
            if d < k:
                next_choice[d] = 0
        else:
            next_choice[d] = 0
            d -= 1
    if not found:
        return 0, priced
    for i in range(k):
        x = cells[i]
        st[x] = best_fill[i]
        for s in range(4):
            st[N + 4 * x + s] = inst.rc[4 * best_fill[i] + s]
    return bound - before, priced


def window_search(inst, st, best, home, rng, ctl, params, max_moves, trace_e, trace_v):
    """Window re-solves until `max_moves` placements are priced (kernel contract: heuristics/kernels.py).

    Every improvement of the best is traced and copied; `home` is unused.
    """
    size, cap, focus = np.int64(params[SIZE]), np.int64(params[CAP]), params[FOCUS]
    extra, kick, target = np.int64(params[EXTRA]), params[KICK], np.int64(params[TARGET])
    turns = turning(inst)
    done, nt = 0, 0
    while done < max_moves and nt < trace_e.shape[0] and ctl[BEST] > target:
        cells = _window(inst, st, rng, size, focus, extra)
        if cells.shape[0] < 2:
            continue
        slack = 2 if uniform(rng) < kick else 0
        change, priced = resolve(inst, st, rng, cells, min(cap, max_moves - done), turns, slack)
        done += max(priced, 1)
        ctl[EVALS] += max(priced, 1)
        ctl[CURRENT] += change
        if ctl[CURRENT] < ctl[BEST]:
            ctl[BEST] = ctl[CURRENT]
            best[:] = st
            trace_e[nt], trace_v[nt] = ctl[EVALS], ctl[BEST]
            nt += 1
    return done, nt


window_search_compiled = njit(cache=True, nogil=True)(window_search)  # chains run on threads
