"""The scores users read, computed with numpy on an (n, m, 4) colour board (see `colour_board`).

Inner edges fail by the one rule `board.unmatched_edge`, applied here to whole rows of edges.
"""

from __future__ import annotations

import numpy as np

from puzzles.edge_matching.board import BOTTOM, LEFT, RIGHT, TOP, inner_edges, unmatched_edge

SCORES = {
    "match_rate": "the seed's accuracy: matching sides (border sides carrying 0 included) / (4 n m)",
    "edge_score": "matched inner edges (same colour, not 0) / (2nm - n - m), the Eternity II score",
    "matched_edges": "inner edges whose two sides carry the same colour other than 0",
    "unmatched_edges": "inner edges that do not match: the fitness optimisers minimise",
    "border_sides_ok": "border sides carrying colour 0, out of 2 (n + m)",
    "duplicates": "cells holding a piece already placed elsewhere (only the seed-faithful greedy makes these)",
}


def facing_sides(board: np.ndarray) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """The two sides of every inner edge: (right, next cell's left) per row, (bottom, top below) per column."""
    return (board[:, :-1, RIGHT], board[:, 1:, LEFT]), (board[:-1, :, BOTTOM], board[1:, :, TOP])


def unmatched_inner(board: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n, m-1) edges between row neighbours and (n-1, m) between column neighbours: True where unmatched."""
    across, down = facing_sides(board)
    return unmatched_edge(*across), unmatched_edge(*down)


def border_zero(board: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per border side, left, top, right and bottom of the board: True where it carries the border colour."""
    return board[:, 0, LEFT] == 0, board[0, :, TOP] == 0, board[:, -1, RIGHT] == 0, board[-1, :, BOTTOM] == 0


def board_scores(board: np.ndarray) -> dict[str, float]:
    """Both scores (and their counts) of an (n, m, 4) colour board; see SCORES."""
    n, m = board.shape[:2]
    equal = sum(int((a == b).sum()) for a, b in facing_sides(board))
    unmatched = sum(int(bad.sum()) for bad in unmatched_inner(board))
    border = sum(int(ok.sum()) for ok in border_zero(board))
    return {
        "match_rate": (border + 2 * equal) / (4 * n * m),
        "edge_score": (inner_edges(n, m) - unmatched) / inner_edges(n, m),
        "matched_edges": inner_edges(n, m) - unmatched,
        "unmatched_edges": unmatched,
        "border_sides_ok": border,
    }
