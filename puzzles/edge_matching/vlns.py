"""Very large neighbourhood for edge matching: reassign a set of non-adjacent cells optimally.

Why (Schaus & Deville, 2008, 458 edges on Eternity II): take k cells of one class, no two of them
neighbours, and lift their pieces. Every neighbour of a lifted cell stays in place, so the cost of
putting piece j (with its best turn, or its forced turn on the border) on cell i does not depend on
where the other lifted pieces go: the best reassignment of all k pieces is a linear assignment
problem, solved exactly by scipy's ``linear_sum_assignment`` -- a neighbourhood of k! * 4^k boards
searched in one shot. It never makes the board worse (keeping every piece is one assignment).
Without turns a piece keeps rotation 0 and may only take a cell of its grey pattern (others cost MISFIT).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.optimize import linear_sum_assignment

from puzzles.edge_matching.board_moves import apply, cell_cost_new, cell_cost_now
from puzzles.edge_matching.face_instance import turning
from puzzles.edge_matching.face_states import turn_allowed

MISFIT = 1 << 20  # cost of a piece on a cell it may not take (without turns: another grey pattern)


@njit(cache=True)
def independent_cells(inst, cells, order, k):
    """Up to k cells from `cells`, visited in `order`, no two of them neighbours."""
    N = inst.n * inst.m
    taken = np.zeros(N, np.bool_)
    out = np.empty(k, np.int32)
    c = 0
    for i in order:
        x = cells[i]
        ok = True
        for s in range(4):
            y = inst.nbr[4 * x + s]
            if y >= 0 and taken[y]:
                ok = False
                break
        if ok:
            taken[x] = True
            out[c] = x
            c += 1
            if c == k:
                break
    return out[:c]


@njit(cache=True)
def assignment_costs(inst, st, cells, turns=True):
    """cost[i, j], turn[i, j]: unmatched joins of cell i holding the piece of cell j at its best allowed turn."""
    N = inst.n * inst.m
    k = cells.shape[0]
    cost = np.empty((k, k), np.int64)
    turn = np.empty((k, k), np.int64)
    for i in range(k):
        x = cells[i]
        for j in range(k):
            p = st[cells[j]] >> 2
            best, best_r = MISFIT, 0
            for r in range(4):
                if not turn_allowed(inst, p, x, r, turns):
                    continue
                f = cell_cost_new(inst, st, N, x, 4 * p + r, -1, 0, -1)
                if f < best:
                    best, best_r = f, r
            cost[i, j] = best
            turn[i, j] = best_r
    return cost, turn


@njit(cache=True)
def _place(inst, st, cells, cols, turn):
    """Write the assignment: cell i takes the piece of cell cols[i] at turn[i, cols[i]]."""
    k = cells.shape[0]
    pieces = np.empty(k, np.int64)
    for j in range(k):
        pieces[j] = st[cells[j]] >> 2
    for i in range(k):
        o = 4 * pieces[cols[i]] + turn[i, cols[i]]
        apply(inst, st, (cells[i], cells[i], o, o))


def vlns_step(inst, st, cells, rng, k):
    """One exact reassignment of up to k non-adjacent cells drawn from `cells`; returns the delta.

    Returns (fitness change <= 0, number of (cell, piece) pairs priced).
    """
    chosen = independent_cells(inst, cells, rng.permutation(len(cells)), k)
    if len(chosen) < 2:
        return 0, 0
    cost, turn = assignment_costs(inst, st, chosen, turning(inst))
    rows, cols = linear_sum_assignment(cost)
    after = int(cost[rows, cols].sum())
    current = _current_cost(inst, st, chosen)  # as the cells stand (a piece may not be at its best turn)
    if after < current:
        _place(inst, st, chosen, cols.astype(np.int64), turn)
        return after - current, len(chosen) ** 2
    return 0, len(chosen) ** 2


@njit(cache=True)
def _current_cost(inst, st, cells):
    """Unmatched joins around the given (pairwise non-adjacent) cells as they stand."""
    N = inst.n * inst.m
    f = 0
    for x in cells:
        f += cell_cost_now(inst, st, N, x, -1)
    return f


def vlns_descent(inst, st, rng, steps, k=64, classes=("inner", "frame")):
    """Repeated VLNS steps over the given classes; returns the total fitness change and pairs priced."""
    pools = [getattr(inst, f"{c}_cells") for c in classes]
    total, priced = 0, 0
    for t in range(steps):
        cells = pools[t % len(pools)]
        d, p = vlns_step(inst, st, cells, rng, k)
        total += d
        priced += p
    return total, priced
