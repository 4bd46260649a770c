import itertools
import time

import numpy as np
import pytest

from heuristics.backtrack import (
    STOP_EVERY,
    Backtrack,
    ExactFirst,
    _index,
    _kind_index,
    _symmetries,
    deepening,
    perfect,
    setup,
    solve_exact,
)
from heuristics.beam import Beam, grey_patterns
from puzzles.edge_matching import EdgeMatching, Layout, count_unmatched, turn_table


def brute_force(colours, n, rotations, centre=None):
    """The optimum by trying every placement (tiny boards only)."""
    table, cells = turn_table(colours), n * n
    free = [p for p in range(cells) if p != centre]
    best = 4 * cells
    for perm in itertools.permutations(free):
        order = list(perm)
        if centre is not None:
            order.insert(centre, centre)
        for turns in itertools.product(range(4 if rotations else 1), repeat=cells):
            best = min(best, count_unmatched(np.array(order), np.array(turns), table, n))
    return best


@pytest.mark.parametrize("seed", range(12))
def test_optimum_equals_brute_force_on_2x2_with_rotations(seed):
    colours = np.random.default_rng(seed).integers(0, 3, size=(4, 4))
    assert solve_exact(turn_table(colours, True), 2).unmatched == brute_force(colours, 2, True)


@pytest.mark.parametrize("seed", range(4))
def test_optimum_equals_brute_force_on_3x3_with_the_centre_given(seed):
    colours = np.random.default_rng(100 + seed).integers(0, 3, size=(9, 4))
    result = solve_exact(turn_table(colours, False), 3, preplaced=[[4, 4, 0]])
    assert result.optimal and result.unmatched == brute_force(colours, 3, False, centre=4)
    assert result.piece[4] == 4


@pytest.mark.parametrize("n, rotations, fix_centre", [(5, False, True), (6, False, False), (6, True, False)])
@pytest.mark.parametrize("colours", [2, 4, 8, 30])
def test_generated_boards_up_to_6x6_are_solved_perfectly(n, rotations, fix_centre, colours):
    p = EdgeMatching(n=n, colours=colours, rotations=rotations, fix_centre=fix_centre, instance_seed=colours)
    result = solve_exact(p.table, n, p.preplaced)
    assert result.optimal and result.unmatched == 0
    layout = Layout(n, result.piece, result.rotation)
    p.check(layout)  # each piece once, the centre in place
    assert p.fitness(p.encode(layout)) == 0


@pytest.mark.parametrize("n", [4, 5, 6])
def test_a_colour_seen_once_makes_the_optimum_exactly_one(n):
    p = EdgeMatching(n=n, colours=6, fix_centre=False, instance_seed=2)
    colours = p.sides.copy()
    colours[tuple(np.argwhere(colours > 0)[0])] = 99  # that side can never match
    result = solve_exact(turn_table(colours, False), n)
    assert result.optimal and result.unmatched == 1
    assert count_unmatched(result.piece, result.rotation, turn_table(colours), n) == 1


def test_running_out_of_nodes_reports_a_lower_bound_not_a_board():
    """A colour seen once makes the optimum 1 (proved by the full search, ~42,000 nodes). Capped at
    5,000 nodes the search has already ruled out 0 (under 1,000 nodes) but not yet found a board
    with 1: it must say so, with the bound 1 it proved, which the trivial bound 0 would fail."""
    p = EdgeMatching(n=5, colours=6, rotations=True, fix_centre=False, instance_seed=2)
    colours = p.sides.copy()
    colours[tuple(np.argwhere(colours > 0)[0])] = 99  # that side can never match
    full = solve_exact(turn_table(colours, True), 5)
    assert full.optimal and full.unmatched == 1 and full.nodes > 5000
    result = solve_exact(turn_table(colours, True), 5, max_nodes=5000)
    assert not result.optimal and result.piece is None and result.unmatched is None
    assert result.nodes <= 5001 and result.lower_bound == 1


def _board_after(p, n, nodes, lean):
    """The board (pieces and turns) a k = 0 search holds when it stops at its node cap: after its first
    nodes + 1 nodes, as it was placing or lifting the last."""
    s, never = setup(p.table, n, p.preplaced), np.zeros(1, np.int64)
    if lean:
        status, walked, _ = perfect(s, n, nodes, never)
    else:
        status, walked, _ = deepening(s, n, 0, _index(s.table), nodes, never)
    assert status == -1 and walked == nodes + 1
    return np.concatenate([s.piece, s.rot])


@pytest.mark.parametrize("n, colours, rotations", [(9, 5, False), (7, 4, False), (5, 4, True), (5, 3, True)])
def test_the_perfect_search_walks_the_deepening_search_tree_to_the_same_board(n, colours, rotations):
    """The lean k = 0 search lists only fitting orients: the same nodes, in the same order. Stopped
    after the same number of nodes, both hold the same board (each node places or lifts one piece, so
    two walks that differed in order would differ there): every count up to 300, then 200 more."""
    p = EdgeMatching(n=n, colours=colours, rotations=rotations, fix_centre=not rotations, instance_seed=3)
    fast = solve_exact(p.table, n, p.preplaced)
    baseline = solve_exact(p.table, n, p.preplaced, perfect_search=False)
    assert fast.optimal and fast.unmatched == baseline.unmatched == 0
    assert fast.nodes == baseline.nodes > 300
    assert (fast.piece == baseline.piece).all() and (fast.rotation == baseline.rotation).all()
    counts = sorted({*range(1, 300), *np.linspace(300, fast.nodes - 2, 200).astype(int).tolist()})
    lean = [_board_after(p, n, k, True) for k in counts]
    assert all(np.array_equal(a, _board_after(p, n, k, False)) for k, a in zip(counts, lean, strict=True))
    assert len({tuple(a) for a in lean}) > len(counts) / 3  # the boards change as the walk goes on


def test_two_walks_in_different_orders_hold_different_boards_at_the_same_node():
    """What the test above relies on: a walk's order shows in the board it holds. The same pieces
    listed in reverse are tried in reverse order: after 50 nodes, the board (named back in the first
    listing) differs, while both walks end on a perfect board."""
    p = EdgeMatching(n=5, colours=4, rotations=True, fix_centre=False, instance_seed=3)
    backwards = EdgeMatching(n=5, colours=4, rotations=True, fix_centre=False, instance_seed=3)
    backwards.table = np.ascontiguousarray(p.table[::-1])
    assert solve_exact(backwards.table, 5).unmatched == solve_exact(p.table, 5).unmatched == 0
    board, other = _board_after(p, 5, 50, True), _board_after(backwards, 5, 50, True)
    other[:25] = np.where(other[:25] >= 0, 24 - other[:25], other[:25])  # piece q is piece 24 - q
    assert not np.array_equal(board, other)


def test_a_perfect_search_that_runs_out_says_only_that_no_perfect_board_was_ruled_out():
    """The seed's 13 x 13 at 8 colours, instance 0, needs about 1.7e10 nodes; capped at 10,000."""
    p = EdgeMatching(n=13, colours=8, rotations=False, fix_centre=True, instance_seed=0)
    result = solve_exact(p.table, 13, p.preplaced, max_nodes=10_000)
    assert not result.optimal and result.piece is None and result.lower_bound == 0
    assert result.nodes == 10_001


@pytest.mark.parametrize("rotations", [False, True])
def test_the_candidate_index_lists_exactly_the_orients_of_each_kind_and_colours_in_order(rotations):
    p = EdgeMatching(n=5, colours=3, rotations=rotations, fix_centre=False, instance_seed=4)
    table = np.asarray(p.table, dtype=np.int64)
    turns, skip = table.shape[1], _symmetries(table)[1]
    cell_kind, starts, pieces, turns_listed, shows = _kind_index(table, 5, skip)
    orient_pattern, cell_pattern = grey_patterns(table, 5)
    width, any_colour = int(table.max()) + 2, int(table.max()) + 1
    for cell in range(25):
        for a in range(width):
            for b in range(width):
                key = (cell_kind[cell] * width + a) * width + b
                listed = [pieces[i] * turns + turns_listed[i] for i in range(starts[key], starts[key + 1])]
                expected = [
                    o
                    for o in range(table.shape[0] * turns)
                    if orient_pattern[o] == cell_pattern[cell]
                    and not skip[o // turns, o % turns]
                    and a in (table[o // turns, o % turns, 0], any_colour)
                    and b in (table[o // turns, o % turns, 1], any_colour)
                ]
                assert listed == expected
                assert all(
                    (shows[i] == table[pieces[i], turns_listed[i]]).all()
                    for i in range(starts[key], starts[key + 1])
                )


def test_a_time_limit_ends_the_search_as_the_node_cap_does_with_its_reason():
    """The seed's 13 x 13 at 8 colours needs about 1.7e10 nodes: 0.3 s cannot finish it. The search
    gives up with the bound it proved (0), saying the time, not the cap, stopped it; the cap says so
    too. The flag is read every STOP_EVERY nodes, so it stops within a few milliseconds of the limit."""
    p = EdgeMatching(n=13, colours=8, rotations=False, fix_centre=True, instance_seed=0)
    solve_exact(p.table, 13, p.preplaced, max_nodes=10)  # load the kernels before the clock
    started = time.perf_counter()
    timed = solve_exact(p.table, 13, p.preplaced, max_nodes=10**15, seconds=0.3)
    assert 0.3 <= time.perf_counter() - started < 0.6
    assert timed.stop_reason == "seconds" and timed.piece is None and not timed.optimal
    assert timed.lower_bound == 0 and timed.nodes > 10_000 and timed.nodes % STOP_EVERY == 0
    capped = solve_exact(p.table, 13, p.preplaced, max_nodes=10_000)
    assert capped.stop_reason == "max_nodes" and capped.nodes == 10_001


def test_constructive_solvers_report_their_work_in_their_unit():
    """backtrack: search nodes; exact_first: candidates priced, by the search and, when it gives up,
    by the beam as well (one unit for both)."""
    easy = EdgeMatching(n=7, colours=20, instance_seed=0)
    exact = solve_exact(easy.table, 7, easy.preplaced)
    assert Backtrack.work_unit == "node" and Backtrack().construct(easy).work == exact.nodes
    assert ExactFirst.work_unit == "placement" and ExactFirst().construct(easy).work == exact.priced > 0
    hard = EdgeMatching(n=9, colours=5, instance_seed=0)
    capped = solve_exact(hard.table, 9, hard.preplaced, max_nodes=1000)
    beam = Beam(width=50, seed=3, max_width=None, order="frame_first").construct(hard)
    built = ExactFirst(max_nodes=1000, width=50, seed=3).construct(hard)
    assert built.work == capped.priced + beam.work and capped.priced > 0
    assert np.array_equal(built.layout.piece, beam.layout.piece) and built.stop_reason == "finished"
