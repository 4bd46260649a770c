"""The seed's bottom-left decoder (seed 002), written plainly with numpy: the speed baseline.

Kept as the seed wrote it (a 2D int field, a product-and-sum overlap test per position), with
only the field height made large enough for any order; tests also use it as a reference.
"""

from __future__ import annotations

import numpy as np


def seed_pieces(pieces) -> list[np.ndarray]:
    """The seed's representation: each piece as an int array holding its id."""
    return [p.grid().astype(int) * p.id for p in pieces]


def bottom_left(order, pentominos: list[np.ndarray], w: int = 6) -> np.ndarray:
    """Place pieces in order at the first top-left position where they fit; return the used rows."""
    height = sum(p.shape[0] for p in pentominos)
    f = np.zeros((height, w), dtype=int)
    for n in order:
        pentomino = pentominos[n]
        next_mino = False
        for i in range(height):
            for j in range(w):
                p_h, p_w = pentomino.shape
                if w < j + p_w:
                    break
                if np.sum(f[i : i + p_h, j : j + p_w] * pentomino) == 0:
                    f[i : i + p_h, j : j + p_w] += pentomino
                    next_mino = True
                    break
            if next_mino:
                break
    last_line = np.where(f > 0)[0][-1]
    return f[: last_line + 1, :]


def bl_score(order, pentominos: list[np.ndarray], w: int = 6) -> int:
    """The seed's fitness: empty cells in the used rows."""
    return int(np.sum(bottom_left(order, pentominos, w) == 0))
