"""Edge-matching instances: generated from a seed (the generating arrangement is then a perfect
solution), or read from a piece file; `Instance` holds either.

A generated board is an (n*n, 4) int array in row-major cell order; each row is a piece as the seed
writes it, [left, top, right, bottom]. Colour 0 is the border; inner edges get colours 1..colours.
Both generators draw from a numpy Generator, so (generator, n, colours, instance seed) fixes an
instance on any machine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from math import isqrt
from pathlib import Path

import numpy as np

from core.errors import InputError
from puzzles.edge_matching.board import BOTTOM, LEFT, MAX_COLOUR, RIGHT, TOP, Layout, inner_edges, turn_table
from puzzles.edge_matching.piece_files import read_piece_file

# A run's peak memory per piece (building the board, the run, drawing best.png): 1.7 GB measured on
# 301 x 301 and 0.47 GB on 151 x 151 (a random search), rounded up.
BYTES_PER_PIECE = 20_000


def available_memory() -> int | None:
    """Bytes the machine can still give a run (Linux's MemAvailable, else its physical memory; None: unknown)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def check_board(n: int, m: int, where: str) -> None:
    """Refuse, before anything is built, a board with no join to match or one the memory cannot hold:
    its scores divide by the joins, and an unchecked 100000 x 100000 board grew past 7 GB silently."""
    if n * m < 2:
        raise InputError(
            f"{where}: a {n} x {m} board has no joins to match; use a board of at least 2 pieces"
        )
    need, have = n * m * BYTES_PER_PIECE, available_memory()
    if have is not None and need > have:
        most = have // BYTES_PER_PIECE
        raise InputError(
            f"{where}: a {n:,} x {m:,} board ({n * m:,} pieces) needs about {need / 1e9:,.1f} GB of memory "
            f"to build and run, more than the {have / 1e9:.1f} GB available; use at most about {most:,} "
            f"pieces (a {isqrt(most)} x {isqrt(most)} board)"
        )


def check_size(n: int, colours: int) -> None:
    """Refuse boards and colour counts that cannot make an instance, in one line."""
    if n < 2:
        raise InputError(f"puzzle.n must be at least 2 (a board of n x n pieces), got {n}")
    check_board(n, n, "puzzle.n")
    most = min(inner_edges(n), MAX_COLOUR)
    if not 1 <= colours <= most:
        raise InputError(
            f"puzzle.colours={colours} cannot be held by a {n}x{n} board: it has {inner_edges(n)} inner "
            f"edges, so use 1 <= colours <= {most}"
        )


def _vertical_then_horizontal(n: int) -> list[tuple[int, int, int, int]]:
    """The seed's dealing order of inner edges: (cell a, side of a, cell b, side of b)."""
    edges = [(n * i + j, BOTTOM, n * i + j + n, TOP) for i in range(n - 1) for j in range(n)]
    edges += [(n * i + j, RIGHT, n * i + j + 1, LEFT) for i in range(n) for j in range(n - 1)]
    return edges


def _paint(n: int, colours_per_edge: np.ndarray) -> np.ndarray:
    """A board whose inner edges carry the given colours, in the seed's dealing order."""
    board = np.zeros((n * n, 4), dtype=np.int64)
    for (a, side_a, b, side_b), colour in zip(_vertical_then_horizontal(n), colours_per_edge):
        board[a, side_a] = board[b, side_b] = colour
    return board


def seed_cycles(n: int, colours: int, rng: np.random.Generator) -> np.ndarray:
    """The seed's generator: deal colours in cycles of a freshly shuffled palette.

    Edges between vertically adjacent cells are dealt first, then those between horizontal
    neighbours, continuing the same cycle (the seed's `generate_puzzle`, with numpy's shuffle).
    """
    check_size(n, colours)
    cycles = -(-inner_edges(n) // colours)
    dealt = np.concatenate([rng.permutation(colours) + 1 for _ in range(cycles)])
    return _paint(n, dealt[: inner_edges(n)])


def uniform(n: int, colours: int, rng: np.random.Generator) -> np.ndarray:
    """Every inner edge gets a colour drawn uniformly from 1..colours, independently."""
    check_size(n, colours)
    return _paint(n, rng.integers(1, colours + 1, size=inner_edges(n)))


GENERATORS = {"seed": seed_cycles, "uniform": uniform}


def generate(kind: str, n: int, colours: int, rng: np.random.Generator) -> np.ndarray:
    """The named generator's board, or a clear error naming the known generators."""
    if kind not in GENERATORS:
        raise InputError(f"unknown puzzle.generator {kind!r}; choose one of {sorted(GENERATORS)} or 'file'")
    return GENERATORS[kind](n, colours, rng)


@dataclass(frozen=True)
class Instance:
    """Pieces (in shuffled order) and, for generated instances, the generating arrangement."""

    sides: np.ndarray
    n: int
    solution: Layout | None = None
    file_hints: tuple[tuple[int, int, int, int], ...] = ()  # (row, col, piece, turns)

    @property
    def m(self) -> int:
        """Columns of the board (rows n; square unless a piece file or generator says otherwise)."""
        return len(self.sides) // self.n


def generated_instance(kind: str, n: int, colours: int, seed: int, rotations: bool) -> Instance:
    """A generated board, its pieces shuffled (and turned, with rotations) like a bought box."""
    check_size(n, colours)
    rng = np.random.default_rng(seed)
    board = generate(kind, n, colours, rng)
    home = rng.permutation(n * n)  # piece k was cut from cell home[k]
    turns = rng.integers(0, 4, size=n * n) if rotations else np.zeros(n * n, dtype=np.int64)
    listed = turn_table(board[home])[np.arange(n * n), turns]
    piece = np.empty(n * n, dtype=np.int64)
    piece[home] = np.arange(n * n)
    return Instance(listed, n, Layout(n, piece, (-turns[piece]) % 4))


def file_instance(path: str, order: str | None) -> Instance:
    """A piece file's pieces and hints; its solution is unknown."""
    pieces = read_piece_file(path, order)
    check_board(pieces.n, len(pieces.sides) // pieces.n, Path(path).name)
    return Instance(pieces.sides, pieces.n, None, pieces.hints)
