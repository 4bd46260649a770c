"""Pentomino rectangles: the boards of the classic exact-cover table, and the bridge from an exact
tiling to the strip puzzle's decoder (so the metaheuristics' known optimum is shown reachable).

The 12 pentominoes (turned and flipped freely) tile the 3x20, 4x15, 5x12 and 6x10 rectangles and
the 8x8 square less its 2x2 centre. Counts are given two ways: raw (every tiling, so each is
counted once per symmetry of the board that maps it to a different tiling) and up to symmetry (a
tiling and its rotations/reflections count once), as in Knuth's "Dancing Links" table.
"""
from __future__ import annotations

import numpy as np

from core import InputError
from puzzles.packing import Packing, box
from puzzles.pieces import read_pieces

CENTRE = ((3, 3), (3, 4), (4, 3), (4, 4))
BOARDS = {"3x20": (3, 20), "4x15": (4, 15), "5x12": (5, 12), "6x10": (6, 10), "8x8-centre": (8, 8)}
KNUTH = {"3x20": (8, 2), "4x15": (1472, 368), "5x12": (4040, 1010), "6x10": (9356, 2339),
         "8x8-centre": (520, 65)}  # (raw, up to symmetry), from "Dancing Links" (Knuth, 2000)


def rectangle(name: str, pieces: str = "pentominoes") -> Packing:
    """The placement model of a named board ('6x10', '8x8-centre', ...) with free pieces."""
    if name not in BOARDS:
        raise InputError(f"unknown board {name!r}; choose one of: {', '.join(BOARDS)}")
    holes = CENTRE if name == "8x8-centre" else ()
    return Packing(box(*BOARDS[name], holes=holes), read_pieces(pieces))


def strip_genome(strip, tiling: np.ndarray) -> np.ndarray:
    """A genome that makes the strip's bottom-left decoder rebuild a tiling exactly.

    `tiling` is a (rows, strip.width) grid of piece ids. Pieces go in order of their first cell
    (row by row): every cell before it is then filled, so the decoder's first fitting position
    is the tiling's own.
    """
    order, orient = [], np.zeros(len(strip.pieces), dtype=np.int64)
    anchors = []
    for p, piece in enumerate(strip.pieces):
        cells = np.argwhere(tiling == piece.id)
        anchors.append(tuple(cells[0]))
        shape = cells - cells.min(axis=0)
        matches = [o for o, s in enumerate(strip.shapes[p]) if np.array_equal(s, shape)]
        if not matches:
            raise InputError(f"piece {piece.name} lies in an orientation the strip lacks")
        orient[p] = matches[0]
    order = sorted(range(len(strip.pieces)), key=lambda p: anchors[p])
    if not strip.space.orientations:
        return np.array(order, dtype=np.int64)
    return np.concatenate([np.array(order, dtype=np.int64), orient])
