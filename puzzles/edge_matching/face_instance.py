"""The local-search face's instance (board_moves.py): what the compiled moves read of a puzzle, built
once per board: each orient's shown colours, the neighbours, the cells' and pieces' classes, the free
cells and the neighbourhood mix; without turns, the grey-pattern groups pieces swap within
(`FixedInstance`). Building it checks the pieces fit the board, in one line.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba.extending import overload

from core.errors import InputError
from puzzles.edge_matching.board import neighbours, turn_table

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
