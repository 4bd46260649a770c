"""The plateau kernel's destroy operators (plateau.py): which cells an iteration frees (a square, the
worst window, a grown region, a path between mismatches, a band, a chain), each a compiled function
of the board and the run's random stream.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from core.rng import randint, uniform
from puzzles.edge_matching.board_moves import cell_cost_now
from puzzles.edge_matching.windows import _mismatched_cell


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
