"""Polyomino and polycube pieces: read from ASCII art, turned into every distinct orientation.

A piece is a set of integer cells, (row, col) in 2D or (layer, row, col) in 3D, normalised so that
the smallest coordinate on every axis is 0. Orientations are the distinct images of a piece under
the symmetries of the square (2D) or cube (3D).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.errors import InputError
from puzzles.edge_matching.piece_files import read_text_file

DATA = Path(__file__).parent / "data"
FILLED, EMPTY, LAYER_BREAK = "#", ".", "~"


@dataclass(frozen=True)
class Piece:
    """A named piece; `cells` is a sorted (k, d) int array, normalised to start at the origin."""

    id: int
    name: str
    cells: np.ndarray

    @property
    def size(self) -> int:
        return len(self.cells)

    @property
    def shape(self) -> tuple[int, ...]:
        """Extent of the bounding box on each axis."""
        return tuple(int(x) for x in self.cells.max(axis=0) + 1)

    def grid(self) -> np.ndarray:
        """The piece as a 0/1 array of its bounding box."""
        g = np.zeros(self.shape, dtype=np.int8)
        g[tuple(self.cells.T)] = 1
        return g


def normalise(cells: np.ndarray) -> np.ndarray:
    """Shift cells to the origin and sort them, so equal shapes compare equal."""
    cells = np.asarray(cells, dtype=np.int64)
    cells = cells - cells.min(axis=0)
    return cells[np.lexsort(cells.T[::-1])]


def _square_symmetries(reflections: bool) -> list[np.ndarray]:
    """The 2x2 matrices of the square's symmetry group (rotations, optionally reflections)."""
    rot = np.array([[0, -1], [1, 0]])
    mats = [np.linalg.matrix_power(rot, k) for k in range(4)]
    if reflections:
        mats += [m @ np.array([[1, 0], [0, -1]]) for m in mats]
    return mats


def _cube_symmetries(reflections: bool) -> list[np.ndarray]:
    """The 3x3 signed permutation matrices: 24 rotations, 48 with mirror images."""
    mats = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = np.zeros((3, 3), dtype=np.int64)
            m[range(3), perm] = signs
            if reflections or round(np.linalg.det(m)) == 1:
                mats.append(m)
    return mats


def symmetries(dim: int, reflections: bool = True) -> list[np.ndarray]:
    """Symmetry matrices of the square (dim 2) or the cube (dim 3); identity first."""
    if dim == 2:
        return _square_symmetries(reflections)
    if dim == 3:
        mats = _cube_symmetries(reflections)
        return sorted(mats, key=lambda m: not np.array_equal(m, np.eye(3)))
    raise InputError(f"pieces must be 2D or 3D, got {dim}D")


def orientations(piece: Piece, reflections: bool = True) -> list[np.ndarray]:
    """Every distinct orientation of a piece as normalised cells; the piece as drawn comes first."""
    seen, result = set(), []
    for m in symmetries(piece.cells.shape[1], reflections):
        cells = normalise(piece.cells @ m.T)
        key = cells.tobytes()
        if key not in seen:
            seen.add(key)
            result.append(cells)
    return result


def _parse_block(lines: list[tuple[int, str]], source: str) -> Piece:
    """One piece: a header line then its art, layers split by LAYER_BREAK."""
    lineno, header = lines[0]
    parts = header.split()
    if len(parts) != 2 or not parts[0].isdigit():
        raise InputError(f"{source}:{lineno}: expected a piece header '<id> <name>', got {header!r}")
    layers: list[list[str]] = []
    current: list[str] = []
    for n, text in lines[1:]:
        if text == LAYER_BREAK:
            layers.append(current)
            current = []
            continue
        bad = set(text) - {FILLED, EMPTY}
        if bad:
            raise InputError(
                f"{source}:{n}: piece {parts[0]} uses {''.join(sorted(bad))!r}; "
                f"draw cells with '{FILLED}' and empty space with '{EMPTY}'"
            )
        current.append(text)
    layers.append(current)
    cells = [
        (z, r, c)
        for z, rows in enumerate(layers)
        for r, row in enumerate(rows)
        for c, ch in enumerate(row)
        if ch == FILLED
    ]
    if not cells:
        raise InputError(f"{source}:{lineno}: piece {parts[0]} has no cells ('{FILLED}')")
    arr = np.array(cells)
    if len(layers) == 1:
        arr = arr[:, 1:]
    parts_found = connected_parts(arr)
    if parts_found > 1:
        raise InputError(
            f"{source}:{lineno}: piece {parts[0]} {parts[1]}: its cells are not connected ({parts_found} "
            f"separate parts); cells join by a side, not a corner: draw each part as a piece of its own"
        )
    return Piece(int(parts[0]), parts[1], normalise(arr))


def connected_parts(cells: np.ndarray) -> int:
    """How many side-connected parts the cells form (2D or 3D): a piece is one, or it would be packed
    as one rigid shape whose parts no real piece holds together."""
    left = {tuple(int(x) for x in c) for c in cells}
    count = 0
    while left:
        count += 1
        todo = [left.pop()]
        while todo:
            cell = todo.pop()
            for axis in range(len(cell)):
                for step in (-1, 1):
                    near = cell[:axis] + (cell[axis] + step,) + cell[axis + 1 :]
                    if near in left:
                        left.remove(near)
                        todo.append(near)
    return count


def parse_pieces(text: str, source: str = "<text>") -> list[Piece]:
    """Pieces from the ASCII-art format described in puzzles/data/pentominoes.txt."""
    blocks: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("# ") or line == "#" and not current:
            continue  # a comment: '#' then a space (a row of cells never holds a space)
        if not line:
            if current:
                blocks.append(current)
            current = []
            continue
        current.append((lineno, line))
    if current:
        blocks.append(current)
    pieces = [_parse_block(block, source) for block in blocks]
    if not pieces:
        raise InputError(f"{source}: no pieces found")
    ids = [p.id for p in pieces]
    if len(set(ids)) != len(ids):
        raise InputError(f"{source}: piece ids repeat: {ids}")
    return pieces


def read_pieces(path: str | Path) -> list[Piece]:
    """Pieces from a file; a bare name like 'pentominoes' means the bundled data file. Read as the
    edge-matching piece files are (`read_text_file`): UTF-8, a leading BOM (an editor's) accepted,
    a folder, an unreadable or a binary file refused in one line."""
    path = Path(path)
    if not path.suffix and not path.exists():
        path = DATA / f"{path.name}.txt"
    fix = "give a piece file drawn as puzzles/data/pentominoes.txt is, or a bundled name (pentominoes)"
    return parse_pieces(read_text_file(path, "piece file", fix), str(path))
