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
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit
from numba.extending import overload

from core.errors import InputError
from core.rng import randint, uniform
from puzzles.edge_matching.board import neighbours, turn_table, unmatched_join

CORNER, FRAME, INNER = 2, 1, 0  # a piece's class = its number of grey sides

# Neighbourhood mix, in this order, in EdgeInstance.mix:
#   w_corner, w_frame, w_inner: relative weights of the three classes (swaps within one class);
#   p_turn: inner move is a turn of one piece; otherwise an inner swap, whose turns are
#   p_keep: kept, p_random: drawn at random, else (the rest) each piece's best turn against its new
#   neighbours ("swap and turn"; the delta is exact for the turns chosen).
#   p_local: an inner swap picks its second cell within radius `radius` (Chebyshev) of the first.
#   focus: a swap or turn redraws its first cell up to `focus` times while that cell matches all its
#   joins (moves that touch a mismatch are the ones that can pay; 0 = uniform cells).
MIX_FIELDS = ("w_corner", "w_frame", "w_inner", "p_turn", "p_keep", "p_random", "p_local", "radius", "focus")
DEFAULT_MIX = {
    "w_corner": None,
    "w_frame": None,
    "w_inner": None,
    "p_turn": 0.05,
    "p_keep": 0.0,
    "p_random": 0.0,
    "p_local": 0.0,
    "radius": 2,
    "focus": 2,
}

EdgeInstance = namedtuple(
    "EdgeInstance",
    [
        "n",
        "m",  # rows, columns
        "rc",  # int32[(P*4)*4]: colour shown on side k by orient o at rc[o*4 + k]
        "nbr",  # int32[N*4]: neighbour cell on each side, -1 off the board
        "cell_class",  # int8[N]: CORNER / FRAME / INNER by position
        "out_side",  # int32[N]: first outward side of a border cell (clockwise), -1 inside
        "piece_class",  # int8[P]: CORNER / FRAME / INNER by grey sides
        "piece_grey",  # int32[P]: first grey side (clockwise) of a corner/frame piece, -1 inner
        "corner_cells",
        "frame_cells",
        "inner_cells",  # int32 arrays of the free (movable) cells
        "fixed",  # int32[N]: orient pre-placed on a cell, -1 where free
        "mix",  # float64[9]: the neighbourhood mix, see MIX_FIELDS
    ],
)

FixedInstance = namedtuple(
    "FixedInstance",
    [  # EdgeInstance's fields, then the groups (mypy needs the names written out)
        "n",
        "m",
        "rc",
        "nbr",
        "cell_class",
        "out_side",
        "piece_class",
        "piece_grey",
        "corner_cells",
        "frame_cells",
        "inner_cells",
        "fixed",
        "mix",
        "group_cells",  # int32[]: the free cells of every grey pattern with two or more, by pattern
        "group_start",  # int32[G+1]: group g's cells are group_cells[group_start[g]:group_start[g+1]]
        "cell_group",  # int32[N]: the group of a cell in group_cells, -1 elsewhere
    ],
)


# ----------------------------------------------------------------------------- building an instance


def piece_classes(pieces):
    """Class of each piece from its grey sides: 2 grey = corner, 1 = frame, 0 = inner."""
    grey = (np.asarray(pieces) == 0).sum(axis=1)
    if grey.max() > 2:
        raise InputError("a piece has more than two grey sides")
    return grey.astype(np.int8)


def first_grey_side(colours):
    """First grey side in clockwise order (for a corner: the side whose clockwise successor is grey too)."""
    zeros = [k for k in range(4) if colours[k] == 0]
    if len(zeros) == 2:
        for k in zeros:
            if colours[(k + 1) % 4] == 0:
                return k
        raise InputError(f"corner piece {list(colours)} has opposite grey sides")
    return zeros[0] if zeros else -1


def cell_classes(n, m):
    """Class and first outward side of every cell of an n x m board."""
    cls = np.zeros(n * m, np.int8)
    out = np.full(n * m, -1, np.int32)
    for r in range(n):
        for c in range(m):
            sides = [k for k, edge in enumerate((c == 0, r == 0, c == m - 1, r == n - 1)) if edge]
            cls[r * m + c] = len(sides)
            if len(sides) == 1:
                out[r * m + c] = sides[0]
            elif len(sides) == 2:  # clockwise-first of the two outward sides
                out[r * m + c] = sides[0] if (sides[0] + 1) % 4 == sides[1] else sides[1]
    return cls, out


def flat_neighbours(n, m):
    """`board.neighbours` as the face stores it: int32, flat (``nbr[4 * cell + side]``)."""
    return neighbours(n, m).astype(np.int32).ravel()


def build_instance(pieces, n, m, fixed=None, turns=True, **mix):
    """The compiled-face view of an n x m puzzle.

    pieces: int array (n*m, 4) in the order [left, top, right, bottom], 0 = grey.
    fixed: optional {cell: orient} of pre-placed pieces (hints, the starter piece); they never move.
    turns: may pieces turn? (False: every rotation is 0 and pieces swap within their grey pattern)
    mix: overrides of DEFAULT_MIX (see MIX_FIELDS); class weights default to the free cells per class
        (without turns only `focus` applies: a swap's first cell is any free cell of a group of two or more).
    """
    pieces = np.asarray(pieces, np.int32)
    if n < 2 or m < 2 or pieces.shape != (n * m, 4):
        raise InputError(f"need n, m >= 2 and {n * m} pieces of 4 colours, got {pieces.shape}")
    pcls = piece_classes(pieces)
    ccls, out = cell_classes(n, m)
    for k in (CORNER, FRAME, INNER):
        if (pcls == k).sum() != (ccls == k).sum():
            raise InputError(f"{(pcls == k).sum()} pieces of class {k} for {(ccls == k).sum()} cells")
    grey = np.array([first_grey_side(p) for p in pieces], np.int32)
    fixed_arr = np.full(n * m, -1, np.int32)
    for cell, orient in (fixed or {}).items():
        p = orient >> 2
        if pcls[p] != ccls[cell] or not (turns or (orient & 3 == 0 and grey[p] == out[cell])):
            raise InputError(f"fixed piece {p} (orient {orient}) does not belong on cell {cell}")
        fixed_arr[cell] = orient
    free = fixed_arr < 0
    groups = _swap_groups(grey, pcls, ccls, out, fixed_arr) if not turns else []
    cells = [np.flatnonzero((ccls == k) & free).astype(np.int32) for k in (CORNER, FRAME, INNER)]
    opts = dict(DEFAULT_MIX, **mix)
    for key, k in (("w_corner", 0), ("w_frame", 1), ("w_inner", 2)):
        if opts[key] is None:
            opts[key] = float(len(cells[k]))
    mixarr = np.array([opts[f] for f in MIX_FIELDS], np.float64)
    inst = EdgeInstance(
        n,
        m,
        turn_table(pieces).astype(np.int32).ravel(),
        flat_neighbours(n, m),
        ccls,
        out,
        pcls,
        grey,
        cells[0],
        cells[1],
        cells[2],
        fixed_arr,
        mixarr,
    )
    return inst if turns else FixedInstance(*inst, *_group_arrays(groups, n * m))


def turning(inst) -> bool:
    """Do the instance's pieces turn? (False for a FixedInstance: the seed's rules)"""
    return not isinstance(inst, FixedInstance)


@overload(turning)
def _turning_compiled(inst):
    """`turning` in compiled code: decided by the instance's type, so numba folds it away."""
    turns = inst.instance_class is not FixedInstance
    return lambda inst: turns


def _swap_groups(grey, pcls, ccls, out, fixed):
    """Without turns: the free cells of each grey pattern (class, first outward side) that holds two or more.

    A piece fits a cell unturned when its (class, first grey side) is the cell's pattern. Raises
    InputError when a pattern has not as many free pieces as free cells (no legal board then).
    """
    used = {int(o) >> 2 for o in fixed if o >= 0}
    free_cells = np.flatnonzero(fixed < 0)
    groups = []
    for key in sorted({(int(ccls[x]), int(out[x])) for x in free_cells}):
        cells = [x for x in free_cells if (ccls[x], out[x]) == key]
        pieces = [p for p in range(len(pcls)) if p not in used and (pcls[p], grey[p]) == key]
        if len(pieces) != len(cells):
            raise InputError(f"{len(pieces)} unturned pieces of grey pattern {key} for {len(cells)} cells")
        if len(cells) >= 2:
            groups.append(np.array(cells, np.int32))
    return groups


def _group_arrays(groups, N):
    """(group_cells, group_start, cell_group) of a list of cell groups (see EdgeInstance)."""
    cells = np.concatenate(groups).astype(np.int32) if groups else np.zeros(0, np.int32)
    start = np.cumsum([0] + [len(g) for g in groups]).astype(np.int32)
    cell_group = np.full(N, -1, np.int32)
    for g, group in enumerate(groups):
        cell_group[group] = g
    return cells, start, cell_group


def joins(inst):
    """Number of internal joins of the board: 2nm - n - m (480 on 16 x 16)."""
    return 2 * inst.n * inst.m - inst.n - inst.m


# ----------------------------------------------------------------------------- state


@njit(cache=True)
def forced_rotation(inst, piece, cell):
    """The rotation that turns a corner/frame piece's grey side(s) outward on a border cell."""
    return (inst.out_side[cell] - inst.piece_grey[piece]) & 3


@njit(inline="always")
def turn_allowed(inst, piece, cell, rotation, turns):
    """May a piece of the cell's class sit there at this rotation? Border: grey side out; no turns: 0."""
    if not turns:
        return rotation == 0 and forced_rotation(inst, piece, cell) == 0
    return inst.cell_class[cell] == INNER or rotation == forced_rotation(inst, piece, cell)


@njit(cache=True)
def refresh(inst, st):
    """Recompute the shown-colour cache of a state from its orients (after writing st[:N])."""
    N = inst.n * inst.m
    for x in range(N):
        o = st[x]
        for k in range(4):
            st[N + 4 * x + k] = inst.rc[4 * o + k]


def state_from_orients(inst, orients):
    """A state array from one orient per cell."""
    N = inst.n * inst.m
    st = np.zeros(5 * N, np.int32)
    st[:N] = orients
    refresh(inst, st)
    return st


def _slots(inst):
    """(free cells, free pieces) of each set a piece moves within: a class, or without turns a grey pattern."""
    used = {int(o) >> 2 for o in inst.fixed if o >= 0}
    slots = []
    for k, cells in ((CORNER, inst.corner_cells), (FRAME, inst.frame_cells), (INNER, inst.inner_cells)):
        pieces = np.array([p for p in np.flatnonzero(inst.piece_class == k) if p not in used], np.int64)
        if turning(inst):
            slots.append((cells, pieces))
            continue
        for side in sorted({int(inst.out_side[x]) for x in cells}):
            slots.append((cells[inst.out_side[cells] == side], pieces[inst.piece_grey[pieces] == side]))
    return slots


def _turn(inst, piece, cell, rotation):
    """The rotation a piece takes on a cell: forced on the border (and always 0 without turns)."""
    return (
        rotation if turning(inst) and inst.cell_class[cell] == INNER else forced_rotation(inst, piece, cell)
    )


def random_state(inst, rng):
    """A class-respecting random board: corners in corners, frame grey-out, inner turned at random.

    Without turns each grey pattern's pieces are shuffled over its cells, unturned.
    rng: a numpy Generator (placement is a one-off; the kernels use their own stream).
    """
    N = inst.n * inst.m
    orients = inst.fixed.copy()
    for cells, pool in _slots(inst):
        for cell, p in zip(cells, rng.permutation(pool), strict=True):
            turn = rng.integers(4) if turning(inst) and inst.cell_class[cell] == INNER else 0
            orients[cell] = p * 4 + _turn(inst, p, cell, turn)
    assert (orients >= 0).all() and len(orients) == N
    return state_from_orients(inst, orients)


def legal_state(inst, orients):
    """The state of any board of the pieces (one orient per cell, each piece once), made legal.

    A piece off its class (without turns: off its grey pattern) moves to a cell its own kind left
    free, cells and pieces in order; border pieces turn grey side out; pre-placed pieces go home.
    A constructive solver's board may break the face's rules, which its moves could never repair.
    """
    orients = np.asarray(orients, np.int32).copy()
    fx = inst.fixed >= 0
    orients[fx] = inst.fixed[fx]
    for cells, pool in _slots(inst):
        home = np.isin(orients[cells] >> 2, pool)
        movers = np.setdiff1d(pool, orients[cells[home]] >> 2)
        orients[cells[~home]] = 4 * movers
        for x in cells:
            orients[x] = (orients[x] & ~3) | _turn(inst, orients[x] >> 2, x, orients[x] & 3)
    return state_from_orients(inst, orients)


def check_state(inst, st):
    """Assert the state is a legal board: a permutation, classes respected, grey outward, hints kept."""
    N = inst.n * inst.m
    o = st[:N]
    pieces = o >> 2
    assert sorted(pieces.tolist()) == list(range(N)), "not a permutation of the pieces"
    assert (inst.piece_class[pieces] == inst.cell_class).all(), "a piece sits on a cell of another class"
    border = inst.cell_class > 0
    for x in np.flatnonzero(border):
        assert o[x] & 3 == forced_rotation(inst, pieces[x], x), f"cell {x}: grey side not outward"
    assert turning(inst) or not (o & 3).any(), "a piece is turned but pieces never turn"
    fx = inst.fixed >= 0
    assert (o[fx] == inst.fixed[fx]).all(), "a pre-placed piece moved"
    cache = st[N:].copy()
    refresh(inst, st)
    assert (cache == st[N:]).all(), "stale colour cache"


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
