"""The local-search face's state (board_moves.py): one flat int32 array per board, the orient of every
cell then the colour each cell shows on each side; the legal rotations of a piece on a cell, a random
legal board, any board made legal, and the check that a state is one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from puzzles.edge_matching.face_instance import CORNER, FRAME, INNER, turning


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
