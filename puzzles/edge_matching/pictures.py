"""Pictures of edge-matching boards: each piece as four coloured triangles, as the seed draws them."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import LineCollection, PolyCollection

from puzzles.edge_matching.board import BOTTOM, LEFT, RIGHT, TOP
from puzzles.edge_matching.scores import border_zero, unmatched_inner

# Triangle corners of a unit cell (x right, y down), per side [left, top, right, bottom].
_TRIANGLES = np.array(
    [
        [(0, 0), (0.5, 0.5), (0, 1)],
        [(0, 0), (0.5, 0.5), (1, 0)],
        [(1, 0), (0.5, 0.5), (1, 1)],
        [(0, 1), (0.5, 0.5), (1, 1)],
    ],
    dtype=float,
)
_SIDES = np.array([[(0, 0), (0, 1)], [(0, 0), (1, 0)], [(1, 0), (1, 1)], [(0, 1), (1, 1)]], dtype=float)


def palette(colours: int) -> np.ndarray:
    """RGBA per colour id: 0 (the border) black, the others spread over a qualitative map."""
    cmap = matplotlib.colormaps["tab20" if colours <= 20 else "turbo"]
    points = np.arange(colours) / 20 if colours <= 20 else np.linspace(0.05, 0.95, colours)
    rgba = np.vstack([[0, 0, 0, 1], cmap(points)])
    return rgba if colours <= 20 else rgba[np.r_[0, 1 + np.random.default_rng(0).permutation(colours)]]


def bad_sides(board: np.ndarray) -> np.ndarray:
    """(n, n, 4) True where a side does not match: its inner edge is unmatched, or it is not 0 outside."""
    bad = np.zeros(board.shape, dtype=bool)
    across, down = unmatched_inner(board)
    bad[:, :-1, RIGHT] |= across
    bad[:, 1:, LEFT] |= across
    bad[:-1, :, BOTTOM] |= down
    bad[1:, :, TOP] |= down
    left, top, right, bottom = border_zero(board)
    bad[:, 0, LEFT] |= ~left
    bad[0, :, TOP] |= ~top
    bad[:, -1, RIGHT] |= ~right
    bad[-1, :, BOTTOM] |= ~bottom
    return bad


def draw_board(board: np.ndarray, ax=None, title: str | None = None):
    """Draw an (n, m, 4) colour board; unmatched sides get a red line."""
    n, m = board.shape[:2]
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4.0, 0.4 * m + 1), max(4.0, 0.4 * n + 1) + 0.4))
    rows, cols = np.divmod(np.arange(n * m), m)
    offsets = np.stack([cols, rows], axis=1).astype(float)[:, None, None, :]
    polys = (_TRIANGLES[None] + offsets).reshape(-1, 3, 2)
    rgba = palette(int(board.max()))[board.reshape(-1)]
    ax.add_collection(PolyCollection(polys, facecolors=rgba, edgecolors="grey", linewidths=0.3))
    bad = bad_sides(board).reshape(-1, 4)
    segments = (_SIDES[None] + offsets)[bad]
    ax.add_collection(LineCollection(segments, colors="red", linewidths=2.5))
    ax.set_xlim(-0.15, m + 0.15)
    ax.set_ylim(n + 0.15, -0.15)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_xticks([])
    ax.set_yticks([])
    if title:
        ax.set_title(title, fontsize=9)
    return ax.figure
