"""Plateau-walking destroy-and-repair for edge matching (adaptive large neighbourhood search).

Why: a beam board of Eternity II is a local optimum of every exact neighbourhood our windows try, so
an exact refill certifies its basin and cannot leave it. What reached 461 publicly frees a region,
refills it by a short anneal over the freed pieces, ACCEPTS an equal result always and a worse one with
probability exp(-d / T) (T = 1: 0.37 for one join, 0.14 for two), goes back to the best board after
`patience` iterations without a new best, and learns which way of freeing cells pays (operator
weights, scored and decayed as in ALNS). The board walks its plateau instead of sitting on it.

Operators (kernel_rows.PLATEAU_OPERATORS, in this order; the `ops` setting is a bit mask of the ones in play):
  square  a random 4 x 4 square;        worst   the 5 x 5 window with the most unmatched joins;
  grow    a region grown at random from a mismatch (16 to `region` cells);
  path    the cells on an L path between two nearby mismatches and around its ends;
  band    a stretch of the 4-row (or 4-column) band with most mismatches (`region` cells);
  chain   12 to 16 cells grown from a mismatch through the weakest neighbours;
  window  the exact re-fill of windows.py (a 2 x 2 block and 6 fitting cells, branch and bound);
  twin    the best of 32 swaps of a piece on a mismatch with a piece showing 3 of its 4 colours
          (a plateau or -1 step between far-apart cells).
The first six free cells and repair them: their pieces are shuffled (each within its class), then
annealed (swaps and turns among the freed cells only, `moves` per cell, T from t_hi to t_lo), and the
best refill of the anneal is the result.

`plateau_search` keeps the kernel contract of heuristics/kernels.py (its settings: the `plateau` row
of kernel_rows.py); one evaluation is one priced move (an anneal's move, a twin swap) or placement (the exact
re-fill). Its own control slots: ctl[SINCE] iterations since the last new best, ctl[READY] 1 once the
weights are set, then per operator the PLATEAU_STATS counts (ctl[COUNTS + 4 * op + s]) and its weight
x WEIGHT_ONE (ctl[WEIGHTS + op]).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from core.rng import randint, uniform
from heuristics.kernels import BEST, CURRENT, EVALS
from puzzles.edge_matching.board_moves import (
    INNER,
    _best_turn,
    apply,
    cell_cost_now,
    delta,
    forced_rotation,
    turning,
)
from puzzles.edge_matching.kernel_rows import (
    PLATEAU,
    PLATEAU_OPERATORS,
    PLATEAU_STATS,
)
from puzzles.edge_matching.kernel_rows import (
    PLATEAU_COUNTS as COUNTS,
)
from puzzles.edge_matching.kernel_rows import (
    PLATEAU_READY as READY,
)
from puzzles.edge_matching.kernel_rows import (
    PLATEAU_SINCE as SINCE,
)
from puzzles.edge_matching.windows import _cost_around, _mismatched_cell, _window, resolve

K = len(PLATEAU_OPERATORS)
WEIGHTS = COUNTS + len(PLATEAU_STATS) * K  # where the weights start in ctl
OPS_MASK, MOVES, T_HI, T_LO, TEMPERATURE, PATIENCE, DECAY, REGION, CAP, TARGET = map(
    PLATEAU.slot, (*PLATEAU.settings, "target")
)
WEIGHT_ONE = 1_000_000  # weights are fixed-point in the int64 ctl vector
SCORES = (10.0, 4.0, 1.0, 0.3)  # new best, better, equal, worse accepted (rejected: 0)
TWIN_TRIES = 32


@njit(cache=True)
def _cell_costs(inst, st):
    """Unmatched joins around every cell."""
    N = inst.n * inst.m
    cost = np.zeros(N, np.int64)
    for x in range(N):
        cost[x] = cell_cost_now(inst, st, N, x, -1)
    return cost


@njit(cache=True)
def _collect(inst, mark, limit):
    """The free cells marked, in cell order, at most `limit`."""
    out = np.empty(mark.shape[0], np.int64)
    c = 0
    for x in range(mark.shape[0]):
        if mark[x] and inst.fixed[x] < 0 and c < limit:
            out[c] = x
            c += 1
    return out[:c]


@njit(cache=True)
def _block(inst, top, left, h, w, mark):
    """Mark an h x w block (clipped to the board)."""
    for r in range(max(top, 0), min(top + h, inst.n)):
        for c in range(max(left, 0), min(left + w, inst.m)):
            mark[r * inst.m + c] = True


@njit(cache=True)
def _square(inst, rng, mark):
    """A random 4 x 4 square."""
    h, w = min(4, inst.n), min(4, inst.m)
    _block(inst, randint(rng, inst.n - h + 1), randint(rng, inst.m - w + 1), h, w, mark)


@njit(cache=True)
def _worst(inst, rng, cost, mark):
    """The 5 x 5 window whose cells touch the most unmatched joins (ties at random)."""
    n, m = inst.n, inst.m
    h, w = min(5, n), min(5, m)
    best, ties, bt, bl = -1, 0, 0, 0
    for top in range(n - h + 1):
        for left in range(m - w + 1):
            s = 0
            for r in range(top, top + h):
                for c in range(left, left + w):
                    s += cost[r * m + c]
            if s > best:
                best, ties, bt, bl = s, 1, top, left
            elif s == best:
                ties += 1
                if randint(rng, ties) == 0:
                    bt, bl = top, left
    _block(inst, bt, bl, h, w, mark)


@njit(cache=True)
def _grow(inst, st, rng, region, mark):
    """A region grown from a mismatched cell by adding random neighbours of the region."""
    N = inst.n * inst.m
    size = 16 + randint(rng, max(region - 15, 1))
    members = np.empty(N, np.int64)
    members[0] = _mismatched_cell(inst, st, rng, 4 * N)
    mark[members[0]] = True
    c = 1
    for _ in range(8 * size):
        if c >= size:
            break
        y = inst.nbr[4 * members[randint(rng, c)] + randint(rng, 4)]
        if y >= 0 and not mark[y] and inst.fixed[y] < 0:
            mark[y] = True
            members[c] = y
            c += 1


@njit(cache=True)
def _path(inst, st, rng, region, mark):
    """The cells on an L path between a mismatch and the nearest of 8 others drawn, and around both ends."""
    N, m = inst.n * inst.m, inst.m
    a = _mismatched_cell(inst, st, rng, 4 * N)
    b, near = a, N
    for _ in range(8):
        y = _mismatched_cell(inst, st, rng, 4 * N)
        dist = abs(y // m - a // m) + abs(y % m - a % m)
        if 1 < dist < near:
            b, near = y, dist
    for end in (a, b):
        mark[end] = True
        for s in range(4):
            if inst.nbr[4 * end + s] >= 0:
                mark[inst.nbr[4 * end + s]] = True
    r, c = a // m, a % m
    across = uniform(rng) < 0.5  # along the row first, or the column
    steps = 0
    while (r != b // m or c != b % m) and steps < region:
        if (across and c != b % m) or r == b // m:
            c += 1 if b % m > c else -1
        else:
            r += 1 if b // m > r else -1
        mark[r * m + c] = True
        steps += 1


@njit(cache=True)
def _band(inst, st, rng, cost, region, mark):
    """`region` cells of the 4-row or 4-column band with most mismatches, around a mismatch in it."""
    n, m = inst.n, inst.m
    best, ties, vertical, start = -1, 0, False, 0
    for vert in (False, True):
        lines, across = (m, n) if vert else (n, m)
        h = min(4, lines)
        for s0 in range(lines - h + 1):
            s = 0
            for i in range(s0, s0 + h):
                for j in range(across):
                    s += cost[j * m + i] if vert else cost[i * m + j]
            if s > best:
                best, ties, vertical, start = s, 1, vert, s0
            elif s == best:
                ties += 1
                if randint(rng, ties) == 0:
                    vertical, start = vert, s0
    lines, across = (m, n) if vertical else (n, m)
    h = min(4, lines)
    length = min(max(region // h, 1), across)
    centre = randint(rng, across)  # a mismatched cell of the band if one is drawn
    for _ in range(4 * across):
        j = randint(rng, across)
        i = start + randint(rng, h)
        if cost[j * m + i if vertical else i * m + j] > 0:
            centre = j
            break
    lo = min(max(centre - length // 2, 0), across - length)
    if vertical:
        _block(inst, lo, start, length, h, mark)
    else:
        _block(inst, start, lo, h, length, mark)


@njit(cache=True)
def _chain(inst, st, rng, cost, mark):
    """12 to 16 cells from a mismatch, each step to the unvisited neighbour with most mismatches."""
    N = inst.n * inst.m
    length = 12 + randint(rng, 5)
    members = np.empty(length, np.int64)
    x = _mismatched_cell(inst, st, rng, 4 * N)
    members[0], mark[x] = x, True
    c = 1
    for _ in range(4 * length):
        if c >= length:
            break
        best, ties, nxt = -1, 0, -1
        for s in range(4):
            y = inst.nbr[4 * x + s]
            if y < 0 or mark[y] or inst.fixed[y] >= 0:
                continue
            if cost[y] > best:
                best, ties, nxt = cost[y], 1, y
            elif cost[y] == best:
                ties += 1
                if randint(rng, ties) == 0:
                    nxt = y
        if nxt < 0:  # a dead end: carry on from a random member
            x = members[randint(rng, c)]
            continue
        members[c], mark[nxt] = nxt, True
        x = nxt
        c += 1


@njit(cache=True)
def _destroy(inst, st, rng, op, region):
    """The free cells operator `op` (0 to 5, PLATEAU_OPERATORS) frees on the board as it stands."""
    N = inst.n * inst.m
    mark = np.zeros(N, np.bool_)
    cost = _cell_costs(inst, st)
    if op == 0:
        _square(inst, rng, mark)
    elif op == 1:
        _worst(inst, rng, cost, mark)
    elif op == 2:
        _grow(inst, st, rng, region, mark)
    elif op == 3:
        _path(inst, st, rng, region, mark)
    elif op == 4:
        _band(inst, st, rng, cost, region, mark)
    else:
        _chain(inst, st, rng, cost, mark)
    return _collect(inst, mark, N)


@njit(cache=True)
def _group_key(inst, x, turns):
    """The cells a piece may move between: its class, or without turns its grey pattern."""
    return inst.cell_class[x] if turns else 5 * inst.cell_class[x] + inst.out_side[x] + 1


@njit(cache=True)
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
    order = np.argsort(np.array([_group_key(inst, x, turns) for x in cells]), kind="mergesort")
    cs = cells[order]  # cells grouped: a swap partner is drawn from the same group
    gstart = np.empty(k, np.int64)
    gend = np.empty(k, np.int64)
    i = 0
    while i < k:
        j = i
        while j < k and _group_key(inst, cs[j], turns) == _group_key(inst, cs[i], turns):
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
        d = delta(inst, st, (a, b, oa, ob))
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
        d = np.int64(delta(inst, st, (a, b, oa, ob)))
        priced += 1
        if d < best_d:
            best_d, ba, bb, boa, bob = d, a, b, oa, ob
    return (best_d if priced else np.int64(0)), ba, bb, boa, bob, priced


@njit(cache=True)
def _pick(ctl, rng):
    """An operator drawn in proportion to its weight."""
    total = 0
    for o in range(K):
        total += ctl[WEIGHTS + o]
    u = randint(rng, max(total, 1))
    for o in range(K):
        u -= ctl[WEIGHTS + o]
        if u < 0:
            return o
    return K - 1


def plateau_search(inst, st, best, home, rng, ctl, params, max_moves, trace_e, trace_v):
    """Destroy-and-repair iterations until `max_moves` evaluations (kernel contract: heuristics/kernels.py;
    `home` is unused: the chain goes back to its best)."""
    ops, moves, t_hi, t_lo = np.int64(params[OPS_MASK]), params[MOVES], params[T_HI], params[T_LO]
    temperature, patience, decay = params[TEMPERATURE], np.int64(params[PATIENCE]), params[DECAY]
    region, cap, target = np.int64(params[REGION]), np.int64(params[CAP]), np.int64(params[TARGET])
    N = inst.n * inst.m
    turns = turning(inst)
    if ctl[READY] == 0:
        for o in range(K):
            ctl[WEIGHTS + o] = WEIGHT_ONE if (ops >> o) & 1 else 0
        ctl[READY] = 1
    tw_start, tw_list = _twin_table(inst)  # about a millisecond on 16 x 16, once a chunk
    saved = np.empty(N, np.int64)
    done, nt = 0, 0
    while done < max_moves and nt < trace_e.shape[0] and ctl[BEST] > target:
        op = _pick(ctl, rng)
        left = max_moves - done
        cells = np.empty(0, np.int64)
        ta, tb, toa, tob = np.int64(0), np.int64(0), np.int64(0), np.int64(0)
        if op == 6:
            cells = _window(inst, st, rng, 2, 0.8, 6)
            d, priced = np.int64(0), np.int64(0)
            if cells.shape[0] > 1:
                d, priced = resolve(inst, st, rng, cells, min(cap, left), turns)
        elif op == 7:
            d, ta, tb, toa, tob, priced = twin_swap(
                inst, st, rng, min(TWIN_TRIES, left), tw_start, tw_list, turns
            )
        else:
            cells = _destroy(inst, st, rng, op, region)
            for x in cells:
                saved[x] = st[x]
            d, priced = anneal(
                inst, st, rng, cells, min(np.int64(moves * cells.shape[0]), left), t_hi, t_lo, turns
            )
        priced = max(priced, 1)
        done += priced
        ctl[EVALS] += priced
        stat = COUNTS + len(PLATEAU_STATS) * op
        ctl[stat] += 1
        score = 0.0
        if d <= 0 or uniform(rng) < math.exp(-d / temperature):
            if op == 7 and ta != tb:
                apply(inst, st, (ta, tb, toa, tob))
            ctl[CURRENT] += d
            score = SCORES[2] if d == 0 else (SCORES[1] if d < 0 else SCORES[3])
            ctl[stat + 1] += d == 0
            ctl[stat + 2] += d < 0
        elif op != 7:  # rejected: the freed cells get their pieces back
            for x in cells:
                _place(inst, st, x, saved[x] >> 2, saved[x] & 3)
        if ctl[CURRENT] < ctl[BEST]:
            ctl[BEST] = ctl[CURRENT]
            best[:] = st
            trace_e[nt], trace_v[nt] = ctl[EVALS], ctl[BEST]
            nt += 1
            ctl[stat + 3] += 1
            ctl[SINCE] = 0
            score = SCORES[0]
        else:
            ctl[SINCE] += 1
            if ctl[SINCE] >= patience:
                st[:] = best
                ctl[CURRENT] = ctl[BEST]
                ctl[SINCE] = 0
        w = decay * ctl[WEIGHTS + op] + (1 - decay) * score * WEIGHT_ONE
        ctl[WEIGHTS + op] = max(np.int64(w), WEIGHT_ONE // 20)
    return done, nt


plateau_search_compiled = njit(cache=True, nogil=True)(plateau_search)  # chains run on threads
