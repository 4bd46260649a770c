import itertools
import re
import time

import numpy as np
import pytest

from puzzles.edge_matching import EdgeMatching, Layout, count_unmatched, turn_table
from puzzles.edge_matching.solvers.backtrack import (
    Backtrack,
    ExactFirst,
    _index,
    deepening,
    setup,
    solve_exact,
)
from puzzles.edge_matching.solvers.beam import Beam
from puzzles.edge_matching.solvers.perfect_search import Board


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


@pytest.mark.slow
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


@pytest.mark.parametrize("n, colours, rotations", [(9, 5, False), (7, 4, False), (5, 4, True), (5, 3, True)])
def test_the_perfect_search_and_the_deepening_search_agree_on_a_perfect_board(n, colours, rotations):
    """Two searches, two trees: the perfect search (puzzles/edge_matching/solvers/perfect_search/) and the deepening
    search's first step (k = 0) both find a perfect board where one exists, and it is legal."""
    p = EdgeMatching(n=n, colours=colours, rotations=rotations, fix_centre=not rotations, instance_seed=3)
    fast = solve_exact(p.table, n, p.preplaced)
    s = setup(p.table, n, p.preplaced)
    status, walked, _ = deepening(s, n, n, 0, _index(s.table), 10**9, np.zeros(1, np.int64))
    assert fast.optimal and fast.unmatched == 0 and status == 1
    for piece, rotation in ((fast.piece, fast.rotation), (s.piece, s.rot)):
        layout = Layout(n, piece, rotation)
        p.check(layout)
        assert p.fitness(p.encode(layout)) == 0


@pytest.mark.slow
def test_a_perfect_search_that_runs_out_says_only_that_no_perfect_board_was_ruled_out():
    """The seed's 13 x 13 at 8 colours, instance 0, needs about 1.7e10 nodes; capped at 10,000."""
    p = EdgeMatching(n=13, colours=8, rotations=False, fix_centre=True, instance_seed=0)
    result = solve_exact(p.table, 13, p.preplaced, max_nodes=10_000)
    assert not result.optimal and result.piece is None and result.lower_bound == 0
    assert result.nodes == 10_001


@pytest.mark.parametrize("rotations", [False, True])
def test_the_candidate_lists_hold_exactly_the_orients_that_fit_each_cell_in_order(rotations):
    """Every depth's list, for every colour its known neighbours can show: the distinct turns of the
    pieces whose grey sides are the cell's rim and whose known sides show those colours."""
    p = EdgeMatching(n=5, colours=3, rotations=rotations, fix_centre=False, instance_seed=4)
    board = Board(p.table, 5, 5, symmetry=False)
    table, radix = board.table, board.radix
    for d, cell in enumerate(board.order):
        sides = [int(s) for s in (board.key_at[d, : board.key_len[d]] + 2) % 4]
        for key in range(radix ** len(sides)):
            colours = [key // radix ** (len(sides) - 1 - j) % radix for j in range(len(sides))]
            first = last = board.starts[board.base[d] + key]
            while board.piece_of[last] != len(table):  # a list ends at a sentinel entry (issue 34)
                last += 1
            listed = list(zip(board.piece_of[first:last], board.turn_of[first:last], strict=True))
            expected = [
                (q, r)
                for q in range(len(table))
                for r in range(table.shape[1])
                if board.orient_pattern[q, r] == board.cell_pattern[cell]
                and not any((table[q, t] == table[q, r]).all() for t in range(r))
                and all(table[q, r, s] == c for s, c in zip(sides, colours, strict=True))
            ]
            assert listed == expected


def test_a_time_limit_ends_the_search_as_the_node_cap_does_with_its_reason():
    """The seed's 13 x 13 at 8 colours needs about 1.7e10 nodes: 0.3 s cannot finish it. The search
    gives up with the bound it proved (0), saying the time, not the cap, stopped it; the cap says so
    too. The flag is read every few thousand nodes, so it stops within a few milliseconds of the limit."""
    p = EdgeMatching(n=13, colours=8, rotations=False, fix_centre=True, instance_seed=0)
    solve_exact(p.table, 13, p.preplaced, max_nodes=10)  # load the kernels before the clock
    started = time.perf_counter()
    timed = solve_exact(p.table, 13, p.preplaced, max_nodes=10**15, seconds=0.3)
    assert 0.3 <= time.perf_counter() - started < 0.6
    assert timed.stop_reason == "seconds" and timed.piece is None and not timed.optimal
    assert timed.lower_bound == 0 and timed.nodes > 10_000
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


def test_a_seconds_budget_alone_is_not_cut_short_by_a_default_node_cap():
    assert Backtrack().node_cap(600.0) > 10**15  # the time is the budget
    assert Backtrack().node_cap(None) == 50_000_000  # no budget at all: the default cap
    assert Backtrack(max_nodes=1000).node_cap(600.0) == 1000  # a cap set is kept


def test_a_give_up_returns_a_board_its_stop_reason_and_what_was_proved():
    """The seed's 13 x 13 at 8 colours needs about 1.7e10 nodes: 0.3 s cannot finish it. The run still
    gets a board (a narrow beam's), its stop reason and nodes, and one line that states no bound of 0."""
    p = EdgeMatching(n=13, colours=8, rotations=False, fix_centre=True, instance_seed=0)
    built = Backtrack().construct(p, 0.3)
    assert re.match(r"^optimizer=backtrack stopped after [\d,]+ nodes", built.note)
    assert built.stop_reason == "seconds" and not built.optimal and built.work == built.nodes > 0
    assert built.lower_bound is None and "at least" not in built.note  # 0 is no bound on a count
    p.check(built.layout)
    score = p.fitness(p.encode(built.layout))
    assert f"with {score:g} unmatched edges" in built.note
    capped = Backtrack(max_nodes=5000).construct(p)
    assert capped.stop_reason == "max_nodes" and capped.nodes > 5000 and "node cap 5,000" in capped.note
