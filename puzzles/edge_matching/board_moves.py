"""The local-search face of an edge-matching puzzle (Eternity II rules, any n x m board).

Why a second face: the fitness face (a permutation genome scored from scratch) lets corners wander
inward and prices a one-swap change at the cost of a whole board. This face keeps the structure every
Eternity II solver starts from -- corners stay in corners, frame pieces on the frame with their grey
side outward, inner pieces inside, pre-placed pieces never move -- and prices a move from the at most
eight joins around the changed cells, in compiled code.

Conventions
- Board cells are numbered ``cell = row * m + col``, row 0 at the top.
- A piece is four colours in the order ``[left, top, right, bottom]`` (clockwise), 0 = grey border.
- Rotation ``r`` turns a piece ``r`` quarter turns clockwise: side ``k`` then shows colour
  ``colours[(k - r) % 4]`` (the convention of jwortmann/Eternity2Puzzles.jl, so rotations carry over).
- An *orient* packs a placed piece as ``piece * 4 + rotation``.
- Fitness = unmatched internal joins (minimise). A join matches when both sides show the same colour
  and that colour is not grey; the score of the record tables is ``joins - fitness`` (480 on 16 x 16).

State: one flat ``int32`` array of length ``5 * N``: ``st[:N]`` the orient of every cell, then
``st[N + 4*cell + side]`` the colour that cell shows on that side (a cache that makes a delta read one
number per side). Kernels treat the state as opaque: they copy it with ``best[:] = st``.

Move: a tuple ``(a, b, oa, ob)`` of ints: cell ``a`` receives orient ``oa`` and cell ``b`` orient ``ob``
(a swap, with whatever turns the move chose); ``a == b`` is a turn of one piece to orient ``oa``.

Without turns (the seed's pseudo Eternity II, ``build_instance(..., turns=False)``) a border piece fits
only where its grey sides already face out, so cells and pieces fall into groups by their grey pattern
(each corner its own, one per frame side, the inner cells); ``propose_fixed`` swaps two pieces of one
group and never turns, every rotation stays 0. That mode has its own instance type, ``FixedInstance``
(EdgeInstance and the groups): a wider EdgeInstance measured 15% fewer moves/s on the turning face.
``delta``, ``apply`` and ``fitness`` serve both.

Its parts: face_instance.py builds the instance the moves read, face_states.py the state arrays
(random, made legal, checked); this module prices and makes moves (fitness, delta, apply) and draws
them (propose, propose_fixed).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from core.rng import randint, uniform
from puzzles.edge_matching.board import unmatched_join

# EdgeInstance, FixedInstance: numba's on-disk caches written before face_instance.py split from this
# module name the instance types as this module's (a kernel compiled for a face instance, in any
# module); named here too, those caches load (and are checked against their sources) instead of
# failing to unpickle.
from puzzles.edge_matching.face_instance import INNER, EdgeInstance, FixedInstance  # noqa: F401
from puzzles.edge_matching.face_states import forced_rotation

# ----------------------------------------------------------------------------- fitness, delta, apply


@njit(inline="always")
def _unmatched(c1, c2):
    """1 when a join does not count (`board.unmatched_edge`), as an int64."""
    return np.int64(unmatched_join(c1, c2))


@njit(cache=True)
def fitness(inst, st):
    """Unmatched internal joins, counted from scratch (the reference every delta must agree with)."""
    N = inst.n * inst.m
    f = 0
    for x in range(N):
        for k in (2, 3):  # right and bottom: each join once
            y = inst.nbr[4 * x + k]
            if y >= 0:
                f += _unmatched(st[N + 4 * x + k], st[N + 4 * y + (k ^ 2)])
    return f


@njit(inline="always")
def cell_cost_now(inst, st, N, x, skip):
    """Unmatched joins around cell x as the board stands, leaving out the join with cell `skip`."""
    f = 0
    for k in range(4):
        y = inst.nbr[4 * x + k]
        if y >= 0 and y != skip:
            f += _unmatched(st[N + 4 * x + k], st[N + 4 * y + (k ^ 2)])
    return f


@njit(inline="always")
def cell_cost_new(inst, st, N, x, ox, other, o_other, skip):
    """Unmatched joins around cell x holding orient ox, with cell `other` holding o_other."""
    f = 0
    for k in range(4):
        y = inst.nbr[4 * x + k]
        if y >= 0 and y != skip:
            cy = inst.rc[4 * o_other + (k ^ 2)] if y == other else st[N + 4 * y + (k ^ 2)]
            f += _unmatched(inst.rc[4 * ox + k], cy)
    return f


@njit(inline="always")
def _inner_cost(inst, st, N, x):
    """Unmatched joins around inner cell x: four neighbours, no grey side, four compares."""
    b, c = 4 * x, N + 4 * x
    return (
        np.int64(st[c] != st[N + 4 * inst.nbr[b] + 2])
        + np.int64(st[c + 1] != st[N + 4 * inst.nbr[b + 1] + 3])
        + np.int64(st[c + 2] != st[N + 4 * inst.nbr[b + 2]])
        + np.int64(st[c + 3] != st[N + 4 * inst.nbr[b + 3] + 1])
    )


@njit(inline="always")
def _inner_cost_new(inst, st, N, x, o):
    """Unmatched joins around inner cell x holding orient o, its neighbours as they stand."""
    b, q = 4 * x, 4 * o
    return (
        np.int64(inst.rc[q] != st[N + 4 * inst.nbr[b] + 2])
        + np.int64(inst.rc[q + 1] != st[N + 4 * inst.nbr[b + 1] + 3])
        + np.int64(inst.rc[q + 2] != st[N + 4 * inst.nbr[b + 2]])
        + np.int64(inst.rc[q + 3] != st[N + 4 * inst.nbr[b + 3] + 1])
    )


@njit(inline="always")
def delta(inst, st, mv):
    """Fitness change of a move, reading only the joins around the changed cells.

    When the two cells are neighbours their shared join is counted once (from a's side).
    """
    a, b, oa, ob = mv
    N = inst.n * inst.m
    if a == b:
        return cell_cost_new(inst, st, N, a, oa, -1, 0, -1) - cell_cost_now(inst, st, N, a, -1)
    gap = abs(a - b)
    if inst.cell_class[a] == INNER and inst.cell_class[b] == INNER and gap != 1 and gap != inst.m:
        # the common move, two inner cells apart: no border, no grey side, no shared join
        return (
            _inner_cost_new(inst, st, N, a, oa)
            + _inner_cost_new(inst, st, N, b, ob)
            - _inner_cost(inst, st, N, a)
            - _inner_cost(inst, st, N, b)
        )
    before = cell_cost_now(inst, st, N, a, -1) + cell_cost_now(inst, st, N, b, a)
    after = cell_cost_new(inst, st, N, a, oa, b, ob, -1) + cell_cost_new(inst, st, N, b, ob, a, oa, a)
    return after - before


@njit(inline="always")
def apply(inst, st, mv):
    """Make a move: write the new orients and their shown colours."""
    a, b, oa, ob = mv
    N = inst.n * inst.m
    st[a] = oa
    for k in range(4):
        st[N + 4 * a + k] = inst.rc[4 * oa + k]
    if b != a:
        st[b] = ob
        for k in range(4):
            st[N + 4 * b + k] = inst.rc[4 * ob + k]


# ----------------------------------------------------------------------------- typed moves


@njit(inline="always")
def _two_distinct(rng, cells):
    """Two different cells drawn uniformly from a list."""
    n = cells.shape[0]
    i = randint(rng, n)
    j = randint(rng, n - 1)
    if j >= i:
        j += 1
    return cells[i], cells[j]


@njit(inline="always")
def _focused(inst, st, rng, cells, inner=False):
    """A cell from `cells`, redrawn up to mix[8] times while it matches all its joins
    (`inner`: the cells are inner ones, whose cost takes four compares)."""
    N = inst.n * inst.m
    x = cells[randint(rng, cells.shape[0])]
    for _ in range(np.int64(inst.mix[8])):
        if (_inner_cost(inst, st, N, x) if inner else cell_cost_now(inst, st, N, x, -1)) > 0:
            break
        x = cells[randint(rng, cells.shape[0])]
    return x


@njit(inline="always")
def _other(rng, cells, a):
    """A cell from `cells` other than a (cells holds at least two)."""
    b = cells[randint(rng, cells.shape[0])]
    while b == a:
        b = cells[randint(rng, cells.shape[0])]
    return b


@njit(inline="always")
def _best_turn(inst, st, N, piece, x, start):
    """The turn of inner `piece` that matches most current neighbours of inner cell x (ties: first
    from `start`). Eight loads and sixteen compares in registers: this runs twice per inner swap."""
    b, q = 4 * x, 16 * piece  # an inner cell has four neighbours; an inner piece no grey side
    f0 = st[N + 4 * inst.nbr[b] + 2]  # what each neighbour shows towards x
    f1 = st[N + 4 * inst.nbr[b + 1] + 3]
    f2 = st[N + 4 * inst.nbr[b + 2]]
    f3 = st[N + 4 * inst.nbr[b + 3] + 1]
    c0, c1, c2, c3 = inst.rc[q], inst.rc[q + 1], inst.rc[q + 2], inst.rc[q + 3]  # as listed
    s0 = (c0 == f0) + (c1 == f1) + (c2 == f2) + (c3 == f3)  # turned r: side k shows c[(k - r) % 4]
    s1 = (c3 == f0) + (c0 == f1) + (c1 == f2) + (c2 == f3)
    s2 = (c2 == f0) + (c3 == f1) + (c0 == f2) + (c1 == f3)
    s3 = (c1 == f0) + (c2 == f1) + (c3 == f2) + (c0 == f3)
    best_r, best = start, -1
    for i in range(4):
        r = (start + i) & 3
        s = s0 if r == 0 else (s1 if r == 1 else (s2 if r == 2 else s3))
        if s > best:
            best, best_r = s, r
    return best_r


@njit(inline="always")
def _near_inner(inst, st, rng, a):
    """A random free inner cell other than a within the mix's radius of a (a itself if none)."""
    n, m = inst.n, inst.m
    rad = np.int64(inst.mix[7])
    ra, ca = a // m, a % m
    for _ in range(8):
        r = ra - rad + randint(rng, 2 * rad + 1)
        c = ca - rad + randint(rng, 2 * rad + 1)
        if 0 < r < n - 1 and 0 < c < m - 1:
            b = r * m + c
            if b != a and inst.fixed[b] < 0:
                return b
    return a


@njit(inline="always")
def propose(inst, st, rng):
    """A random typed move: a corner or frame swap (turns forced), or an inner turn / swap."""
    N = inst.n * inst.m
    mix = inst.mix
    nc, nf, ni = inst.corner_cells.shape[0], inst.frame_cells.shape[0], inst.inner_cells.shape[0]
    wc = mix[0] if nc >= 2 else 0.0
    wf = mix[1] if nf >= 2 else 0.0
    wi = mix[2] if ni >= 1 else 0.0
    if wc + wf + wi == 0.0:  # nothing can move: a no-op move
        return 0, 0, st[0], st[0]
    u = uniform(rng) * (wc + wf + wi)
    if u < wc + wf:
        cells = inst.corner_cells if u < wc else inst.frame_cells
        a = _focused(inst, st, rng, cells)
        b = _other(rng, cells, a)
        pa, pb = st[a] >> 2, st[b] >> 2
        return a, b, 4 * pb + forced_rotation(inst, pb, a), 4 * pa + forced_rotation(inst, pa, b)
    v = uniform(rng)
    if v < mix[3] or ni < 2:  # turn one inner piece to one of its three other rotations
        a = _focused(inst, st, rng, inst.inner_cells, True)
        o = st[a]
        o2 = (o & ~3) | ((o + 1 + randint(rng, 3)) & 3)
        return a, a, o2, o2
    if mix[6] > 0.0 and uniform(rng) < mix[6]:  # no draw when local swaps are off
        a = inst.inner_cells[randint(rng, ni)]
        b = _near_inner(inst, st, rng, a)
        if b == a:
            a, b = _two_distinct(rng, inst.inner_cells)
    else:
        a = _focused(inst, st, rng, inst.inner_cells, True)
        b = _other(rng, inst.inner_cells, a)
    oa0, ob0 = st[a], st[b]
    pa, pb = oa0 >> 2, ob0 >> 2
    w = uniform(rng) if mix[4] + mix[5] > 0.0 else 1.0  # no draw when every swap takes best turns
    if w < mix[4]:  # keep turns
        return a, b, 4 * pb + (ob0 & 3), 4 * pa + (oa0 & 3)
    if w < mix[4] + mix[5]:  # random turns
        return a, b, 4 * pb + randint(rng, 4), 4 * pa + randint(rng, 4)
    start = randint(rng, 4)
    return (
        a,
        b,
        4 * pb + _best_turn(inst, st, N, pb, a, start),
        4 * pa + _best_turn(inst, st, N, pa, b, start),
    )


@njit(inline="always")
def propose_fixed(inst, st, rng):
    """A swap of two free cells of one grey pattern, no turns (the face's propose when pieces never turn)."""
    cells = inst.group_cells
    if cells.shape[0] < 2:  # nothing can move: a no-op move
        return 0, 0, st[0], st[0]
    a = _focused(inst, st, rng, cells)
    g = inst.cell_group[a]
    b = _other(rng, cells[inst.group_start[g] : inst.group_start[g + 1]], a)
    return a, b, st[b], st[a]
