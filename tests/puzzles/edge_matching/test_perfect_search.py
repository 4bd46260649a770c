"""The perfect-board search: its counts against an independent CP-SAT model, the same answer on any
thread count, scan order, symmetry and look-ahead, proofs of no board, and the paths users run."""

import numpy as np
import pandas as pd
import pytest

from puzzles.edge_matching import EdgeMatching
from puzzles.edge_matching.eternity2 import Eternity2, Eternity2Like
from puzzles.edge_matching.solvers.perfect_search import ORDERS, Board, search
from tests.experiments.test_experiment_run import run_app
from tests.oracles.edge_cpsat_model import count_perfect

CLUES = "puzzles/data/eternity2/clue{}.txt"


def boards():
    """Small boards of every kind: turning (square, rectangles, repeated frame pieces), unturned, hinted."""
    yield "4x4 turning", Eternity2Like(n=4, instance_seed=0)
    yield "4x4 turning, 12 boards", Eternity2Like(n=4, frame_colours=1, inner_colours=3, instance_seed=1)
    yield "3x5 turning", Eternity2Like(n=3, m=5, frame_colours=1, inner_colours=2, instance_seed=2)
    yield "4x6 turning", Eternity2Like(n=4, m=6, frame_colours=2, inner_colours=3, instance_seed=3)
    yield "5x3 turning", Eternity2Like(n=5, m=3, frame_colours=2, inner_colours=2, instance_seed=4)
    yield "4x4 hinted", Eternity2Like(n=4, frame_colours=1, inner_colours=3, instance_seed=1, hints=([1, 1],))
    yield "4x4 unturned", EdgeMatching(n=4, colours=2, rotations=False, fix_centre=False, instance_seed=5)
    yield "5x5 unturned, centre", EdgeMatching(n=5, colours=3, rotations=False, instance_seed=6)


BOARDS = dict(boards())


def is_perfect(puzzle, piece, turn) -> bool:
    layout = puzzle.layout(piece, turn)  # every piece once, the hints kept, grey on the rim (or raises)
    return puzzle.score_layout(layout)["unmatched_edges"] == 0


@pytest.mark.parametrize("name", BOARDS)
def test_counts_agree_with_cp_sat(name):
    puzzle = BOARDS[name]
    expected = count_perfect(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, seconds=60)
    answer = search(Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced), keep=3, threads=1)
    assert answer.complete and answer.count == expected >= 1
    assert answer.boards and all(is_perfect(puzzle, *b) for b in answer.boards)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["4x4 turning, 12 boards", "4x6 turning", "5x5 unturned, centre"])
def test_same_answer_on_any_threads_order_symmetry_and_look_ahead(name):
    puzzle = BOARDS[name]
    args = (puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced)
    reference = search(Board(*args, order="rows", lookahead=False, symmetry=False), keep=100_000, threads=1)
    assert len(reference.boards) == reference.count
    firsts = []
    for order in ORDERS:
        for lookahead in (False, True):
            for symmetry in (False, True):
                board = Board(*args, order=order, lookahead=lookahead, symmetry=symmetry)
                for threads in (1, 2, 3):
                    answer = search(board, keep=1, threads=threads)
                    assert answer.complete and answer.count == reference.count, (order, lookahead, symmetry)
                    firsts.append((order, lookahead, symmetry, threads, answer.boards[0]))

    def colours(board):  # a board as its colours: identical pieces are one
        return puzzle.table[board[0], board[1]].tobytes()

    assert {colours(b) for *_, b in firsts} <= {colours(b) for b in reference.boards}
    for order, lookahead, symmetry, _, board in firsts:  # the first board does not depend on the threads
        same = [b for o, la, s, _, b in firsts if (o, la, s) == (order, lookahead, symmetry)]
        assert all(colours(b) == colours(board) for b in same)


def test_symmetry_cuts_the_tree_and_keeps_the_count():
    puzzle = Eternity2Like(n=6, instance_seed=0)
    args = (puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced)
    full = search(Board(*args, symmetry=False), threads=1)
    kept = search(Board(*args, symmetry=True), threads=1)
    assert kept.symmetry == 4 and kept.count == full.count >= 4 and kept.count % 4 == 0
    assert kept.nodes < full.nodes / 3


def changed(seed: int, change: str, tmp_path) -> str:
    """A piece file of a generated 6 x 6 board with its first inner piece changed: one side recoloured
    (a colour then has an odd count) or the piece mirrored (the same colours, turned wrong)."""
    sides = Eternity2Like(n=6, instance_seed=seed).sides.copy()
    inner = np.flatnonzero((sides > 0).all(axis=1))[0]
    if change == "recoloured":
        sides[inner, 0] = sides.max() + 1
    else:
        sides[inner, [0, 2]] = sides[inner, [2, 0]]
    path = tmp_path / f"{change}.txt"
    path.write_text("# order: left top right bottom\n" + "\n".join(" ".join(map(str, s)) for s in sides))
    return str(path)


@pytest.mark.parametrize("change, walked", [("recoloured", False), ("mirrored", True)])
def test_a_changed_board_is_proved_to_have_none(change, walked, tmp_path):
    path = changed(1, change, tmp_path)
    puzzle = Eternity2(starter=False, pieces_file=path, order="left top right bottom")
    answer = search(Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced), threads=2)
    assert answer.none and answer.stop_reason == "finished"
    assert (answer.nodes > 0) == walked  # an odd colour count is a proof without a node


@pytest.mark.slow
def test_task_exact_proves_no_perfect_board_and_the_optimum(tmp_path):
    path = changed(1, "recoloured", tmp_path)
    proc = run_app(
        "task=exact",
        "puzzle=eternity2",
        f"puzzle.pieces_file={path}",
        "puzzle.starter=false",
        "puzzle.order=left top right bottom",
        f"hydra.run.dir={tmp_path / 'run'}",
    )
    assert proc.returncode == 0, proc.stderr
    row = pd.read_parquet(tmp_path / "run" / "exact.parquet").iloc[0]
    assert row["perfect_boards"] == 0 and row["all_counted"] and row["optimum"] == 1 == row["lower_bound"]
    assert "no perfect board" in proc.stdout


def test_caps_stop_the_search_and_say_so():
    puzzle = Eternity2Like(n=7, instance_seed=3)
    board = Board(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced)
    capped = search(board, max_nodes=100_000, threads=2)
    assert capped.stop_reason == "max_nodes" and not capped.complete and not capped.none
    timed = search(board, seconds=0.2, threads=2)
    assert timed.stop_reason == "seconds" and timed.seconds < 5


@pytest.mark.slow
def test_the_6x12_clue_puzzle_is_solved_from_the_command_line(tmp_path):
    proc = run_app(
        "puzzle=eternity2",
        f"puzzle.pieces_file={CLUES.format(2)}",
        "puzzle.starter=false",
        "optimizer=backtrack",
        f"hydra.run.dir={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr
    row = pd.read_parquet(tmp_path / "run.parquet").iloc[0]
    assert row["best"] == row["score.unmatched_edges"] == 0 and row["score.matched_edges"] == 2 * 6 * 12 - 18


def test_task_exact_counts_a_small_board_as_cp_sat_does(tmp_path):
    puzzle = BOARDS["4x6 turning"]
    expected = count_perfect(puzzle.table, puzzle.n, puzzle.m, puzzle.preplaced, seconds=60)
    proc = run_app(
        "task=exact",
        "puzzle=eternity2_like",
        "puzzle.n=4",
        "puzzle.m=6",
        "puzzle.frame_colours=2",
        "puzzle.inner_colours=3",
        "puzzle.instance_seed=3",
        f"hydra.run.dir={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr
    row = pd.read_parquet(tmp_path / "exact.parquet").iloc[0]
    assert row["perfect_boards"] == expected and row["all_counted"] and row["optimum"] == 0
    assert row["nodes"] > 0 and row["seconds"] > 0 and (tmp_path / "board_0.png").stat().st_size > 0
    record = pd.read_parquet(tmp_path / "run.parquet").iloc[0]
    assert record["perfect_boards"] == expected
