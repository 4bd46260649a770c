import random

import numpy as np
import pytest

from puzzles.edge_matching import EdgeMatching, Layout, turn_table
from puzzles.edge_matching.solvers.greedy import Greedy, _faithful_choice, _targets, greedy
from tests.oracles import seed_greedy_plain as seed

# A 3x3 case worked by hand, with the seed's rules (centre given). Corners and centre carry one
# colour; the bottom edge piece is replaced by X, a piece that fits nowhere.
C0, C2, C6, C8, M = [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [1, 1, 1, 1]
X, T, L, R = [2, 2, 2, 2], [1, 0, 1, 1], [0, 1, 1, 1], [1, 1, 0, 1]
HAND = np.array([C0, X, C2, T, M, L, C6, R, C8])  # the list as shuffled: centre at the centre


def test_faithful_greedy_places_a_piece_twice_on_the_hand_case():
    piece, rot = greedy(turn_table(HAND, False), 3, preplaced=[[4, 4, 0]], seed_faithful=True)
    # Edge cells want [1,0,1,1] (top), [0,1,1,1] (left), [1,1,0,1] (right), [1,1,1,0] (bottom).
    # T, L, R score 4 in their cells and go first; for the bottom cell X scores 0 while T, L
    # and R score 2 each; T stays in the seed's pool and is first, so T goes there again.
    assert [HAND[p].tolist() for p in piece] == [C0, T, C2, L, M, R, C6, T, C8]
    assert 1 not in piece  # X is never placed
    y = seed.solve([list(p) for p in HAND])
    assert [HAND[p].tolist() for p in piece] == y
    assert seed.check(y) == 33  # by hand: the bottom cell's top and bottom, and M's bottom fail


def test_corrected_greedy_uses_each_piece_once_on_the_hand_case():
    piece, _ = greedy(turn_table(HAND, False), 3, preplaced=[[4, 4, 0]])
    assert [HAND[p].tolist() for p in piece] == [C0, T, C2, L, M, R, C6, X, C8]


def test_faithful_inner_cell_reads_the_cell_below_for_its_right_side():
    table = turn_table(np.array([C0, T, C2, L, M, R, C6, [5, 6, 7, 8], C8]), False)
    piece = np.array([0, 1, 2, 3, -1, 5, 6, 7, 8])
    rot = np.zeros(9, dtype=np.int64)
    out = np.empty(4, dtype=np.int64)
    _targets(4, 3, piece, rot, table, True, out)
    assert out.tolist() == [1, 1, 5, 6]  # right side: the left of the cell below (5), not R's 1
    _targets(4, 3, piece, rot, table, False, out)
    assert out.tolist() == [1, 1, 1, 6]


def test_faithful_border_rule_only_holds_on_the_left_edge():
    colours = np.array([[1, 1, 5, 5], [0, 5, 5, 5]])
    table, has_zero = turn_table(colours, False), (colours == 0).any(axis=1)
    pool, number = np.array([0, 1]), np.empty(2, dtype=np.int64)
    target = np.array([1, 1, 9, 5])  # the inner piece scores 3, the border piece 1
    # top-edge cell 1 (judge 5): `== (4 or 5 or 6 or 7)` is false, so the inner piece stays
    assert _faithful_choice(1, 3, pool, table, has_zero, target, number) == (3, 0)
    # left-edge cell 3 (judge 4): the score list is popped but the pool is not: the score is the
    # border piece's (1) and the index 0 still names the inner piece
    assert _faithful_choice(3, 3, pool, table, has_zero, target, number) == (1, 0)


@pytest.mark.parametrize(
    "n, colours",
    [
        (3, 2),
        (5, 1),
        (5, 3),
        (7, 2),
        (7, 6),
        pytest.param(9, 4, marks=pytest.mark.slow),
        pytest.param(9, 40, marks=pytest.mark.slow),
    ],
)
def test_faithful_greedy_returns_what_the_seeds_code_returns(n, colours):
    for k in range(3):
        rnd = random.Random(1000 * n + 10 * colours + k)
        answer = seed.generate_puzzle(n, colours, rnd)
        listed = seed.puzzle_making(answer, rnd)
        centre = (n * n - 1) // 2
        piece, _ = greedy(
            turn_table(np.array(listed), False), n, preplaced=[[centre, centre, 0]], seed_faithful=True
        )
        assert [listed[p] for p in piece] == seed.solve([list(p) for p in listed])


@pytest.mark.parametrize("rotations", [False, True])
@pytest.mark.parametrize("n, colours", [(5, 2), (7, 3), (9, 10), (13, 2), (13, 100), (16, 22)])
def test_corrected_greedy_never_places_a_piece_twice(n, colours, rotations):
    p = EdgeMatching(n=n, colours=colours, rotations=rotations, fix_centre=n % 2 == 1, instance_seed=n)
    piece, rot = greedy(p.table, n, p.preplaced)
    layout = Layout(n, piece, rot)
    assert sorted(piece) == list(range(n * n))
    p.check(layout)  # hints kept, no turns without rotations
    assert p.fitness(p.encode(layout)) == p.score_layout(layout)["unmatched_edges"]


def test_faithful_greedy_duplicates_pieces_with_few_colours():
    p = EdgeMatching(n=13, colours=2, instance_seed=0)
    piece, _ = greedy(p.table, 13, p.preplaced, seed_faithful=True)
    assert len(np.unique(piece)) < 169 / 2


def test_many_colours_leave_the_greedy_one_choice_and_it_solves():
    p = EdgeMatching(n=13, colours=312, instance_seed=0)
    for faithful in (False, True):
        piece, rot = greedy(p.table, 13, p.preplaced, seed_faithful=faithful)
        assert p.score_layout(Layout(13, piece, rot))["match_rate"] == 1.0


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError) as err:
        greedy(turn_table(np.zeros((8, 4)), False), 3)
    assert str(err.value) == "need an (9, turns, 4) turn table for n=3, got shape (8, 1, 4)"
    with pytest.raises(ValueError) as err:
        greedy(turn_table(HAND, True), 3, seed_faithful=True)
    assert (
        str(err.value) == "seed_faithful reproduces the seed, whose pieces never turn: give a one-turn table"
    )
    with pytest.raises(ValueError) as err:
        greedy(turn_table(np.ones((9, 4)), False), 3, seed_faithful=True)
    assert str(err.value) == "the seed's greedy needs a piece for each corner (0 on both border sides)"


@pytest.mark.parametrize("rotations", [False, True])
def test_kept_choices_give_the_boards_of_recomputing_every_step(rotations):
    from puzzles.edge_matching.solvers import greedy as eg

    for n, colours in ((5, 2), (7, 3), (9, 20)):
        p = EdgeMatching(n=n, colours=colours, rotations=rotations, fix_centre=False, hints=[[1, 1]])
        fast = greedy(p.table, n, p.preplaced)
        piece, rot, used = eg.start_board(n, len(p.sides), p.preplaced)
        table = p.table
        eg._fill_corners(piece, rot, used, table, n)
        pool, has_zero = np.nonzero(~used)[0], (p.sides == 0).any(axis=1)
        target, number, best = np.empty(4, int), np.empty(len(pool), int), np.full((n * n, 3), -1)
        while (
            eg._step(
                piece,
                rot,
                used,
                pool,
                table,
                has_zero,
                n,
                False,
                target,
                number,
                np.zeros(n * n, dtype=bool),
                best,
            )
            >= 0
        ):  # nothing kept: every cell afresh
            pass
        assert np.array_equal(fast[0], piece) and np.array_equal(fast[1], rot)


@pytest.mark.parametrize("faithful", [False, True])
def test_greedy_work_is_one_placement_per_cell_and_no_time_limit_cuts_it(faithful):
    """A greedy board is n * n placements (the seed-faithful one too, duplicates and all), made in
    milliseconds: a time limit of a microsecond still gets the whole board, "finished"."""
    p = EdgeMatching(n=9, colours=5, instance_seed=1)
    solver = Greedy(seed_faithful=faithful)
    solver.warm_up(p)
    built = solver.construct(p, seconds=1e-6)
    assert built.work == 81 and built.stop_reason == "finished" and Greedy.work_unit == "placement"
    assert np.array_equal(built.layout.piece, solver.solve(p).piece)
    assert (built.layout.piece >= 0).all()
