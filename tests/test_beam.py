"""Beam search and the exact-first solver on the seed's boards (pieces never turn)."""

import itertools

import numpy as np
import pytest

from heuristics.backtrack import ExactFirst
from heuristics.beam import Beam, beam_search
from heuristics.edge_greedy import Greedy
from puzzles.edge_matching import EdgeMatching, count_unmatched, turn_table


def _spoiled(n, colours, seed):
    """A generated board's pieces with a few inner sides recoloured, so the optimum is above 0."""
    sides = EdgeMatching(n=n, colours=colours, fix_centre=False, instance_seed=seed).sides.copy()
    rng = np.random.default_rng(seed)
    inner = np.argwhere(sides > 0)
    for i in rng.choice(len(inner), size=3, replace=False):
        sides[tuple(inner[i])] = rng.integers(1, colours + 1)
    return sides


def _best_unturned_board(sides, n):
    """The fewest unmatched edges over every board that keeps each piece on its grey pattern (4 x 4)."""
    rows, cols = np.divmod(np.arange(n * n), n)
    cell_bits = (np.stack([cols == 0, rows == 0, cols == n - 1, rows == n - 1], 1) * [1, 2, 4, 8]).sum(1)
    piece_bits = ((sides == 0) * [1, 2, 4, 8]).sum(1)
    groups = [(np.flatnonzero(cell_bits == b), np.flatnonzero(piece_bits == b)) for b in set(cell_bits)]
    table, best = turn_table(sides), 4 * n * n
    for perms in itertools.product(*(itertools.permutations(pieces) for _, pieces in groups)):
        board = np.empty(n * n, dtype=np.int64)
        for (cells, _), perm in zip(groups, perms, strict=True):
            board[cells] = perm
        best = min(best, count_unmatched(board, np.zeros_like(board), table, n))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_a_beam_wider_than_the_tree_finds_the_optimum(seed):
    """4 x 4 boards have 4!^1 * 2!^4 = 384 legal boards, so a beam of 1,000 keeps every partial board:
    it must find the optimum brute force finds; a beam of one can only do as well or worse."""
    sides = _spoiled(4, 3, seed)
    optimum = _best_unturned_board(sides, 4)
    board, unmatched = beam_search(sides, 4, width=1000, seed=seed)
    assert unmatched == optimum == count_unmatched(board, np.zeros_like(board), turn_table(sides), 4)
    assert beam_search(sides, 4, width=1, seed=seed)[1] >= optimum


@pytest.mark.parametrize("n, colours", [(5, 3), (7, 4), (9, 5)])
def test_beam_boards_are_legal_and_scored_as_the_puzzle_scores_them(n, colours):
    puzzle = EdgeMatching(n=n, colours=colours, instance_seed=n)
    board, unmatched = beam_search(puzzle.sides, n, puzzle.preplaced, width=50, seed=1)
    layout = puzzle.layout(board, np.zeros_like(board))  # checks each piece once, the centre kept
    assert puzzle.score_layout(layout)["unmatched_edges"] == unmatched


def test_a_wider_beam_leaves_fewer_unmatched_edges_near_the_transition():
    """n = 11 at 6 colours: the greedy leaves dozens of edges unmatched; a beam of 2,000 far fewer."""
    puzzle = EdgeMatching(n=11, colours=6, instance_seed=0)
    greedy = puzzle.score_layout(Greedy().solve(puzzle))["unmatched_edges"]
    narrow = puzzle.score_layout(Beam(width=10).solve(puzzle))["unmatched_edges"]
    wide = puzzle.score_layout(Beam(width=2000).solve(puzzle))["unmatched_edges"]
    assert wide < narrow and wide < greedy


def test_beam_refuses_pieces_that_turn():
    puzzle = EdgeMatching(n=5, colours=4, rotations=True, fix_centre=False)
    with pytest.raises(Exception, match="never turn"):
        Beam().solve(puzzle)


def test_exact_first_solves_where_the_search_is_small_and_else_is_the_beam():
    """13 x 13 at 30 colours: the backtracker finds the perfect board in a few hundred nodes. At 5
    colours with a cap of 1,000 nodes it gives up and the board is the beam's, exactly."""
    easy = EdgeMatching(n=13, colours=30, instance_seed=0)
    assert easy.score_layout(ExactFirst().solve(easy))["unmatched_edges"] == 0
    hard = EdgeMatching(n=9, colours=5, instance_seed=0)
    capped = ExactFirst(max_nodes=1000, width=200, seed=3).solve(hard)
    beam = Beam(width=200, seed=3).solve(hard)
    assert np.array_equal(capped.piece, beam.piece)
    assert hard.score_layout(capped)["unmatched_edges"] > 0
