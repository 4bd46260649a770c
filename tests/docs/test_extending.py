"""The project's copies of docs/extending.md's examples run through the app: each is a module and a YAML
(tests/docs/test_extending_page.py runs the page's own code blocks)."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pandas as pd
import pytest

from puzzles.queens import Queens
from tests.experiments.test_experiment_run import run_app


def test_queens_fitness_counts_diagonal_pairs():
    q = Queens(4)
    assert q.fitness(np.array([1, 3, 0, 2])) == 0  # one of the two 4-queens solutions
    assert q.fitness(np.arange(4)) == 6  # all on one diagonal: C(4, 2)
    # 8 queens: exactly 92 of the 8! placements are solutions (a classic count)
    assert sum(Queens(8).fitness(np.array(p)) == 0 for p in permutations(range(8))) == 92


@pytest.mark.slow
def test_new_optimizer_on_new_puzzle_through_the_app(tmp_path):
    proc = run_app(
        "puzzle=queens",
        "puzzle.n=20",
        "optimizer=lahc",
        "budget.evaluations=100000",
        "progress=false",
        f"hydra.run.dir={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr
    row = pd.read_parquet(tmp_path / "run.parquet").iloc[0]
    assert (row["puzzle"], row["optimizer"], row["score_name"]) == ("queens", "lahc", "attacking pairs")
    assert row["best"] == 0 and row["success"] and row["optimizer.history"] == 50
    assert (tmp_path / "best.png").stat().st_size > 0


@pytest.mark.slow
def test_the_same_puzzle_answered_exactly_through_the_app(tmp_path):
    proc = run_app("puzzle=queens", "task=exact", "puzzle.n=8", "progress=false", f"hydra.run.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    row = pd.read_parquet(tmp_path / "run.parquet").iloc[0]
    assert row["task"] == "exact" and row["solutions"] == 92 and row["agrees_with_oeis"]
    assert (tmp_path / "queens.png").stat().st_size > 0


def test_exact_counts_agree_with_oeis_and_with_the_fitness():
    from experiments.tasks.exact import Exact

    counts = [Exact().solve(Queens(n), {"n": n}).count for n in range(4, 10)]
    assert counts == [2, 10, 4, 40, 92, 352]  # OEIS A000170
    answer = Exact(draw=5, count=False).solve(Queens(6), {"n": 6})
    for solution in answer.solutions:  # every exact solution has fitness 0 on the other face
        board = np.zeros(36, dtype=np.int64)
        board[np.asarray(solution)] = 1
        assert Queens(6).fitness(board.reshape(6, 6).argmax(axis=1)) == 0
