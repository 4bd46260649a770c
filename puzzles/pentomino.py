"""Polyomino packing into a strip with the bottom-left decoder of seed 002.

Each piece, in genome order, goes to the first position (rows top-down, then columns left-right)
where its bounding box lies inside the strip and its cells overlap nothing. The fitness is the gap
count: the empty cells in the rows down to the last occupied one.

The board is one uint64 bitmask per row (bit j = column j), and the packing loop is compiled
with numba: this is the hot path of every pentomino experiment.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from puzzles.errors import PuzzleInputError
from puzzles.pieces import Piece, orientations, read_pieces
from puzzles.space import PermutationSpace

MAX_WIDTH = 63


@dataclass(frozen=True)
class Layout:
    """A decoded packing: `grid[r, c]` is the piece id there (0 = empty), `rows` its height."""

    grid: np.ndarray
    placements: np.ndarray  # per genome position: piece index, orientation, row, col

    @property
    def rows(self) -> int:
        return self.grid.shape[0]

    @property
    def gaps(self) -> int:
        return int((self.grid == 0).sum())


@numba.njit(cache=True, nogil=True)
def _pack(order, orient, masks, heights, widths, width, board, placements):
    """Bottom-left packing into `board`; returns the number of rows used."""
    board[:] = 0
    full = (np.uint64(1) << np.uint64(width)) - np.uint64(1)
    low, used = 0, 0
    for k in range(order.shape[0]):
        p = order[k]
        o = orient[p]
        h, w = heights[p, o], widths[p, o]
        i = low
        while True:
            col = -1
            for j in range(width - w + 1):
                fits = True
                for r in range(h):
                    if board[i + r] & (masks[p, o, r] << np.uint64(j)):
                        fits = False
                        break
                if fits:
                    col = j
                    break
            if col >= 0:
                break
            i += 1
        for r in range(h):
            board[i + r] |= masks[p, o, r] << np.uint64(col)
        placements[k, 0], placements[k, 1], placements[k, 2], placements[k, 3] = p, o, i, col
        used = max(used, i + h)
        while board[low] == full:  # a full row can hold no piece's top row
            low += 1
    return used


def _row_masks(cells: np.ndarray) -> np.ndarray:
    """One bitmask per row of an oriented piece."""
    masks = np.zeros(cells[:, 0].max() + 1, dtype=np.uint64)
    for r, c in cells:
        masks[r] |= np.uint64(1) << np.uint64(c)
    return masks


class PentominoStrip:
    """Pack polyominoes into a strip of fixed width; minimise the gap count.

    Args:
        width: strip width in cells.
        orientations: "fixed" (pieces as drawn, the seed's) or "free" (the genome also picks a
            rotation or reflection per piece; only those that fit the width are offered).
        pieces: a piece file, or the name of a bundled set ("pentominoes").
    """

    name = "pentomino"

    def __init__(self, width: int = 6, orientations: str = "fixed", pieces: str = "pentominoes"):
        if orientations not in ("fixed", "free"):
            raise PuzzleInputError(
                f"puzzle.orientations must be 'fixed' or 'free', got {orientations!r}")
        if not 1 <= width <= MAX_WIDTH:
            raise PuzzleInputError(f"puzzle.width must be between 1 and {MAX_WIDTH}, got {width}")
        self.width, self.orientations, self.pieces_name = width, orientations, str(pieces)
        self.pieces: list[Piece] = read_pieces(pieces)
        self.shapes = [self._fitting_orientations(p) for p in self.pieces]
        self.cells = sum(p.size for p in self.pieces)
        self._tables()
        free = orientations == "free"
        self.space = PermutationSpace(
            len(self.pieces), tuple(len(s) for s in self.shapes) if free else ())

    def _fitting_orientations(self, piece: Piece) -> list[np.ndarray]:
        """The piece's orientations that fit the strip, or a clear error if none does."""
        shapes = orientations(piece) if self.orientations == "free" else [piece.cells]
        fitting = [s for s in shapes if s[:, 1].max() < self.width]
        if not fitting:
            narrowest = min(int(s[:, 1].max()) + 1 for s in shapes)
            raise PuzzleInputError(
                f"the strip (width {self.width}) is narrower than piece {piece.id} ({piece.name}, "
                f"{narrowest} wide); use puzzle.width >= {narrowest}"
                + (" or puzzle.orientations=free" if self.orientations == "fixed" else ""))
        return fitting

    def _tables(self):
        """Flat numpy tables of row masks, heights and widths for the compiled decoder."""
        n, most = len(self.shapes), max(len(s) for s in self.shapes)
        tallest = max(int(s[:, 0].max()) + 1 for shapes in self.shapes for s in shapes)
        self.masks = np.zeros((n, most, tallest), dtype=np.uint64)
        self.heights = np.zeros((n, most), dtype=np.int64)
        self.widths = np.zeros((n, most), dtype=np.int64)
        for p, shapes in enumerate(self.shapes):
            for o, cells in enumerate(shapes):
                rows = _row_masks(cells)
                self.masks[p, o, : len(rows)] = rows
                self.heights[p, o] = len(rows)
                self.widths[p, o] = cells[:, 1].max() + 1
        self._board_rows = int(sum(self.heights.max(axis=1))) + tallest
        self._no_turns = np.zeros(n, dtype=np.int64)

    @property
    def known_optimum(self) -> float | None:
        """Best possible gap count, where it is known (see README: how each was established)."""
        if self.pieces_name != "pentominoes":
            return None
        if self.orientations == "fixed":
            return 12.0 if self.width == 6 else None
        return 0.0 if self.width in (3, 4, 5, 6, 10, 12, 15, 20) else None

    def params(self) -> dict[str, Any]:
        return {"width": self.width, "orientations": self.orientations, "pieces": self.pieces_name}

    def _run(self, genome: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
        genome = np.asarray(genome, dtype=np.int64)
        order, orient = self.space.split(genome)
        board = np.zeros(self._board_rows, dtype=np.uint64)
        placements = np.zeros((len(order), 4), dtype=np.int64)
        rows = _pack(order, self._no_turns if orient is None else orient, self.masks,
                     self.heights, self.widths, self.width, board, placements)
        return rows, board, placements

    def fitness(self, genome: np.ndarray) -> float:
        """Gap count of the bottom-left packing (lower is better)."""
        rows, _, _ = self._run(genome)
        return float(rows * self.width - self.cells)

    def score(self, genome: np.ndarray) -> dict[str, float]:
        layout = self.decode(genome)
        return {"gaps": layout.gaps, "rows": layout.rows}

    def decode(self, genome: np.ndarray) -> Layout:
        """The packing as a grid of piece ids, with each piece's placement."""
        rows, _, placements = self._run(genome)
        grid = np.zeros((rows, self.width), dtype=np.int64)
        for p, o, r, c in placements:
            cells = self.shapes[p][o]
            grid[cells[:, 0] + r, cells[:, 1] + c] = self.pieces[p].id
        return Layout(grid, placements)

    def draw(self, layout: Layout, ax=None):
        """A coloured grid with piece ids (the seed's picture, labelled)."""
        from puzzles.pictures import draw_grid
        return draw_grid(layout.grid, ax=ax, title=f"{layout.gaps} gaps, {layout.rows} rows")
