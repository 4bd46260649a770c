"""Pictures of solutions, shared by the puzzles (matplotlib, no screen needed)."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import numpy as np


def piece_colour(k: int):
    """A distinct colour for piece id k (tab20's strong shades first, then its pale ones)."""
    tab20 = matplotlib.colormaps["tab20"]
    return tab20(((k - 1) * 2) % 20 + ((k - 1) // 10) % 2)


def draw_grid(grid: np.ndarray, ax=None, title: str | None = None, labels=None):
    """Draw a grid of piece ids (0 = empty) as coloured cells, each labelled with its id."""
    if ax is None:
        _, ax = plt.subplots(figsize=(0.5 * grid.shape[1] + 1, 0.5 * grid.shape[0] + 1))
    ids = int(grid.max())
    colours = np.ones(grid.shape + (4,))
    for k in range(1, ids + 1):
        colours[grid == k] = piece_colour(k)
    ax.imshow(colours, interpolation="nearest")
    for (r, c), v in np.ndenumerate(grid):
        text = labels[r][c] if labels is not None else (str(v) if v else "")
        ax.text(c, r, text, ha="center", va="center", fontsize=8)
    ax.set_xticks(np.arange(-0.5, grid.shape[1]), minor=True)
    ax.set_yticks(np.arange(-0.5, grid.shape[0]), minor=True)
    ax.grid(which="minor", color="black", linewidth=0.5)
    ax.tick_params(which="both", length=0, labelbottom=False, labelleft=False)
    if title:
        ax.set_title(title)
    return ax.figure
