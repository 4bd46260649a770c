"""The board's vocabulary: sides, turns, the filled board (`Layout`) and pre-placed pieces (hints).

Pieces are listed as [left, top, right, bottom] colours; colour 0 is the border. A board has n rows
and m columns (square unless a piece file or generator says otherwise); cells are numbered
row-major from the top-left. A piece turned r clockwise quarter turns shows on side s
the listed side (s - r) mod 4.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import overload

import numba
import numpy as np

from core.errors import InputError

LEFT, TOP, RIGHT, BOTTOM = 0, 1, 2, 3
DR = (0, -1, 0, 1)  # row and column steps to the neighbour across side s: [left, top, right, bottom]
DC = (-1, 0, 1, 0)
EMPTY = -1  # an empty cell, a missing neighbour
MAX_COLOUR = 2**15 - 1  # the compiled fitness packs a piece's four colours in one 64-bit word


@overload
def unmatched_edge(a: int | np.integer, b: int | np.integer) -> bool | np.bool_: ...


@overload
def unmatched_edge(a: np.ndarray, b: np.ndarray) -> np.ndarray: ...


def unmatched_edge(
    a: int | np.integer | np.ndarray, b: int | np.integer | np.ndarray
) -> bool | np.bool_ | np.ndarray:
    """The edge-matching rule, in one place: an inner edge whose two sides show colours a and b is
    unmatched when they differ or carry the border colour 0.

    Written with plain operators so that one definition serves numpy arrays (element by element)
    and compiled loops (wrap it once with `numba.njit(inline="always")`; it costs nothing there).
    """
    return (a != b) | (a == 0)


unmatched_join = numba.njit(inline="always")(unmatched_edge)  # the rule inside compiled kernels


def neighbours(n: int, m: int) -> np.ndarray:
    """nb[cell, s]: the cell across side s ([left, top, right, bottom]) of each cell, EMPTY off the board."""
    rows, cols = np.divmod(np.arange(n * m), m)
    nb = np.full((n * m, 4), EMPTY, np.int64)
    for s in range(4):
        r, c = rows + DR[s], cols + DC[s]
        inside = (r >= 0) & (r < n) & (c >= 0) & (c < m)
        nb[inside, s] = r[inside] * m + c[inside]
    return nb


def grey_patterns(table: np.ndarray, n: int, m: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each orient's grey pattern (a bit per grey side, orient = piece * turns + turn, from a turn
    table[piece, turn, side]) and each cell's (a bit per side off the board) on n rows of m cells
    (m = n: a square). A piece fits a cell, grey sides out, when the two patterns are equal."""
    m = n if m is None else m
    orients = ((table == 0) * (1 << np.arange(4))).sum(axis=2).ravel()
    rows, cols = np.divmod(np.arange(n * m), m)
    off = np.stack([cols == 0, rows == 0, cols == m - 1, rows == n - 1], axis=1)
    return orients.astype(np.int64), (off * (1 << np.arange(4))).sum(axis=1).astype(np.int64)


def inner_edges(n: int, m: int | None = None) -> int:
    """Edges between two cells of an n x m board (m = n: square), 2nm - n - m: the most colours it holds."""
    m = n if m is None else m
    return 2 * n * m - n - m


def turn_table(sides: np.ndarray, rotations: bool = True) -> np.ndarray:
    """table[p, r, s]: the colour side s shows when piece p is turned r quarter turns clockwise.

    All four turns with `rotations`, else only r = 0 (a table of the turns a piece may take).
    """
    turns = 4 if rotations else 1
    shown = (np.arange(4)[None, :] - np.arange(turns)[:, None]) % 4
    return np.ascontiguousarray(np.asarray(sides)[:, shown], dtype=np.int64)


@dataclass(frozen=True)
class Layout:
    """A filled board of n rows: per cell (row-major), the piece index and its clockwise quarter turns."""

    n: int
    piece: np.ndarray
    rotation: np.ndarray

    @property
    def m(self) -> int:
        """Columns: the cells over the rows."""
        return len(self.piece) // self.n

    def grid(self) -> np.ndarray:
        """Piece indices as an n x m array."""
        return self.piece.reshape(self.n, self.m)


@dataclass(frozen=True)
class GreyRules:
    """Where Eternity II's rules put each free piece: corners in corners, frame pieces on the frame with
    their grey side out, inner pieces inside (a class is a count of grey sides, or of sides on the rim).

    cells: the free cells of class 0 (inner), 1 (frame), 2 (corner), each row-major.
    piece_class, piece_grey: per free piece (in the puzzle's free-piece order), its class and first grey
        side clockwise (for a corner, the one whose clockwise successor is grey too; 0 for inner pieces).
    out_side: per cell, its first side on the rim clockwise (as the piece's first grey side; -1 inside).
    """

    cells: tuple[np.ndarray, np.ndarray, np.ndarray]
    piece_class: np.ndarray
    piece_grey: np.ndarray
    out_side: np.ndarray


def rim(n: int, m: int) -> np.ndarray:
    """(n m, 4) booleans: is side s ([left, top, right, bottom]) of each cell on the board's edge?"""
    r, c = np.divmod(np.arange(n * m), m)
    return np.stack([c == 0, r == 0, c == m - 1, r == n - 1], axis=1)


def colour_board(layout: Layout, table: np.ndarray) -> np.ndarray:
    """(n, m, 4) colours each cell shows on [left, top, right, bottom]."""
    return table[layout.piece, layout.rotation].reshape(layout.n, layout.m, 4)


def turn_layout(layout: Layout) -> Layout:
    """The whole board turned a quarter clockwise: cell (r, c) goes to (c, n-1-r), each piece turns once
    (an n x m board becomes m x n)."""
    piece = np.rot90(layout.grid(), k=-1)
    rotation = (np.rot90(layout.rotation.reshape(layout.n, layout.m), k=-1).ravel() + 1) % 4
    return Layout(piece.shape[0], piece.ravel(), rotation)


def check_hints(hints, n: int, m: int, pieces: int, where: str) -> None:
    """Each hint (row, col, piece, turns) names a cell of the n x m board, a listed piece and a quarter turn."""
    for row, col, piece, turns in hints:
        if not (0 <= row < n and 0 <= col < m and 0 <= piece < pieces and 0 <= turns < 4):
            raise InputError(
                f"{where}: hint {row} {col} {piece} {turns} is off the board or names no piece; "
                f"use 0 <= row < {n}, 0 <= col < {m}, 0 <= piece < {pieces}, 0 <= rotation < 4"
            )
