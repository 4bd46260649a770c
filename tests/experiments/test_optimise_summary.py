"""The console's result line (`summary_line`) says what a record holds: a record with its best but no
evaluations or seconds (missing, None or NaN: a run whose files could not be written) gets a line
without them, not a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiments.tasks.optimise import summary_line

ROW = {"puzzle": "pentomino", "optimizer": "ga", "seed": 0, "best": 12.0, "known_optimum": 12.0}


def test_a_full_row_says_its_evaluations_and_seconds():
    row = {**ROW, "evaluations": 2343, "seconds": 0.0712, "stop_reason": "target"}
    assert summary_line(row, Path("runs/a")) == (
        "pentomino | ga | seed 0: best 12 (known optimum 12) after 2,343 evaluations, 0.07 s (target) -> runs/a"
    )


@pytest.mark.parametrize(
    "missing",
    [{}, {"evaluations": None, "seconds": None}, {"evaluations": float("nan"), "seconds": float("nan")}],
)
def test_a_row_without_evaluations_and_seconds_leaves_them_out(missing):
    row = {**ROW, **missing, "stop_reason": "interrupted"}
    assert summary_line(row, Path("runs/a")) == (
        "pentomino | ga | seed 0: best 12 (known optimum 12) (interrupted) -> runs/a"
    )


def test_a_row_with_seconds_only_says_them():
    row = {**ROW, "evaluations": None, "seconds": 1.5, "stop_reason": "seconds"}
    assert summary_line(row, Path("runs/a")) == (
        "pentomino | ga | seed 0: best 12 (known optimum 12) after 1.50 s (seconds) -> runs/a"
    )
