"""An independent validator of packing solutions, sharing no geometry code with puzzles/.

It rebuilds each piece's allowed images with numpy's rot90/flip on 0/1 arrays (not the signed
permutation matrices of puzzles.pieces) and checks a solution cell by cell.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np


def _grid(cells) -> np.ndarray:
    """A set of integer cells as a 0/1 array of its bounding box."""
    cells = np.array(sorted(cells))
    cells = cells - cells.min(axis=0)
    grid = np.zeros(cells.max(axis=0) + 1, dtype=np.uint8)
    grid[tuple(cells.T)] = 1
    return grid


def _key(grid: np.ndarray) -> tuple:
    """A hashable picture of an array, shape included."""
    return grid.shape, grid.tobytes()


def images(cells, mirror: bool) -> set:
    """Every rotation (and, if `mirror`, reflection) of a 2D or 3D piece, as picture keys."""
    return _images(tuple(tuple(int(v) for v in c) for c in cells), mirror)


@functools.cache
def _images(cells: tuple, mirror: bool) -> frozenset:
    """images(), cached per piece."""
    start = _grid(cells)
    planes = list(itertools.combinations(range(start.ndim), 2))
    seeds = [start, np.flip(start, axis=0)] if mirror else [start]
    seen, todo = {}, list(seeds)
    while todo:
        g = todo.pop()
        if _key(g) in seen:
            continue
        seen[_key(g)] = g
        todo += [np.rot90(g, 1, axes) for axes in planes]
    return frozenset(seen)


def check_packing(board_cells, pieces_cells, placed, mirror: bool, open_cells=()) -> None:
    """Assert a packing is valid.

    board_cells: the board's cells; pieces_cells: each piece's cells as drawn; placed: a list of
    (piece index, absolute cells); open_cells: board cells that must stay uncovered.
    """
    board = {tuple(int(v) for v in c) for c in board_cells}
    open_ = {tuple(int(v) for v in c) for c in open_cells}
    assert open_ <= board, "open cells must lie on the board"
    used = sorted(p for p, _ in placed)
    assert used == list(range(len(pieces_cells))), f"each piece exactly once, got {used}"
    covered: list[tuple] = []
    for p, cells in placed:
        cells = [tuple(int(v) for v in c) for c in cells]
        assert set(cells) <= board, f"piece {p} leaves the board"
        assert _key(_grid(cells)) in images(pieces_cells[p], mirror), f"piece {p} is misshapen"
        covered += cells
    assert len(covered) == len(set(covered)), "pieces overlap"
    assert set(covered) == board - open_, "covered cells must be the board less the open cells"
