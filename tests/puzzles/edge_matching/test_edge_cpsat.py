"""The CP-SAT count of perfect edge-matching boards against a brute-force enumerator on tiny boards.

Boards are counted distinct as read per cell: (the piece's class, the four colours it shows), where
pieces equal under an allowed turn are one class (see tests/oracles/edge_cpsat_model.py).
"""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pytest

from core.errors import InputError
from puzzles.edge_matching.board import turn_table

pytest.importorskip("ortools", reason="the 'exact' extra is not installed")

from tests.oracles.edge_cpsat_model import count_perfect, solve_perfect


def cut(across, down, seed: int, turns: bool):
    """Pieces cut from a grid of joins (across[r, c]: left of cell (r, c); down[r, c]: above it), shuffled
    and, with `turns`, turned at random; and the (cell, piece, turn) each piece came from."""
    n, m = down.shape[0] - 1, across.shape[1] - 1
    rng = np.random.default_rng(seed)
    shown = [[across[r, c], down[r, c], across[r, c + 1], down[r + 1, c]] for r in range(n) for c in range(m)]
    order = rng.permutation(n * m)  # piece p came from cell order[p]
    spin = rng.integers(4, size=n * m) if turns else np.zeros(n * m, np.int64)
    sides = np.array([[shown[cell][(k + t) % 4] for k in range(4)] for cell, t in zip(order, spin)])
    return turn_table(sides, turns), [(int(cell), p, int(t)) for p, (cell, t) in enumerate(zip(order, spin))]


def cut_grid(n: int, m: int, colours: int, seed: int, turns: bool, centre_colour: int | None = None):
    """`cut` of an n x m grid whose inner joins take random colours 1..colours (grey on the rim).
    centre_colour: give every join of cell (1, 1) this colour (a piece with four equal sides)."""
    rng = np.random.default_rng(seed)
    across = np.zeros((n, m + 1), np.int64)
    down = np.zeros((n + 1, m), np.int64)
    across[:, 1:m] = rng.integers(1, colours + 1, (n, m - 1))
    down[1:n, :] = rng.integers(1, colours + 1, (n - 1, m))
    if centre_colour is not None:
        across[1, 1:3] = down[1:3, 1] = centre_colour
    return cut(across, down, seed, turns)


def two_by_four(middle: list[int]):
    """Unturned pieces of a 2 x 4 grid: colour 1 on every inner join but the vertical joins below the top
    row's cells, which take `middle`."""
    across = np.ones((2, 5), np.int64)
    across[:, [0, 4]] = 0
    down = np.zeros((3, 4), np.int64)
    down[1] = middle
    return cut(across, down, 0, False)


def rim_sides(n: int, m: int) -> np.ndarray:
    """(n, m, 4): does side s ([left, top, right, bottom]) of cell (r, c) face off the board?"""
    rim = np.zeros((n, m, 4), bool)
    rim[:, 0, 0] = rim[0, :, 1] = rim[:, -1, 2] = rim[-1, :, 3] = True
    return rim


def perfect(table, n: int, m: int, piece, turn) -> bool:
    """Every piece once, grey exactly on the rim, both sides of each inner edge alike."""
    shown = table[piece, turn].reshape(n, m, 4)
    return (
        sorted(piece) == list(range(n * m))
        and np.array_equal(shown == 0, rim_sides(n, m))
        and np.array_equal(shown[:, :-1, 2], shown[:, 1:, 0])
        and np.array_equal(shown[:-1, :, 3], shown[1:, :, 1])
    )


def brute_count(table, n: int, m: int, preplaced=()) -> int:
    """Distinct perfect boards by trying every placement. Two necessary conditions keep it small: a piece
    goes to a cell with as many rim sides as it has grey sides, and takes only turns that show grey
    exactly on that cell's rim."""
    rim = rim_sides(n, m).reshape(n * m, 4)
    klass = [min(tuple(int(c) for c in row) for row in rows) for rows in table]
    groups = [
        (
            [c for c in range(n * m) if rim[c].sum() == g],
            [p for p in range(n * m) if (table[p, 0] == 0).sum() == g],
        )
        for g in range(5)
    ]
    if any(len(cells) != len(pieces) for cells, pieces in groups):
        return 0
    boards = set()
    for perms in itertools.product(*(itertools.permutations(pieces) for _, pieces in groups)):
        piece = np.empty(n * m, np.int64)
        for (cells, _), perm in zip(groups, perms):
            piece[cells] = perm
        fits = [
            [r for r in range(table.shape[1]) if np.array_equal(table[p, r] == 0, rim[c])]
            for c, p in enumerate(piece)
        ]
        for turn in itertools.product(*fits):
            if all(piece[c] == p and turn[c] == t for c, p, t in preplaced) and perfect(
                table, n, m, piece, turn
            ):
                boards.add(tuple((klass[p], tuple(table[p, r])) for p, r in zip(piece, turn)))
    return len(boards)


CASES = [  # n, m, colours, turns, seed
    (2, 2, 2, True, 1),
    (2, 2, 2, False, 2),
    (2, 3, 2, True, 0),
    (2, 3, 2, False, 4),
    (3, 2, 2, True, 6),
    (3, 2, 1, False, 6),
    (3, 3, 2, True, 2),
    (3, 3, 2, False, 8),
    (3, 3, 3, True, 2),
    (2, 4, 2, True, 0),
]


@pytest.mark.parametrize("n, m, colours, turns, seed", CASES)
def test_count_matches_brute_force(n, m, colours, turns, seed):
    table, _ = cut_grid(n, m, colours, seed, turns)
    expected = brute_count(table, n, m)
    assert expected >= 1  # the grid it was cut from
    assert count_perfect(table, n, m) == expected
    piece, turn = solve_perfect(table, n, m)
    assert perfect(table, n, m, piece, turn)


def test_cases_have_several_boards():
    """The comparison above means something: several cases have more than one board."""
    counts = [brute_count(cut_grid(n, m, k, seed, turns)[0], n, m) for n, m, k, turns, seed in CASES]
    assert sum(c > 1 for c in counts) >= 4, counts


def test_identical_pieces_count_once():
    """One colour everywhere, pieces turning: the four corners are one class, the four frame pieces
    another, the centre shows four equal sides; the 4! 4! 4 placements are one board."""
    table, _ = cut_grid(3, 3, 1, 0, True)
    assert count_perfect(table, 3, 3) == brute_count(table, 3, 3) == 1


@pytest.mark.parametrize("middle, boards", [([1, 1, 1, 1], 1), ([1, 1, 2, 1], 2)])
def test_unturned_pieces(middle, boards):
    """2 x 4, pieces never turn: the two middle pieces of a row may swap when their left and right joins
    match. Identical pieces (one colour below the top row) give one board; a second colour there makes
    the swapped board another."""
    table, _ = two_by_four(middle)
    assert count_perfect(table, 2, 4) == brute_count(table, 2, 4) == boards


def test_piece_with_four_equal_sides():
    table, _ = cut_grid(3, 3, 2, 1, True, centre_colour=2)
    assert any(len(set(row)) == 1 for row in table[:, 0].tolist())
    expected = brute_count(table, 3, 3)
    assert expected > 1 and count_perfect(table, 3, 3) == expected


@pytest.mark.parametrize(
    "table, origin, n, m", [(*cut_grid(3, 3, 2, 2, True), 3, 3), (*two_by_four([1, 1, 2, 1]), 2, 4)]
)
def test_preplaced(table, origin, n, m):
    kept = [next(row for row in origin if row[0] == 1)]  # the piece the grid had in cell 1, kept there
    expected = brute_count(table, n, m, kept)
    assert 1 <= expected < brute_count(table, n, m)  # keeping it rules boards out
    assert count_perfect(table, n, m, kept) == expected
    piece, turn = solve_perfect(table, n, m, kept)
    cell, p, t = kept[0]
    assert piece[cell] == p and turn[cell] == t and perfect(table, n, m, piece, turn)


def test_preplaced_of_a_repeated_class_is_used_up():
    """Keeping one of four interchangeable corners leaves the other three for three corners: one board."""
    table, origin = cut_grid(3, 3, 1, 0, True)
    corner = [next(row for row in origin if row[0] == 0)]
    assert count_perfect(table, 3, 3, corner) == brute_count(table, 3, 3, corner) == 1


@pytest.mark.parametrize("turns", [True, False])
def test_recoloured_piece_has_no_board(turns):
    table, origin = cut_grid(3, 3, 2, 2, turns)
    sides = table[:, 0].copy()
    centre = next(p for cell, p, _ in origin if cell == 4)
    sides[centre, 0] = 3  # a colour no other piece has
    table = turn_table(sides, turns)
    assert brute_count(table, 3, 3) == 0
    assert count_perfect(table, 3, 3) == 0
    assert solve_perfect(table, 3, 3) is None


def test_limit():
    table, _ = cut_grid(3, 3, 2, 2, True)
    assert brute_count(table, 3, 3) > 2
    assert count_perfect(table, 3, 3, limit=2) == 2


def test_eternity2_like():
    from puzzles.edge_matching.eternity2 import Eternity2Like

    puzzle = Eternity2Like(n=4, instance_seed=0)
    assert count_perfect(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, seconds=30) >= 1
    piece, turn = solve_perfect(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, seconds=30)
    assert puzzle.score_layout(puzzle.layout(piece, turn))["unmatched_edges"] == 0


def test_timeout_raises():
    from puzzles.edge_matching.eternity2 import Eternity2Like

    puzzle = Eternity2Like(n=7, instance_seed=0)
    with pytest.raises(TimeoutError, match="time limit"):
        count_perfect(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, seconds=0.01)


def test_without_ortools_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ortools.sat.python.cp_model", None)  # import now fails
    table, _ = cut_grid(2, 2, 2, 1, True)
    with pytest.raises(InputError, match=r"pip install 'puzzlelab\[exact\]'"):
        count_perfect(table, 2, 2)
