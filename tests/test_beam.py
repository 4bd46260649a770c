"""Beam search and the exact-first solver: the seed's boards (pieces never turn) and turning pieces."""

import itertools
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pytest

from core import InputError
from heuristics.backtrack import ExactFirst
from heuristics.beam import ORDERS, Beam, beam_search, grey_patterns, keep_schedule, pools
from heuristics.edge_greedy import Greedy
from puzzles.edge_matching import EdgeMatching, count_unmatched, turn_table
from puzzles.edge_matching.eternity2 import Eternity2


def _spoiled(n, colours, seed):
    """A generated board's pieces with a few inner sides recoloured, so the optimum is above 0."""
    sides = EdgeMatching(n=n, colours=colours, fix_centre=False, instance_seed=seed).sides.copy()
    rng = np.random.default_rng(seed)
    inner = np.argwhere(sides > 0)
    for i in rng.choice(len(inner), size=3, replace=False):
        sides[tuple(inner[i])] = rng.integers(1, colours + 1)
    return sides


def _best_legal_board(table, n):
    """The fewest unmatched edges over every board whose pieces face their grey sides out: cells that
    the same pieces fit form a group, filled by every permutation of those pieces in every fitting turn."""
    rows, cols = np.divmod(np.arange(n * n), n)
    cell_bits = (np.stack([cols == 0, rows == 0, cols == n - 1, rows == n - 1], 1) * [1, 2, 4, 8]).sum(1)
    bits = ((table == 0) * [1, 2, 4, 8]).sum(2)  # per piece and turn
    fits = {
        (int(b), p): [t for t in range(table.shape[1]) if bits[p, t] == b]
        for b in cell_bits
        for p in range(n * n)
    }
    fitting = [tuple(p for p in range(n * n) if fits[int(cell_bits[x]), p]) for x in range(n * n)]
    groups = [(np.flatnonzero([f == key for f in fitting]), key) for key in set(fitting)]
    best = 4 * n * n
    for perms in itertools.product(*(itertools.permutations(pieces) for _, pieces in groups)):
        board = np.empty(n * n, dtype=np.int64)
        for (cells, _), perm in zip(groups, perms, strict=True):
            board[cells] = perm
        for turns in itertools.product(*(fits[int(cell_bits[x]), int(board[x])] for x in range(n * n))):
            best = min(best, count_unmatched(board, np.array(turns), table, n))
    return best


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("seed", range(6))
def test_a_beam_wider_than_the_tree_finds_the_optimum(seed, order):
    """Unturned 4 x 4 boards have 4! * 2!^4 = 384 legal boards, so a beam of 1,000 keeps every partial
    board, in any order: it must find the optimum brute force finds; a beam of one can only do as
    well or worse."""
    table = turn_table(_spoiled(4, 3, seed), False)
    optimum = _best_legal_board(table, 4)
    piece, turns, unmatched = beam_search(table, 4, width=1000, seed=seed, order=order)
    assert unmatched == optimum == count_unmatched(piece, turns, table, 4)
    assert beam_search(table, 4, width=1, seed=seed)[2] >= optimum


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("seed", range(4))
def test_with_turns_a_beam_wider_than_the_tree_finds_the_optimum(seed, order):
    """Turning 3 x 3 boards: 4! corner and 4! frame placements (their turns forced by the border)
    times 4 turns of the centre = 2,304 legal boards, so a beam of 5,000 is exhaustive."""
    table = turn_table(_spoiled(3, 3, 10 + seed), True)
    optimum = _best_legal_board(table, 3)
    piece, turns, unmatched = beam_search(table, 3, width=5000, seed=seed, order=order)
    assert unmatched == optimum == count_unmatched(piece, turns, table, 3)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("max_width", [None, 5000])
@pytest.mark.parametrize("n, colours, rotations", [(5, 3, False), (7, 4, False), (9, 5, False), (8, 5, True)])
def test_beam_boards_are_legal_and_scored_as_the_puzzle_scores_them(n, colours, rotations, max_width, order):
    """Every order, widened or not, pieces turning or not (the kernel also refuses to run should a
    cell have more candidates than keep_schedule allowed for)."""
    puzzle = EdgeMatching(n=n, colours=colours, instance_seed=n, rotations=rotations, fix_centre=n % 2 == 1)
    piece, turns, unmatched = beam_search(puzzle.table, n, puzzle.preplaced, 50, 1, max_width, order)
    layout = puzzle.layout(piece, turns)  # checks each piece once, the centre kept
    assert puzzle.score_layout(layout)["unmatched_edges"] == unmatched


def test_keep_schedule_widens_where_few_candidates_are_left_and_bounds_them():
    """On the official set's rows: the inner cells' candidates shrink from 4 x 195 turns of inner
    pieces to 4 x 1, so the kept boards grow from `width` up to max_width, never pricing more than
    `width` boards at the first inner cell do (the starter's cell, 135, has one candidate)."""
    puzzle = Eternity2()
    orient_pattern, cell_pattern = grey_patterns(puzzle.table, 16)
    orient_pattern[puzzle.preplaced[0, 1] * 4 : puzzle.preplaced[0, 1] * 4 + 4] = -1
    fixed = np.full(256, -1)
    fixed[puzzle.preplaced[0, 0]] = puzzle.preplaced[0, 1] * 4 + puzzle.preplaced[0, 2]
    _, _, count, cell_pool = pools(orient_pattern, cell_pattern, 4)
    keeps, cap = keep_schedule(count, cell_pool, fixed, ORDERS["rows"](16), 100, 10_000)
    assert cap == 100 * 4 * 195  # the first inner cell, the starter's piece taken
    assert keeps.min() == 100 and keeps[-2] == 10_000 and keeps[-1] == 100
    inner = np.array([r * 16 + c for r in range(1, 15) for c in range(1, 15) if r * 16 + c != 135])
    assert (np.diff(keeps[inner - 1]) >= 0).all()  # the boards going on to each inner cell only grow


def test_the_beam_is_the_same_on_one_thread_as_on_several():
    """Each entry's candidates have their own slots, so threads change the speed, not the board."""
    puzzle = Eternity2()
    boards = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        boards.append(beam_search(puzzle.table, 16, puzzle.preplaced, 100, 2, 2000, "rows"))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert all(np.array_equal(a, b) for a, b in zip(boards[0], boards[1], strict=True))


@pytest.mark.parametrize("seed", [0, 1])
def test_rows_and_widening_match_more_of_the_official_set(seed):
    """Record backtrackers scan rows, and a beam's mismatches fall on the last cells it fills: on
    the official set, rows with a 100x wider tail beat the frame-first order at the same width (at
    width 200: 27 and 30 unmatched against 35 and 34)."""
    puzzle = Eternity2()
    framed = beam_search(puzzle.table, 16, puzzle.preplaced, 200, seed, None, "frame_first")[2]
    widened = beam_search(puzzle.table, 16, puzzle.preplaced, 200, seed, 20_000, "rows")[2]
    assert widened < framed - 3


@pytest.mark.parametrize(
    "setting, message",
    [
        ({"width": 0}, "optimizer.width must be positive"),
        ({"width": 10, "max_width": 5}, "optimizer.max_width must be at least width"),
        ({"order": "spiral"}, "optimizer.order must be one of rows, frame_first"),
    ],
)
def test_bad_beam_settings_are_refused_in_one_line(setting, message):
    with pytest.raises(InputError, match=message):
        Beam(**setting)


def test_a_wider_beam_leaves_fewer_unmatched_edges_near_the_transition():
    """n = 11 at 6 colours: the greedy leaves dozens of edges unmatched; a beam of 2,000 far fewer."""
    puzzle = EdgeMatching(n=11, colours=6, instance_seed=0)
    greedy = puzzle.score_layout(Greedy().solve(puzzle))["unmatched_edges"]
    narrow = puzzle.score_layout(Beam(width=10).solve(puzzle))["unmatched_edges"]
    wide = puzzle.score_layout(Beam(width=2000).solve(puzzle))["unmatched_edges"]
    assert wide < narrow and wide < greedy


def test_beam_on_the_official_eternity_ii_set_keeps_the_rules():
    """Pieces turn, the starter piece stays, grey sides face out: a legal board, scored as the puzzle
    scores it, far above the corrected greedy's 396 (84 unmatched) even at width 50."""
    puzzle = Eternity2()
    layout = Beam(width=50).solve(puzzle)  # puzzle.layout checks pieces once and the starter kept
    assert puzzle.score_layout(layout)["border_sides_ok"] == 64
    assert puzzle.score_layout(layout)["matched_edges"] > 396


def test_pieces_that_cannot_fill_the_border_are_refused_in_one_line():
    colours = EdgeMatching(n=5, colours=4, fix_centre=False).sides.copy()
    colours[colours == 0] = 1  # no grey side anywhere: no piece fits a border cell
    with pytest.raises(InputError, match="only 0 pieces fit"):
        beam_search(turn_table(colours, False), 5)


def test_exact_first_solves_where_the_search_is_small_and_else_is_the_beam():
    """13 x 13 at 30 colours: the backtracker finds the perfect board in a few hundred nodes. At 5
    colours with a cap of 1,000 nodes it gives up and the board is the beam's, exactly."""
    easy = EdgeMatching(n=13, colours=30, instance_seed=0)
    assert easy.score_layout(ExactFirst().solve(easy))["unmatched_edges"] == 0
    hard = EdgeMatching(n=9, colours=5, instance_seed=0)
    capped = ExactFirst(max_nodes=1000, width=200, seed=3).solve(hard)
    beam = Beam(width=200, seed=3, max_width=None, order="frame_first").solve(hard)
    assert np.array_equal(capped.piece, beam.piece)
    assert hard.score_layout(capped)["unmatched_edges"] > 0


def test_a_constructive_solver_runs_as_one_evaluation_of_the_optimise_task(tmp_path):
    """python -m experiments.run puzzle=eternity2 optimizer=beam: a record whose best is the beam's
    board, scored as the puzzle scores it, after one evaluation."""
    proc = subprocess.run(
        [sys.executable, "-m", "experiments.run", "puzzle=eternity2", "optimizer=beam", "optimizer.width=50"]
        + [f"hydra.run.dir={tmp_path}", "progress=false"],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    row = pd.read_parquet(tmp_path / "run.parquet").iloc[0]
    layout = Beam(width=50).solve(Eternity2())
    assert row["evaluations"] == 1 and row["best"] == Eternity2().score_layout(layout)["unmatched_edges"]
    assert row["score.matched_edges"] == 480 - row["best"]
