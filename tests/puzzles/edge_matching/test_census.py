"""A census as a checksum: a whole count's boards, nodes and pieces placed are the same on any number
of threads; pieces placed (the community's node) relate to our nodes as every placement is undone once;
the count's live line and the threads' busy share; the figures through the app."""

import itertools

import numpy as np
import pandas as pd
import pytest

from puzzles.edge_matching.eternity2 import Eternity2Like
from puzzles.edge_matching.solvers.perfect_search import Board, busy, search, watch
from tests.experiments.test_experiment_run import run_app
from tests.puzzles.edge_matching.test_perfect_search import BOARDS


def census_boards():
    yield "6x6 peak #0", Eternity2Like(n=6, instance_seed=0)
    yield "6x6 peak #1", Eternity2Like(n=6, instance_seed=1)
    yield "4x6 turning", BOARDS["4x6 turning"]
    yield "5x5 unturned, centre", BOARDS["5x5 unturned, centre"]


@pytest.mark.parametrize("name, puzzle", list(census_boards()))
def test_a_census_is_the_same_count_nodes_and_placements_on_any_number_of_threads(name, puzzle):
    """And by either walk: the general one or the one generated for the board."""
    board = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order="auto")
    fused = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order=board.order_name, generated=True)
    answers = [search(b, threads=threads) for threads in (1, 2, 3) for b in (board, fused)]
    assert all(a.complete for a in answers) and answers[0].count > 0 and fused.generated_walk() is not None
    assert len({(a.count, a.nodes, a.placements) for a in answers}) == 1, name
    assert 0 < answers[0].placements < answers[0].nodes


@pytest.mark.parametrize("name, puzzle", list(census_boards()))
def test_a_whole_walk_undoes_each_placement_once_by_a_dead_end_or_a_whole_board(name, puzzle):
    """Every piece placed is lifted once: by the dead end its child ends in, or on reaching a whole
    board; only the root's last dead end lifts nothing. So 2 x placements = nodes + boards - 1, whatever
    the board, order, symmetry or walk: our nodes are about twice the community's."""
    for order, symmetry in itertools.product(("rows", "columns", "spiral"), (False, True)):
        walks = []
        for generated in (False, True):  # the general walk, and the one generated for the board
            board = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order, symmetry=symmetry,
                          generated=generated)  # fmt: skip
            f, never = len(board.order), np.zeros(1, np.int64)
            walks.append(board.walk(board.fresh_state(), 0, f, 1 << 40, 1 << 40, never, never.copy(), 1)[:4])
        status, found, nodes, placed = walks[0]
        assert walks[1] == walks[0], (name, order, symmetry)
        assert status == 1 and found > 0 and 2 * placed == nodes + found - 1, (name, order, symmetry)


def test_a_long_count_shows_boards_so_far_the_share_of_the_tree_and_the_time_left(monkeypatch, capsys):
    monkeypatch.setattr(watch, "LOG_EVERY", 0.0)  # a line at every look, not every few seconds
    puzzle = Eternity2Like(n=6, instance_seed=0)
    board = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order="auto")
    answer = search(board, threads=2, show_progress=True)
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(line.startswith("perfect boards: ") for line in lines)
    assert all("% of the estimated tree" in line and "node/s" in line for line in lines)
    assert any(" left" in line for line in lines)  # before the walk passes its estimate
    last = int(lines[-1].split()[2].replace(",", ""))
    assert last <= answer.count  # boards so far, each standing for its turns


def test_the_busy_share_is_the_threads_time_in_jobs():
    assert busy(np.array([[0.0, 10.0], [0.0, 5.0]]), threads=2) == 0.75  # one thread idle half the span
    assert busy(np.array([[0.0, 4.0], [4.0, 10.0]]), threads=1) == 1.0
    assert busy(np.zeros((3, 2)), threads=2) == 1.0  # no job ran


def test_task_exact_records_nodes_placements_and_busy_share(tmp_path):
    proc = run_app("task=exact", "puzzle=eternity2_like", "puzzle.n=6", f"hydra.run.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    row = pd.read_parquet(tmp_path / "exact.parquet").iloc[0]
    puzzle = Eternity2Like(n=6, instance_seed=0)
    direct = search(Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, order="auto"))
    assert (row["perfect_boards"], row["nodes"], row["placements"]) == (
        direct.count,
        direct.nodes,
        direct.placements,
    )
    assert 0 < row["busy"] <= 1 and f"{direct.placements:,} pieces placed" in proc.stdout
