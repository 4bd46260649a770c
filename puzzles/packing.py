"""The placement model of a packing puzzle: a board, pieces, and the exact-cover rows between them.

Items are the slots of the board's bounding box, numbered in fill order (down the shortest axis
first, so the first empty cell is the one with fewest ways to fill it), then one item per piece;
slots off the board are simply never used. A row is one placement: a piece, in one orientation, at
one position entirely inside the board. `Packing.cover()` hands the rows to a solver in
heuristics/ as a `core.exact.CoverModel`; solutions come back as rows and turn into cell owners here.

Identical copies of a piece are separate items, so solutions count copies as distinct ("raw");
`canonical` and `count_distinct` merge copies and, if asked, the board's symmetries.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from core.errors import InputError
from core.exact import CoverModel, Regions, bitsets
from puzzles.pieces import Piece, orientations, symmetries


@dataclass(frozen=True)
class Board:
    """A set of cells, (row, col) or (layer, row, col), normalised to start at the origin."""

    cells: np.ndarray

    @property
    def dim(self) -> int:
        return self.cells.shape[1]

    @property
    def shape(self) -> tuple[int, ...]:
        """Extent of the bounding box on each axis."""
        return tuple(int(x) for x in self.cells.max(axis=0) + 1)

    def occupancy(self) -> np.ndarray:
        """The board as a 0/1 array of its bounding box."""
        grid = np.zeros(self.shape, dtype=bool)
        grid[tuple(self.cells.T)] = True
        return grid


def box(*extent: int, holes: Sequence[Sequence[int]] = ()) -> Board:
    """A rectangle (2 extents) or cuboid (3 extents), less the cells in `holes`."""
    if len(extent) not in (2, 3) or min(extent) < 1:
        raise InputError(f"a box needs 2 or 3 positive extents, got {extent}")
    grid = np.ones(extent, dtype=bool)
    for h in holes:
        grid[tuple(h)] = False
    return Board(np.argwhere(grid))


@dataclass(frozen=True)
class Placement:
    """One row of the exact-cover matrix: `piece` (index), `orientation`, board cell indices."""

    piece: int
    orientation: int
    cells: np.ndarray


class Packing:
    """Pieces to place on a board without overlap, every piece once.

    Args:
        board: the cells to fill.
        pieces: one entry per piece to place; repeat a Piece for identical copies.
        reflections: may pieces be turned over (2D) or mirrored (3D)?
        cover: "all" (every cell covered: a tiling) or "any" (cells may stay empty).
        fixed: keep every piece as drawn (no turning at all).
    """

    def __init__(
        self,
        board: Board,
        pieces: Sequence[Piece],
        reflections: bool = True,
        cover: str = "all",
        fixed: bool = False,
    ):
        if cover not in ("all", "any"):
            raise InputError(f"cover must be 'all' or 'any', got {cover!r}")
        if any(p.cells.shape[1] != board.dim for p in pieces):
            raise InputError(f"pieces and board must both be {board.dim}D")
        self.board, self.pieces, self.reflections = board, list(pieces), reflections
        self.cover_rule = cover
        self.strides = _fill_strides(board.shape)
        self.n_slots = int(np.prod(board.shape))
        self.cell_item = board.cells @ self.strides
        self.shapes = [[p.cells] if fixed else orientations(p, reflections) for p in self.pieces]
        self.placements = self._place_all()
        self.masks = self._masks()

    @property
    def n_cells(self) -> int:
        return len(self.board.cells)

    @property
    def n_items(self) -> int:
        """Items: one per slot of the board's bounding box (in fill order), then one per piece."""
        return self.n_slots + len(self.pieces)

    def _place_all(self) -> list[Placement]:
        """Every placement of every piece that lies inside the board."""
        occ = self.board.occupancy()
        index = np.full(occ.shape, -1, dtype=np.int64)
        index[tuple(self.board.cells.T)] = np.arange(self.n_cells)
        result = []
        for p, shapes in enumerate(self.shapes):
            for o, cells in enumerate(shapes):
                room = np.array(occ.shape) - cells.max(axis=0)
                if (room < 1).any():
                    continue
                for offset in np.argwhere(np.ones(room, dtype=bool)):
                    at = tuple((cells + offset).T)
                    if occ[at].all():
                        result.append(Placement(p, o, index[at]))
        return result

    def _masks(self) -> np.ndarray:
        """One bitset per placement: its cells' items and its piece's item."""
        return bitsets(
            ([*self.cell_item[pl.cells], self.n_slots + pl.piece] for pl in self.placements), self.n_items
        )

    def cell_mask(self, cells: Sequence[int]) -> np.ndarray:
        """The bitset of some board cells (by index into board.cells)."""
        return bitsets([self.cell_item[list(cells)]], self.n_items)[0]

    def cover(self, empty: Sequence[int] = (), rule: str | None = None) -> CoverModel:
        """The exact-cover model with the `empty` cells left uncovered (e.g. a calendar's date)."""
        hole = self.cell_mask(empty)
        keep = np.flatnonzero(~(self.masks & hole).any(axis=1))
        primary = self._piece_mask()
        if self.cover_rule == "all":
            primary |= self.cell_mask(range(self.n_cells)) & ~hole
        rule = rule or ("first" if self.cover_rule == "all" else "mrv")
        regions = self._regions(empty) if self.cover_rule == "all" else None
        return CoverModel(self.masks[keep], self.n_items, primary, keep, rule, regions)

    def _regions(self, empty: Sequence[int]) -> Regions | None:
        """Where the cells lie on the grid, for dead-region pruning (if the box fits 64 bits)."""
        if self.n_slots > 64:
            return None
        to_fill = int(self.cell_mask(range(self.n_cells))[0] & ~self.cell_mask(empty)[0])
        slots = np.argwhere(np.ones(self.board.shape, dtype=bool))
        plus = []
        for a, extent in enumerate(self.board.shape):
            has = (slots[slots[:, a] < extent - 1] @ self.strides).astype(np.uint64)
            plus.append(int(np.bitwise_or.reduce(np.uint64(1) << has, initial=np.uint64(0))))
        sizes = [p.size for p in self.pieces]
        return Regions(
            to_fill, tuple(int(s) for s in self.strides), tuple(plus), min(sizes), math.gcd(*sizes)
        )

    def _piece_mask(self) -> np.ndarray:
        """The bitset of the piece items."""
        return bitsets([range(self.n_slots, self.n_items)], self.n_items)[0]

    def owners(self, solution: Sequence[int] | np.ndarray, model: CoverModel | None = None) -> np.ndarray:
        """Which piece covers each board cell (-1 where none does), from a solution's placement
        indices, or from its row indices in `model`."""
        if model is not None:
            solution = model.rows[np.asarray(solution, dtype=np.int64)]
        owner = np.full(self.n_cells, -1, dtype=np.int64)
        for i in solution:
            owner[self.placements[i].cells] = self.placements[i].piece
        return owner

    def owner_table(self, solutions: Sequence[Sequence[int] | np.ndarray]) -> np.ndarray:
        """Many solutions (placement indices each) as one row of cell owners each: (S, cells)."""
        owners = [self.owners(s) for s in solutions]
        return np.array(owners, dtype=np.int64).reshape(len(owners), self.n_cells)

    def grid(self, owner: np.ndarray) -> np.ndarray:
        """Owners as a bounding-box array of piece ids (0 = empty or off the board)."""
        grid = np.zeros(self.board.shape, dtype=np.int64)
        ids = np.array([p.id for p in self.pieces])
        covered = owner >= 0
        grid[tuple(self.board.cells[covered].T)] = ids[owner[covered]]
        return grid

    @cached_property
    def symmetry_perms(self) -> np.ndarray:
        """The board's symmetries (mirrors only if pieces may be mirrored) as cell permutations."""
        return self.symmetries_of(self.reflections)

    def symmetries_of(self, mirrors: bool) -> np.ndarray:
        """The board's rotations (and, if `mirrors`, reflections) as permutations, identity first.

        Row g maps cell i to cell perm[g, i].
        """
        key = {tuple(c): i for i, c in enumerate(self.board.cells)}
        perms = []
        for m in symmetries(self.board.dim, mirrors):
            moved = self.board.cells @ m.T
            moved = moved - moved.min(axis=0)
            target = [key.get(tuple(c)) for c in moved]
            if None not in target:
                perms.append(target)
        return np.array(perms, dtype=np.int64)

    @cached_property
    def kinds(self) -> np.ndarray:
        """A kind number per piece: copies of one shape share it."""
        names: dict[str, int] = {}
        return np.array([names.setdefault(p.name, len(names)) for p in self.pieces])

    def canonical(
        self, owners: np.ndarray, symmetric: bool = True, mirrors: bool | None = None
    ) -> np.ndarray:
        """One code per solution (rows of `owners`), equal for solutions that differ only by
        swapping identical copies or, if `symmetric`, by a symmetry of the board (with mirror
        images if `mirrors`; by default, if the pieces may be mirrored)."""
        owners = np.atleast_2d(owners)
        perms = self.symmetry_perms if mirrors is None else self.symmetries_of(mirrors)
        perms = perms if symmetric else perms[:1]
        relabelled = []
        for perm in perms:
            moved = np.empty_like(owners)
            moved[:, perm] = owners
            relabelled.append(_relabel(moved, self.kinds))
        codes = np.stack(relabelled)  # (G, S, n)
        best = codes[0]
        for c in codes[1:]:
            best = _lexmin(best, c)
        return best

    def count_distinct(self, owners: np.ndarray, symmetric: bool = True, mirrors: bool | None = None) -> int:
        """How many different fillings `owners` holds (copies merged; board symmetry if asked)."""
        return len(np.unique(self.canonical(owners, symmetric, mirrors), axis=0))


def _fill_strides(shape: tuple[int, ...]) -> np.ndarray:
    """Strides numbering the bounding box in fill order: the shortest axis varies fastest."""
    strides = np.zeros(len(shape), dtype=np.int64)
    step = 1
    for a in sorted(range(len(shape)), key=lambda a: shape[a]):
        strides[a] = step
        step *= shape[a]
    return strides


def _relabel(owners: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """Label cells by (kind, rank of the copy by first cell), so swapping copies changes nothing."""
    s, n = owners.shape
    first = np.full((s, len(kinds)), n, dtype=np.int64)
    rows = np.arange(s)
    for i in range(n - 1, -1, -1):
        covered = owners[:, i] >= 0
        first[rows[covered], owners[covered, i]] = i
    rank = np.zeros_like(first)
    for k in np.unique(kinds):
        same = np.flatnonzero(kinds == k)
        rank[:, same] = np.argsort(np.argsort(first[:, same], axis=1), axis=1)
    label = kinds[np.maximum(owners, 0)] * len(kinds) + np.take_along_axis(
        rank, np.maximum(owners, 0), axis=1
    )
    return np.where(owners >= 0, label, -1)


def _lexmin(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise lexicographic minimum of two (S, n) arrays."""
    diff = a != b
    first = diff.argmax(axis=1)
    rows = np.arange(len(a))
    take_b = diff.any(axis=1) & (b[rows, first] < a[rows, first])
    return np.where(take_b[:, None], b, a)
