"""The Galakub cube (seed 003): pack three Z, three J and two Q pieces (8 cubes each) into 4x4x4.

The pieces are physical, so they turn (24 rotations) but are not mirrored; Z is chiral, J and Q
are not. Counts come in three conventions, as in the seed:
- raw: copies of a piece are told apart (the seed's search placed Z1, Z2, Z3, ... in order), so
  each filling appears 3! * 3! * 2! = 72 times;
- distinct: fillings, copies of a piece interchangeable;
- up to rotation: distinct fillings, a rotated cube counting once.
"""
from __future__ import annotations

import numpy as np

from puzzles.packing import Packing, box
from puzzles.pieces import read_pieces

COPIES = {"Z": 3, "J": 3, "Q": 2}
SIZE = 4


def galakub(reflections: bool = False) -> Packing:
    """The cube's placement model: every piece copy at every rotation and position."""
    by_name = {p.name: p for p in read_pieces("galakub")}
    pieces = [by_name[name] for name, n in COPIES.items() for _ in range(n)]
    return Packing(box(SIZE, SIZE, SIZE), pieces, reflections=reflections)


def figures(model: Packing, owners: np.ndarray) -> dict[str, int]:
    """The seed's three figures from every raw solution (the covering copy per cell, one row each):
    raw solutions, distinct fillings, fillings up to rotation."""
    return {"raw": len(owners),
            "distinct": model.count_distinct(owners, symmetric=False),
            "up_to_rotation": model.count_distinct(owners, symmetric=True, mirrors=False)}


def draw(model: Packing, owner: np.ndarray, title: str = "Galakub"):
    """The cube as its four layers side by side; cells coloured by piece, labelled e.g. 'Z2'."""
    import matplotlib.pyplot as plt

    from puzzles.pictures import draw_grid
    names = [p.name for p in model.pieces]
    copy = [names[: i + 1].count(n) for i, n in enumerate(names)]
    colour = np.zeros(model.board.shape, dtype=np.int64)
    label = np.full(model.board.shape, "", dtype=object)
    for cell, piece in zip(model.board.cells, owner):
        colour[tuple(cell)] = piece + 1
        label[tuple(cell)] = f"{names[piece]}{copy[piece]}"
    fig, axes = plt.subplots(1, SIZE, figsize=(3 * SIZE, 3.4))
    for z, ax in enumerate(axes):
        draw_grid(colour[z], ax=ax, title=f"layer {z}", labels=label[z])
    fig.suptitle(title)
    return fig
