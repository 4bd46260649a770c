"""Polyomino packing into a strip with the bottom-left decoder of seed 002.

Each piece, in genome order, goes to the first position (rows top-down, then columns left-right)
where its bounding box lies inside the strip and its cells overlap nothing. The fitness is the gap
count: the empty cells in the rows down to the last occupied one.

The board is one uint64 bitmask per row (bit j = column j), and the packing loop is compiled
with numba: this is the hot path of every pentomino experiment (benchmarks/bench_pentomino_decoder.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from core.errors import InputError
from core.faces import ConstructiveSolver, Face, LocalSearchFace
from core.space import PermutationSpace
from puzzles.pieces import Piece, orientations, read_pieces

MAX_WIDTH = 63


@dataclass(frozen=True)
class StripPacking:
    """A decoded packing: `grid[r, c]` is the piece id there (0 = empty), `rows` its height."""

    grid: np.ndarray
    placements: np.ndarray  # per genome position: piece index, orientation, row, col

    @property
    def rows(self) -> int:
        return self.grid.shape[0]

    @property
    def gaps(self) -> int:
        return int((self.grid == 0).sum())


@numba.njit(cache=True)
def _place(board, cells, dims, p, o, width, low):
    """First (row, col), rows top-down then columns left-right, where piece p in orientation o fits.

    Bit-parallel over columns: a shift j is blocked if any cell (r, c) meets a filled board bit
    c + j, so OR-ing `board[i + r] >> c` over the piece's cells gives every blocked shift at once.
    """
    w, k = dims[p, o, 1], dims[p, o, 2]
    shifts = (np.uint64(1) << np.uint64(width - w + 1)) - np.uint64(1)
    i = low
    while True:
        blocked = np.uint64(0)
        for q in range(k):
            blocked |= board[i + cells[p, o, q, 0]] >> np.uint64(cells[p, o, q, 1])
        free = shifts & ~blocked
        if free:
            col = 0
            while not (free >> np.uint64(col)) & np.uint64(1):
                col += 1
            return i, col
        i += 1


@numba.njit(cache=True)
def _pack(genome, n, oriented, cells, dims, width, rows, placements):
    """Bottom-left packing of the genome's order; returns the number of rows used.

    `placements` (one row per position: piece, orientation, row, col) is filled when given.
    """
    board = np.zeros(rows, dtype=np.uint64)
    full = (np.uint64(1) << np.uint64(width)) - np.uint64(1)
    low, used = 0, 0
    for pos in range(n):
        p = genome[pos]
        o = genome[n + p] if oriented else 0
        i, col = _place(board, cells, dims, p, o, width, low)
        for q in range(dims[p, o, 2]):
            board[i + cells[p, o, q, 0]] |= np.uint64(1) << np.uint64(cells[p, o, q, 1] + col)
        if placements.shape[0]:
            placements[pos, 0], placements[pos, 1], placements[pos, 2], placements[pos, 3] = p, o, i, col
        used = max(used, i + dims[p, o, 0])
        while board[low] == full:  # a full row can hold no piece's top row
            low += 1
    return used


def _copies(pieces: list[Piece], copies: int) -> list[Piece]:
    """The set repeated `copies` times, copy k's ids offset by k times the largest id."""
    top = max(p.id for p in pieces)
    return [Piece(p.id + k * top, p.name, p.cells) for k in range(copies) for p in pieces]


class PentominoStrip:
    """Pack polyominoes into a strip of fixed width; minimise the gap count.

    Args:
        width: strip width in cells.
        orientations: "fixed" (pieces as drawn, the seed's) or "free" (the genome also picks a
            rotation or reflection per piece; only those that fit the width are offered).
        pieces: a piece file, or the name of a bundled set ("pentominoes", "hexominoes").
        copies: how many copies of the set to pack (each copy's ids offset by the set's largest id).
        tie_break, repack: the local-search face's settings (`local_search`): its fitness is gaps *
            tie_break plus the cells past the area bound (capped below tie_break), and its large step
            re-packs the last `repack` pieces exactly.
    """

    name = "pentomino"
    offers = frozenset({Face.FITNESS, Face.LOCAL_SEARCH})
    score_name = "gaps"
    instance_keys: tuple[str, ...] = ()  # one instance per setting: runs never pair up on instances

    def __init__(
        self,
        width: int = 6,
        orientations: str = "fixed",
        pieces: str = "pentominoes",
        copies: int = 1,
        tie_break: int = 4,
        repack: int = 10,
    ):
        if copies < 1 or tie_break < 1 or repack < 1:
            raise InputError(
                f"puzzle.copies, tie_break and repack must be >= 1, got {copies}, {tie_break}, {repack}"
            )
        if orientations not in ("fixed", "free"):
            raise InputError(f"puzzle.orientations must be 'fixed' or 'free', got {orientations!r}")
        if not 1 <= width <= MAX_WIDTH:
            raise InputError(f"puzzle.width must be between 1 and {MAX_WIDTH}, got {width}")
        self.width, self.orientations, self.pieces_name = width, orientations, str(pieces)
        self.copies, self.tie_break, self.repack = copies, tie_break, repack
        self.pieces: list[Piece] = _copies(read_pieces(pieces), copies)
        self.shapes = [self._fitting_orientations(p) for p in self.pieces]
        self.area = sum(p.size for p in self.pieces)
        self._tables()
        free = orientations == "free"
        self.space = PermutationSpace(len(self.pieces), tuple(len(s) for s in self.shapes) if free else ())

    def _fitting_orientations(self, piece: Piece) -> list[np.ndarray]:
        """The piece's orientations that fit the strip, or a clear error if none does."""
        shapes = orientations(piece) if self.orientations == "free" else [piece.cells]
        fitting = [s for s in shapes if s[:, 1].max() < self.width]
        if not fitting:
            narrowest = min(int(s[:, 1].max()) + 1 for s in shapes)
            raise InputError(
                f"the strip (width {self.width}) is narrower than piece {piece.id} ({piece.name}, "
                f"{narrowest} wide); use puzzle.width >= {narrowest}"
                + (" or puzzle.orientations=free" if self.orientations == "fixed" else "")
            )
        return fitting

    def _tables(self):
        """Flat numpy tables of cells and extents for the compiled decoder."""
        n, most = len(self.shapes), max(len(s) for s in self.shapes)
        size = max(len(s) for shapes in self.shapes for s in shapes)
        self._cells = np.zeros((n, most, size, 2), dtype=np.int64)
        self._dims = np.zeros((n, most, 3), dtype=np.int64)  # height, width, cell count
        for p, shapes in enumerate(self.shapes):
            for o, cells in enumerate(shapes):
                self._cells[p, o, : len(cells)] = cells
                self._dims[p, o] = cells[:, 0].max() + 1, cells[:, 1].max() + 1, len(cells)
        self._rows = int(self._dims[:, :, 0].max(axis=1).sum()) + int(self._dims[:, :, 0].max())
        self._no_placements = np.zeros((0, 4), dtype=np.int64)

    @property
    def known_optimum(self) -> float | None:
        """Best possible gap count, where it is known (docs/puzzles/packing.md, "Known optima", says how each was established)."""
        if self.pieces_name != "pentominoes":
            return None
        if self.copies == 2:  # two rectangles stacked: tests/puzzles/test_packing_suite.py
            return 0.0 if self.orientations == "free" and self.width in (6, 10) else None
        if self.copies > 1:
            return None
        if self.orientations == "fixed":  # exhaustive search: tests/oracles/pentomino_exhaustive.py
            return {6: 12.0, 7: 10.0}.get(self.width)
        if self.width in (7, 8):  # the area bound, met by a genome in tests/puzzles/test_packing_suite.py
            return float(self.area_bound)
        return 0.0 if self.width in (3, 4, 5, 6, 10, 12, 15, 20) else None

    @property
    def area_bound(self) -> int:
        """Fewest gaps any packing can have: the cells left in the rows the pieces' area needs."""
        return -(-self.area // self.width) * self.width - self.area

    def _pack(self, genome, placements) -> int:
        genome = np.asarray(genome, dtype=np.int64)
        return _pack(
            genome,
            self.space.n,
            bool(self.space.orientations),
            self._cells,
            self._dims,
            self.width,
            self._rows,
            placements,
        )

    def fitness(self, genome: np.ndarray) -> float:
        """Gap count of the bottom-left packing (lower is better)."""
        return float(self._pack(genome, self._no_placements) * self.width - self.area)

    def local_search(self, start: str | ConstructiveSolver = "random", **mix: float) -> LocalSearchFace:
        """The compiled local-search face: moves priced by re-packing from the first changed position
        (puzzles/strip_search.py), a large step that re-packs the last pieces exactly; `mix` overrides
        the move weights. `start` names the face protocol's built start (a solver, or greedy by
        name), which a strip has none of: its face offers only its random start."""
        from puzzles import strip_search as face

        scale = self.tie_break
        inst = face.build_instance(self, scale, **{"repack": self.repack, **mix})
        oriented = bool(self.space.orientations)
        return LocalSearchFace(
            face.propose,
            face.delta,
            face.apply,
            face.fitness,
            inst,
            start=lambda rng: face.state_from_genome(inst, self.space.random(rng)),
            genome=lambda st: face.genome_of(inst, st, oriented),
            repair=face.repack,
            scale=scale,
        )

    def score(self, genome: np.ndarray) -> dict[str, float]:
        layout = self.decode(genome)
        return {"gaps": layout.gaps, "rows": layout.rows}

    def decode(self, genome: np.ndarray) -> StripPacking:
        """The packing as a grid of piece ids, with each piece's placement."""
        placements = np.zeros((self.space.n, 4), dtype=np.int64)
        rows = self._pack(genome, placements)
        grid = np.zeros((rows, self.width), dtype=np.int64)
        for p, o, r, c in placements:
            cells = self.shapes[p][o]
            grid[cells[:, 0] + r, cells[:, 1] + c] = self.pieces[p].id
        return StripPacking(grid, placements)

    def text(self, layout: StripPacking) -> str:
        """The packing as rows of piece letters ('.' for a gap), for the console."""
        names = {p.id: p.name for p in self.pieces}
        return "\n".join(" ".join(names.get(int(v), ".") for v in row) for row in layout.grid)

    def draw(self, layout: StripPacking, ax=None):
        """A coloured grid with piece ids (the seed's picture, labelled)."""
        from puzzles.pictures import draw_grid

        return draw_grid(layout.grid, ax=ax, title=f"{layout.gaps} gaps, {layout.rows} rows")
