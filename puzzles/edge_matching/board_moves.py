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

Speed: inlined in a kernel's loop, a helper copies inst (an atomic NRT reference-count call per
array) and frees the copy after its last use; numba's refcount pruning drops the pair only when that
last use is in the block the copy was made in, or in one block every path reaches. So delta reads
inst and st first, in one block; propose ends every move in one block that reads them last; no loop
here returns or breaks. That took the compiled SA's loop from ~250 NRT calls to none.
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
def _sides(inst, st, N, x, o):
    """Cell x's four sides in one block, no branch: its neighbours (-1 off the board), what each shows
    towards x (off the board: a harmless cell of st), what x shows, and what orient o would show.

    Why one block: inlined in a kernel's loop, a helper's copy of inst (an NRT incref per array)
    that dies in the block it was made in is dropped by numba's refcount pruning; one that outlives
    a branch is not."""
    b, q, c = 4 * x, 4 * o, N + 4 * x
    y = (inst.nbr[b], inst.nbr[b + 1], inst.nbr[b + 2], inst.nbr[b + 3])
    f = (st[N + 4 * y[0] + 2], st[N + 4 * y[1] + 3], st[N + 4 * y[2]], st[N + 4 * y[3] + 1])
    now = (st[c], st[c + 1], st[c + 2], st[c + 3])
    new = (inst.rc[q], inst.rc[q + 1], inst.rc[q + 2], inst.rc[q + 3])
    return y, f, now, new


@njit(inline="always")
def _joins(shown, f, y, skip):
    """Unmatched joins of a cell showing `shown`, its neighbours y showing f, leaving out cell `skip`."""
    t = 0
    for k in range(4):
        if y[k] >= 0 and y[k] != skip:
            t += _unmatched(shown[k], f[k])
    return t


@njit(inline="always")
def _differ(shown, f):
    """Unequal joins of an inner cell (four neighbours, no grey side): four compares."""
    return (
        np.int64(shown[0] != f[0])
        + np.int64(shown[1] != f[1])
        + np.int64(shown[2] != f[2])
        + np.int64(shown[3] != f[3])
    )


@njit(inline="always")
def delta(inst, st, mv):
    """Fitness change of a move, reading only the joins around the changed cells.

    When the two cells are neighbours their shared join is counted once (from a's side). Every read
    of inst and st comes first, in one block (`_sides`), then the cases on numbers alone: read in
    the branches, numba's NRT reference-count calls on inst's arrays stayed in the kernels' loops.
    """
    a, b, oa, ob = mv
    N = inst.n * inst.m
    ya, fa, now_a, new_a = _sides(inst, st, N, a, oa)
    yb, fb, now_b, new_b = _sides(inst, st, N, b, ob)  # a turn (a == b) reads a twice: no branch
    inner = (inst.cell_class[a] == INNER) & (inst.cell_class[b] == INNER)
    gap, m = abs(a - b), inst.m
    if a == b:
        d = _joins(new_a, fa, ya, -1) - _joins(now_a, fa, ya, -1)
    elif inner and gap != 1 and gap != m:
        # the common move, two inner cells apart: no border, no grey side, no shared join
        d = _differ(new_a, fa) + _differ(new_b, fb) - _differ(now_a, fa) - _differ(now_b, fb)
    else:
        before = _joins(now_a, fa, ya, -1) + _joins(now_b, fb, yb, a)
        after = _joins(new_b, fb, yb, a)  # b's join with a is counted from a's side
        for k in range(4):  # a's joins, with b's new colours where b is the neighbour
            if ya[k] >= 0:
                after += _unmatched(new_a[k], new_b[k ^ 2] if ya[k] == b else fa[k])
        d = after - before
    return d


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
def _focused(inst, st, rng, cells, tries):
    """A cell from `cells`, redrawn up to `tries` times (the mix's focus) while it matches all its
    joins. A while, not a break: a loop's second exit left numba's NRT calls in the kernels' loops."""
    N = inst.n * inst.m
    x = cells[randint(rng, cells.shape[0])]
    t = 0
    while t < tries and cell_cost_now(inst, st, N, x, -1) == 0:
        x = cells[randint(rng, cells.shape[0])]
        t += 1
    return x


@njit(inline="always")
def _focused_inner(inst, st, rng, tries):
    """_focused on the inner cells, whose cost takes four compares; the cells read from inst where
    drawn (passed as an argument, the array's NRT calls stayed in the kernels' loops)."""
    N, k = inst.n * inst.m, inst.inner_cells.shape[0]
    x = inst.inner_cells[randint(rng, k)]
    t = 0
    while t < tries and _inner_cost(inst, st, N, x) == 0:
        x = inst.inner_cells[randint(rng, k)]
        t += 1
    return x


@njit(inline="always")
def _other_inner(inst, rng, a):
    """_other on the inner cells, read from inst where drawn (see _focused_inner)."""
    k = inst.inner_cells.shape[0]
    b = inst.inner_cells[randint(rng, k)]
    while b == a:
        b = inst.inner_cells[randint(rng, k)]
    return b


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
    # the most matches, ties to the first turn from `start`: the largest key, 4 x matches + 3 - the turn's
    # place after start (not a loop over the turns: LLVM made that a switch with an unreachable
    # default, which kept numba's refcount pruning from seeing the end of `propose` as every move's)
    k0 = 4 * s0 + 3 - ((0 - start) & 3)
    k1 = 4 * s1 + 3 - ((1 - start) & 3)
    k2 = 4 * s2 + 3 - ((2 - start) & 3)
    k3 = 4 * s3 + 3 - ((3 - start) & 3)
    best_r, best = 0, k0
    if k1 > best:
        best_r, best = 1, k1
    if k2 > best:
        best_r, best = 2, k2
    if k3 > best:
        best_r = 3
    return best_r


@njit(inline="always")
def _near_inner(inst, st, rng, a, rad):
    """A random free inner cell other than a within radius `rad` (the mix's) of a (a itself if none)."""
    n, m = inst.n, inst.m
    ra, ca = np.floor_divide(a, m), np.remainder(a, m)  # a // m, a % m without a raise (see propose)
    b, t = a, 0
    while t < 8 and b == a:  # no return in the loop: see _focused
        r = ra - rad + randint(rng, 2 * rad + 1)
        c = ca - rad + randint(rng, 2 * rad + 1)
        y = r * m + c
        if 0 < r < n - 1 and 0 < c < m - 1 and y != a and inst.fixed[y] < 0:
            b = y
        t += 1
    return b


@njit(inline="always")
def propose(inst, st, rng):
    """A random typed move: a corner or frame swap (turns forced), or an inner turn / swap.

    Why one exit, no array held in a variable (cells, mix), and the pieces and forced turns read at
    the end for every move: inlined in a kernel's loop, numba copies inst (an NRT incref per array)
    and frees the copy after its last use; a last use inside a branch or a loop left those NRT calls
    in the loop (most of the compiled SA's time), one in the block all moves end in is pruned.
    """
    N = inst.n * inst.m
    nc, nf, ni = inst.corner_cells.shape[0], inst.frame_cells.shape[0], inst.inner_cells.shape[0]
    w_corner, w_frame, w_inner, p_turn = inst.mix[0], inst.mix[1], inst.mix[2], inst.mix[3]  # MIX_FIELDS
    p_keep, p_random, p_local = inst.mix[4], inst.mix[5], inst.mix[6]
    radius, focus = np.int64(inst.mix[7]), np.int64(inst.mix[8])
    wc = w_corner if nc >= 2 else 0.0
    wf = w_frame if nf >= 2 else 0.0
    wi = w_inner if ni >= 1 else 0.0
    # a, b and the turns ta, tb of b's piece on a and of a's on b, added to the forced turns below
    # (nothing can move: a no-op, cell 0 keeps its orient)
    a, b = 0, 0
    ta = tb = (st[0] - inst.out_side[0] + inst.piece_grey[st[0] >> 2]) & 3
    if wc + wf + wi != 0.0:
        u = uniform(rng) * (wc + wf + wi)
        if u < wc + wf:  # a corner or frame swap: the forced turns alone
            ta = tb = 0
            if u < wc:
                a = _focused(inst, st, rng, inst.corner_cells, focus)
                b = _other(rng, inst.corner_cells, a)
            else:
                a = _focused(inst, st, rng, inst.frame_cells, focus)
                b = _other(rng, inst.frame_cells, a)
        elif uniform(rng) < p_turn or ni < 2:  # turn one inner piece to one of its three other rotations
            a = _focused_inner(inst, st, rng, focus)
            b = a
            ta = tb = (st[a] + 1 + randint(rng, 3)) & 3
        else:
            if p_local > 0.0 and uniform(rng) < p_local:  # no draw when local swaps are off
                a = inst.inner_cells[randint(rng, ni)]
                b = _near_inner(inst, st, rng, a, radius)
            else:
                a = _focused_inner(inst, st, rng, focus)
                b = _other_inner(inst, rng, a)
            if b == a:  # no free inner cell near a
                a, b = _two_distinct(rng, inst.inner_cells)
            w = uniform(rng) if p_keep + p_random > 0.0 else 1.0  # no draw when every swap takes best turns
            if w < p_keep:  # keep turns
                ta, tb = st[b] & 3, st[a] & 3
            elif w < p_keep + p_random:  # random turns
                ta = randint(rng, 4)
                tb = randint(rng, 4)
            else:
                start = randint(rng, 4)
                ta = _best_turn(inst, st, N, st[b] >> 2, a, start)
                tb = _best_turn(inst, st, N, st[a] >> 2, b, start)
    # The end every move shares, with the last reads of inst, st and rng: numba frees its copies of
    # them here, in one block, and its refcount pruning drops their NRT calls (no flag tested here: a
    # branch on one made LLVM copy this block, one per value, and the pruning failed).
    pa, pb = st[a] >> 2, st[b] >> 2
    # face_states.forced_rotation written out (a call copies inst); 0 on an inner cell (both -1)
    fa = (inst.out_side[a] - inst.piece_grey[pb]) & 3
    fb = (inst.out_side[b] - inst.piece_grey[pa]) & 3
    rng.shape  # noqa: B018 -- rng's last use, here: in a branch it left its NRT calls there
    return a, b, 4 * pb + ((fa + ta) & 3), 4 * pa + ((fb + tb) & 3)


@njit(inline="always")
def propose_fixed(inst, st, rng):
    """A swap of two free cells of one grey pattern, no turns (the face's propose when pieces never turn).

    One exit, and the group's cells drawn by index, not from a slice (an array: NRT calls in the loop).
    """
    a, b = 0, 0  # fewer than two cells can move: a no-op move
    if inst.group_cells.shape[0] >= 2:
        a = _focused(inst, st, rng, inst.group_cells, np.int64(inst.mix[8]))
        g = inst.cell_group[a]
        lo, k = inst.group_start[g], inst.group_start[g + 1] - inst.group_start[g]
        b = inst.group_cells[lo + randint(rng, k)]  # _other, in group g's cells
        while b == a:
            b = inst.group_cells[lo + randint(rng, k)]
    return a, b, st[b], st[a]
