"""Issue 34: the faster walk walks the same tree as the walk before it (frozen in benchmarks/), a walk
resumed slice by slice is the walk in one go, Knuth's estimate is near the real tree, and two orders
walked in turns give the same answer on one and two threads."""

import copy

import numpy as np
import pytest

from benchmarks import perfect_search_before as before
from puzzles.edge_matching.eternity2 import Eternity2, Eternity2Like
from puzzles.edge_matching.solvers.perfect_search import ORDERS, Board, estimate_orders, probe, search, turns
from tests.puzzles.edge_matching.test_perfect_search import BOARDS, changed, is_perfect


def same_answer(a, b) -> bool:
    boards = all(
        (x[0] == y[0]).all() and (x[1] == y[1]).all() for x, y in zip(a.boards, b.boards, strict=True)
    )
    return a.nodes == b.nodes and a.count == b.count and a.stop_reason == b.stop_reason and boards


@pytest.mark.slow
@pytest.mark.parametrize("order", ["short", "spiral", "diagonal", "bands"])
@pytest.mark.parametrize("lookahead", [False, True])
def test_the_walk_walks_the_tree_it_did_before_issue_34(order, lookahead):
    for puzzle, limit, cap in (
        (Eternity2Like(n=6, instance_seed=1), None, None),  # every board counted
        (Eternity2Like(n=6, instance_seed=0), 1, None),  # the first board
        (Eternity2Like(n=8, instance_seed=0), 1, 400_000),  # capped
        (BOARDS["5x5 unturned, centre"], None, None),
        (BOARDS["4x6 turning"], None, None),
    ):
        args = (puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced)
        old = before.search(before.Board(*args, order=order, lookahead=lookahead), limit, 3, 1, cap)
        new = search(Board(*args, order=order, lookahead=lookahead), limit, 3, 1, cap)
        assert new.nodes > 0 and same_answer(old, new), (order, lookahead, old.nodes, new.nodes)


def test_a_walk_resumed_slice_by_slice_is_the_walk_in_one_go():
    puzzle = Eternity2Like(n=6, instance_seed=0)
    board = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, symmetry=False)
    f, never = len(board.order), np.zeros(1, np.int64)
    whole = board.walk(board.fresh_state(), 0, f, 1 << 40, 1 << 40, never, never.copy(), 1000)
    state, cursor, nodes, placed, found, slices = board.fresh_state(), board.new_cursor(f), 0, 0, 0, 0
    while True:
        status, got, walked, placements, _ = board.walk(
            state, 0, f, 1 << 40, 9_999, never, never.copy(), 1, cursor=cursor
        )
        nodes, placed, found, slices = nodes + walked, placed + placements, got, slices + 1
        if status == 1:
            break
    assert slices > 10 and (nodes, placed, found) == (whole[2], whole[3], whole[1])
    assert whole[1] >= 8


def test_every_order_is_a_scan_of_every_cell():
    for name, scan in ORDERS.items():
        for n, m in ((4, 4), (3, 5), (5, 3)):
            assert sorted(scan(n, m)) == list(range(n * m)), name
    assert list(ORDERS["rows_br"](2, 3)) == [5, 4, 3, 2, 1, 0]
    assert list(ORDERS["columns_tr"](2, 3)) == [2, 5, 1, 4, 0, 3]


@pytest.mark.slow
def test_the_estimate_is_near_the_real_tree_and_repeats():
    for seed in (0, 1):
        puzzle = Eternity2Like(n=6, instance_seed=seed)
        args = (puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced)
        names = ["rows", "columns_bl", "spiral", "diagonal"]
        estimates = estimate_orders(*args, names=names)
        assert estimates == estimate_orders(*args, names=names)  # seeded
        for name in names:
            actual = search(Board(*args, order=name), threads=1).nodes
            assert actual / 1.5 < estimates[name][0] < actual * 1.5, (seed, name, estimates[name], actual)
    auto = Board(*args, order="auto")
    assert auto.order_name == min(auto.estimates, key=lambda x: auto.estimates[x][0])


@pytest.mark.slow
@pytest.mark.parametrize("slice_nodes", [1 << 10, 1 << 22])
def test_orders_in_turns_give_the_same_answer_on_one_and_two_threads(slice_nodes, monkeypatch):
    monkeypatch.setattr(turns, "SLICE", slice_nodes)
    for n, seed in ((6, 0), (6, 3), (7, 1)):
        puzzle = Eternity2Like(n=n, instance_seed=seed)
        board = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order="auto")
        one, two = (search(board, limit=1, threads=t, portfolio=True) for t in (1, 2))
        assert one.boards and is_perfect(puzzle, *one.boards[0]) and one.stop_reason == "limit"
        assert same_answer(one, two) and one.order == two.order and one.order in ORDERS


def test_turns_that_do_not_finish_in_their_rounds_hand_over_to_the_split(monkeypatch):
    monkeypatch.setattr(turns, "SLICE", 1 << 8)
    monkeypatch.setattr(turns, "HEDGE_ROUNDS", 2)
    puzzle = Eternity2Like(n=6, instance_seed=0)
    board = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order="auto")
    split = search(board, limit=1, threads=1)
    assert split.nodes > 4 * turns.SLICE  # longer than the two rounds of two orders
    one, two = (search(board, limit=1, threads=t, portfolio=True) for t in (1, 2))
    assert one.boards and is_perfect(puzzle, *one.boards[0]) and one.order == board.order_name
    assert same_answer(one, two) and one.nodes == split.nodes + 4 * turns.SLICE  # the turns' too
    assert all((x == y).all() for x, y in zip(one.boards[0], split.boards[0], strict=True))


def test_a_tree_long_to_walk_is_estimated_again_with_10x_the_dives(monkeypatch):
    puzzle = Eternity2Like(n=5, instance_seed=0)
    args = (puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced)
    monkeypatch.setattr(probe, "PROBES", 500)
    cheap = Board(*args, order="auto").estimates
    assert cheap == estimate_orders(*args, dives=500)  # below REFINE: the cheap estimate stays
    monkeypatch.setattr(probe, "REFINE", (0.0, float("inf")))
    refined = Board(*args, order="auto").estimates
    assert refined == estimate_orders(*args, dives=5000) != cheap


def test_the_hedge_proves_none_and_a_count_still_splits_one_tree(tmp_path):
    path = changed(1, "mirrored", tmp_path)
    puzzle = Eternity2(starter=False, pieces_file=path, order="left top right bottom")
    board = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order="auto")
    hedged = search(board, limit=1, threads=2, portfolio=True)
    assert hedged.none and hedged.jobs == 1 and hedged.order in ORDERS
    counted = search(board, threads=2, portfolio=True)
    assert counted.none and counted.jobs > 1 and counted.order == board.order_name


@pytest.mark.parametrize("order", ["rows", "spiral", "bands"])
def test_the_walk_over_sets_of_pieces_is_the_walk_over_entries(order):
    puzzles = [BOARDS[name] for name in BOARDS] + [Eternity2Like(n=6, instance_seed=2)]
    for puzzle in puzzles:
        board = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order=order)
        entries = copy.copy(board)
        entries.sets = None  # the walk every board can take
        assert board.sets is not None  # at most 64 pieces: the walk over sets
        for limit, threads in ((None, 1), (1, 1), (2, 2)):
            sets, plain = (search(b, limit, 3, threads) for b in (board, entries))
            assert sets.nodes > 0 and same_answer(sets, plain), (order, limit, sets.nodes, plain.nodes)


def test_a_board_of_more_than_64_pieces_walks_entries():
    puzzle = Eternity2Like(n=9, instance_seed=0)
    board = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced)
    assert board.sets is None
    answer = search(board, limit=1, threads=1, max_nodes=200_000)
    assert answer.nodes > 0 and all(is_perfect(puzzle, *b) for b in answer.boards)


def test_a_tree_trivial_at_a_glance_walks_the_default_order_and_counts_the_same():
    """Probing every order of a tree of a few dozen nodes cost 50x its walk: such a board walks `short`
    after probe.GLANCE dives, and counts what the order of the smallest probed tree counts; a larger tree
    is probed as before."""
    small = Eternity2Like(n=4, instance_seed=0)
    args = (small.table, small.n, small.m, small.preplaced)
    glanced = Board(*args, order="auto")
    assert glanced.order_name == "short" and list(glanced.estimates) == ["short"]
    assert glanced.estimates["short"][0] < probe.TRIVIAL
    estimates = estimate_orders(*args)
    probed = Board(*args, order=min(estimates, key=lambda x: estimates[x][0]))
    walked, counted = search(glanced, threads=1), search(probed, threads=1)
    assert walked.complete and counted.complete and walked.count == counted.count >= 1
    large = Eternity2Like(n=6, instance_seed=0)
    board = Board(large.table, large.n, large.m, large.preplaced, order="auto")
    assert len(board.estimates) > 1 and min(e[0] for e in board.estimates.values()) >= probe.TRIVIAL
