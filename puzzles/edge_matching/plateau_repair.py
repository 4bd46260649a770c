"""The plateau kernel's repairs (plateau.py): the freed cells re-filled by a short anneal over their
own pieces (`anneal`), and the twin swap, a piece on a mismatch swapped with one showing three of its
four colours (`twin_swap`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from core.rng import randint, uniform
from puzzles.edge_matching.board_moves import (
    _best_turn,
    _inner_cost,
    _inner_cost_new,
    apply,
    cell_cost_new,
    cell_cost_now,
)
from puzzles.edge_matching.face_instance import INNER
from puzzles.edge_matching.face_states import forced_rotation
from puzzles.edge_matching.windows import _cost_around, _mismatched_cell


@njit(cache=True)
def _group_key(inst, x, turns):
    """The cells a piece may move between: its class, or without turns its grey pattern."""
    return inst.cell_class[x] if turns else 5 * inst.cell_class[x] + inst.out_side[x] + 1


@njit(cache=True, inline="always")  # called, it took 24 NRT refcount calls (inst's arrays, st) a cell
def _place(inst, st, x, p, r):
    apply(inst, st, (x, x, 4 * p + r, 4 * p + r))


@njit(cache=True)
def anneal(inst, st, rng, cells, moves, t_hi, t_lo, turns):
    """Shuffle the pieces of `cells` (each within its group), anneal them over those cells alone and keep
    the best refill seen; (change in fitness, moves priced)."""
    N, k = inst.n * inst.m, cells.shape[0]
    inside = np.zeros(N, np.bool_)
    for x in cells:
        inside[x] = True
    before = _cost_around(inst, st, cells, inside)
    keys = np.empty(k, np.int64)  # each cell's key once: a call to _group_key costs 22 NRT calls
    for t in range(k):
        keys[t] = _group_key(inst, cells[t], turns)
    order = np.argsort(keys, kind="mergesort")
    cs, keys = cells[order], keys[order]  # cells grouped: a swap partner is drawn from the same group
    gstart = np.empty(k, np.int64)
    gend = np.empty(k, np.int64)
    i = 0
    while i < k:
        j = i
        while j < k and keys[j] == keys[i]:
            j += 1
        for t in range(i, j):
            gstart[t], gend[t] = i, j
            if j - i > 1:  # shuffle the group's pieces
                u = i + randint(rng, t - i + 1)
                pt, pu = st[cs[t]], st[cs[u]]
                st[cs[t]], st[cs[u]] = pu, pt
        i = j
    for t in range(k):
        x, p = cs[t], st[cs[t]] >> 2
        r = randint(rng, 4) if turns and inst.cell_class[x] == INNER else forced_rotation(inst, p, x)
        _place(inst, st, x, p, r)
    cur = _cost_around(inst, st, cells, inside)
    best_c = cur
    keep = np.empty(k, np.int64)
    for t in range(k):
        keep[t] = st[cs[t]]
    ratio = math.exp(math.log(t_lo / t_hi) / max(moves, 1))
    temp = t_hi
    for _ in range(moves):
        temp *= ratio
        t = randint(rng, k)
        a = cs[t]
        size = gend[t] - gstart[t]
        inner = turns and inst.cell_class[a] == INNER
        if inner and (size < 2 or uniform(rng) < 0.2):
            o = np.int64(st[a])
            b, oa = a, (o & ~3) | ((o + 1 + randint(rng, 3)) & 3)
            ob = oa
        elif size >= 2:
            u = gstart[t] + randint(rng, size - 1)
            if u >= t:
                u += 1
            b = cs[u]
            pa, pb = np.int64(st[a] >> 2), np.int64(st[b] >> 2)
            if inner:
                s0 = randint(rng, 4)
                oa = 4 * pb + np.int64(_best_turn(inst, st, N, pb, a, s0))
                ob = 4 * pa + np.int64(_best_turn(inst, st, N, pa, b, s0))
            else:
                oa = 4 * pb + np.int64(forced_rotation(inst, pb, a))
                ob = 4 * pa + np.int64(forced_rotation(inst, pa, b))
        else:
            continue
        # board_moves.delta written out: inlined, it took 12 NRT increfs (inst's arrays and st) a
        # move, and their decrefs on its three returns, which numba's refcount pruning left in
        gap = abs(a - b)
        if a == b:
            d = cell_cost_new(inst, st, N, a, oa, -1, 0, -1) - cell_cost_now(inst, st, N, a, -1)
        elif inst.cell_class[a] == INNER and inst.cell_class[b] == INNER and gap != 1 and gap != inst.m:
            d = (
                _inner_cost_new(inst, st, N, a, oa)
                + _inner_cost_new(inst, st, N, b, ob)
                - _inner_cost(inst, st, N, a)
                - _inner_cost(inst, st, N, b)
            )
        else:
            d = cell_cost_new(inst, st, N, a, oa, b, ob, -1) + cell_cost_new(inst, st, N, b, ob, a, oa, a)
            d -= cell_cost_now(inst, st, N, a, -1) + cell_cost_now(inst, st, N, b, a)
        if d > 0 and uniform(rng) >= math.exp(-d / temp):
            continue
        apply(inst, st, (a, b, oa, ob))
        cur += d
        if cur <= best_c:
            best_c = cur
            for t2 in range(k):
                keep[t2] = st[cs[t2]]
    for t in range(k):
        o = keep[t]
        _place(inst, st, cs[t], o >> 2, o & 3)
    return best_c - before, moves


@njit(cache=True)
def _twin_table(inst):
    """For every piece, the pieces of its class showing 3 of its 4 colours in some turn (CSR lists)."""
    P = inst.piece_class.shape[0]
    start = np.zeros(P + 1, np.int64)
    pairs = np.empty(P * 8, np.int64)
    c = 0
    for p in range(P):
        start[p] = c
        for q in range(P):
            if q == p or inst.piece_class[q] != inst.piece_class[p]:
                continue
            share = 0
            for r in range(4):
                e = 0
                for s in range(4):
                    e += inst.rc[16 * p + s] == inst.rc[16 * q + 4 * r + s]
                share = max(share, e)
            if share >= 3:
                if c == pairs.shape[0]:
                    grown = np.empty(2 * c, np.int64)
                    grown[:c] = pairs
                    pairs = grown
                pairs[c] = q
                c += 1
    start[P] = c
    return start, pairs[:c]


@njit(cache=True)
def twin_swap(inst, st, rng, tries, tw_start, tw_list, turns):
    """The best of `tries` swaps of a piece on a mismatch with one of its twins (ties: the first), not
    made: (change, cell a, cell b, orient for a, orient for b, moves priced); priced 0: no piece drawn
    has a twin."""
    N = inst.n * inst.m
    where = np.empty(N, np.int64)
    for x in range(N):
        where[st[x] >> 2] = x
    best_d, priced = np.int64(1 << 30), np.int64(0)
    ba, bb, boa, bob = np.int64(0), np.int64(0), np.int64(0), np.int64(0)
    for _ in range(tries):
        a = np.int64(_mismatched_cell(inst, st, rng, 4 * N))
        p = np.int64(st[a] >> 2)
        count = tw_start[p + 1] - tw_start[p]
        if count == 0 or inst.fixed[a] >= 0:
            continue
        q = tw_list[tw_start[p] + randint(rng, count)]
        b = where[q]
        if inst.fixed[b] >= 0 or (not turns and inst.out_side[a] != inst.out_side[b]):
            continue
        if turns and inst.cell_class[a] == INNER:
            s0 = randint(rng, 4)
            oa = 4 * q + np.int64(_best_turn(inst, st, N, q, a, s0))
            ob = 4 * p + np.int64(_best_turn(inst, st, N, p, b, s0))
        else:
            oa = 4 * q + np.int64(forced_rotation(inst, q, a))
            ob = 4 * p + np.int64(forced_rotation(inst, p, b))
        # board_moves.delta written out, as in `anneal` (its 24 NRT calls a try); a != b: a swap
        gap = abs(a - b)
        if inst.cell_class[a] == INNER and inst.cell_class[b] == INNER and gap != 1 and gap != inst.m:
            d = (
                _inner_cost_new(inst, st, N, a, oa)
                + _inner_cost_new(inst, st, N, b, ob)
                - _inner_cost(inst, st, N, a)
                - _inner_cost(inst, st, N, b)
            )
        else:
            d = cell_cost_new(inst, st, N, a, oa, b, ob, -1) + cell_cost_new(inst, st, N, b, ob, a, oa, a)
            d -= cell_cost_now(inst, st, N, a, -1) + cell_cost_now(inst, st, N, b, a)
        d = np.int64(d)
        priced += 1
        if d < best_d:
            best_d, ba, bb, boa, bob = d, a, b, oa, ob
    return (best_d if priced else np.int64(0)), ba, bb, boa, bob, priced
