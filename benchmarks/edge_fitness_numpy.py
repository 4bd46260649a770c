"""Baseline: the edge-matching fitness written plainly with numpy (vectorised, no compiler).

Same meaning as `EdgeMatching.fitness`: the genome's board (the puzzle's numpy `decode`: on a
turning puzzle with a grey frame, pieces fill the cells of their class in genome order, border
pieces turned grey side out), and the number of inner edges whose two sides differ or carry the
border colour 0, counted with array operations.
"""

from __future__ import annotations

import numpy as np


def unmatched_numpy(genome, puzzle) -> int:
    """Unmatched inner edges of the genome's board, with numpy array operations only."""
    layout = puzzle.decode(np.asarray(genome))
    n, m = puzzle.n, puzzle.m
    board = puzzle.table[layout.piece, layout.rotation].reshape(n, m, 4)
    right, left = board[:, :-1, 2], board[:, 1:, 0]
    bottom, top = board[:-1, :, 3], board[1:, :, 1]
    return int(((right != left) | (right == 0)).sum() + ((bottom != top) | (bottom == 0)).sum())
