"""Long runs resume from their checkpoint (issue 58, item 1): a run stopped by a signal and run again
with the same command in the same folder ends where an uninterrupted run would, bit for bit, under an
evaluation budget; under a seconds budget it gets the time left; a damaged or foreign checkpoint is
refused in one line.

Why forked, and a real signal: each run is the app's entry point in a child forked from this process
(tests/experiments/test_bad_input.py's `forked`), and the stop is a real SIGINT the child sends itself once
half the budget is spent (from the live line's progress call), so it lands wherever the signal's watcher
thread sets the flag, mid-step or not, as a user's Ctrl-C or a cluster's SIGTERM would.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.checkpoint import FILE, Checkpoint
from core.space import Budget
from heuristics.ga import GA
from heuristics.lahc import LateAcceptance
from heuristics.minimize import minimize
from heuristics.random_search import RandomSearch
from heuristics.sa import SimulatedAnnealing
from heuristics.two_opt import TwoOpt
from puzzles.pentomino import PentominoStrip
from tests.experiments.test_bad_input import _as_main, assert_one_line, forked, needs_fork

pytestmark = needs_fork

EVALUATIONS = 20_000
BOARD = ["puzzle=eternity2_like", "puzzle.n=6"]  # no optimiser solves it in the budget: no early end


@pytest.fixture(scope="module", autouse=True)
def warm(compose_config) -> None:
    """What every forked run loads, loaded once here, where the children inherit it: the app, the
    board's compiled fitness, matplotlib (about 2 s a run otherwise)."""
    import matplotlib.pyplot  # noqa: F401

    import experiments.tasks.optimise  # noqa: F401
    import puzzles.edge_matching.pictures  # noqa: F401
    from experiments.build import build

    puzzle = build(compose_config(*BOARD).puzzle, "puzzle")
    puzzle.fitness(puzzle.space.identity())


def argv(optimizer: str, folder: Path, *more: str) -> list[str]:
    return [*BOARD, f"optimizer={optimizer}", "progress=false", f"hydra.run.dir={folder}", *more]


def run(args: list[str], folder: Path, stop_at: int | None = None):
    """The app on `args` in a forked child; with `stop_at`, the child sends itself SIGINT once it has
    made that many evaluations (the objective's progress call, every 1,000)."""

    def call() -> None:
        if stop_at is not None:
            from experiments.live import LiveLine

            def seen(self, objective) -> None:
                self.objective = objective
                if objective.evaluations >= stop_at and not getattr(self, "signalled", False):
                    self.signalled = True
                    os.kill(os.getpid(), signal.SIGINT)

            LiveLine.seen = seen  # type: ignore[method-assign]
        _as_main(args)

    return forked(call, folder, fresh_ok=True)  # the child sets its own hook


def row(folder: Path) -> pd.Series:
    return pd.read_parquet(folder / "run.parquet").iloc[0]


def interrupted(optimizer: str, folder: Path, *more: str, stop_at: int = EVALUATIONS // 2):
    """A run of `optimizer` stopped by SIGINT about `stop_at` evaluations in: its checkpoint is there."""
    folder.mkdir()
    stopped = run(argv(optimizer, folder, *more), folder, stop_at)
    assert stopped.returncode == 130, stopped.stderr
    assert row(folder)["stop_reason"] == "interrupted"
    assert (folder / FILE).is_file(), stopped.stderr
    assert "the same command continues the run" in stopped.stderr
    return stopped


@pytest.mark.parametrize(  # one in the fast tier; the others are longer checks of the same path
    "optimizer",
    ["ga", pytest.param("sa", marks=pytest.mark.slow), pytest.param("two_opt", marks=pytest.mark.slow)],
)
def test_a_run_stopped_and_run_again_ends_as_an_unbroken_one(tmp_path, optimizer):
    budget = f"budget.evaluations={EVALUATIONS}"
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    whole.mkdir()
    assert run(argv(optimizer, whole, budget), whole).returncode == 0
    interrupted(optimizer, broken, budget)
    assert row(broken)["evaluations"] < EVALUATIONS
    config = (broken / "config.yaml").read_bytes()

    again = run(argv(optimizer, broken, budget), broken)
    assert again.returncode == 0, again.stderr
    said = [line for line in again.stdout.splitlines() if line.startswith("resumed from checkpoint: ")]
    assert len(said) == 1, again.stdout
    a, b = row(whole), row(broken)
    assert (b["best"], b["evaluations"], b["best_genome"]) == (a["best"], a["evaluations"], a["best_genome"])
    assert b["stop_reason"] == a["stop_reason"] == "evaluations"
    trace_a, trace_b = (pd.read_parquet(f / "trace.parquet") for f in (whole, broken))
    assert trace_b[["evaluations", "best"]].equals(trace_a[["evaluations", "best"]])
    assert not (broken / FILE).exists()  # the record is complete: nothing left to continue
    assert (broken / "config.yaml").read_bytes() == config


def test_a_continued_run_gets_the_time_left(tmp_path):
    folder = tmp_path / "timed"
    interrupted("sa", folder, "budget.seconds=3", stop_at=3000)
    spent = float(row(folder)["seconds"])
    assert spent < 3
    again = run(argv("sa", folder, "budget.seconds=3"), folder)
    assert again.returncode == 0, again.stderr
    assert "resumed from checkpoint: " in again.stdout
    done = row(folder)
    assert done["stop_reason"] == "seconds"
    assert 3 <= done["seconds"] < 4, done["seconds"]  # the whole run's time: 3 s, not 3 s more


def test_a_checkpoint_of_other_settings_is_refused_in_one_line(tmp_path):
    folder = tmp_path / "run"
    interrupted("ga", folder, f"budget.evaluations={EVALUATIONS}", stop_at=3000)
    config = (folder / "config.yaml").read_bytes()
    other = run(argv("ga", folder, f"budget.evaluations={EVALUATIONS}", "seed=1"), folder)
    assert_one_line(other, "seed (0 -> 1)")
    assert f"delete {folder / FILE} to start the run afresh" in other.stderr
    assert (folder / "config.yaml").read_bytes() == config  # the folder still says which run it holds


def test_a_damaged_checkpoint_is_refused_in_one_line(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / FILE).write_bytes(b"\x80\x05cut off")
    damaged = run(argv("ga", folder, "budget.evaluations=2000"), folder)
    assert_one_line(damaged, f"damaged checkpoint {folder / FILE}")
    assert "to start the run afresh" in damaged.stderr


# In-process: the optimisers the app's tests above do not stop, and the checkpoint's interval.

STRIP = PentominoStrip(orientations="free")


def stopping_at(count: int):
    """An on_progress that asks for a stop (as the signal's watcher does) once `count` evaluations are made."""
    from core import interrupt

    def seen(objective) -> None:
        if objective.evaluations >= count:
            interrupt.request()

    return seen


@pytest.mark.parametrize(
    "optimizer",
    [LateAcceptance(), RandomSearch(), GA(), SimulatedAnnealing(), TwoOpt(strategy="best", move="swap")],
    ids=lambda o: o.name,
)
def test_every_python_optimiser_resumes_bit_for_bit(tmp_path, optimizer):
    from core import interrupt

    budget = Budget(evaluations=6000)  # no target: the free strip's optimum would end a run early
    whole = minimize(STRIP.fitness, STRIP.space, optimizer, budget, seed=4)
    first = Checkpoint(tmp_path / FILE, {"seed": 4})
    try:
        part = minimize(STRIP.fitness, STRIP.space, optimizer, budget, 4, stopping_at(3000), checkpoint=first)
    finally:
        interrupt.clear()
    assert part.stop_reason == "interrupted" and part.evaluations < 6000
    again = Checkpoint(tmp_path / FILE, {"seed": 4})
    assert again.load() is not None
    rest = minimize(STRIP.fitness, STRIP.space, optimizer, budget, 4, checkpoint=again)
    assert (rest.best, rest.evaluations) == (whole.best, whole.evaluations)
    assert np.array_equal(rest.best_genome, whole.best_genome)
    assert [r[0::2] for r in rest.trace] == [r[0::2] for r in whole.trace]


def test_a_checkpoint_is_written_every_interval_and_not_before(tmp_path):
    never = Checkpoint(tmp_path / "never.pkl", {}, every=1e9)
    minimize(STRIP.fitness, STRIP.space, SimulatedAnnealing(), Budget(evaluations=2000), 0, checkpoint=never)
    assert not never.path.exists()
    ticks = iter(range(10**9))
    often = Checkpoint(tmp_path / "often.pkl", {}, every=500, clock=lambda: float(next(ticks)))
    minimize(STRIP.fitness, STRIP.space, SimulatedAnnealing(), Budget(evaluations=2000), 0, checkpoint=often)
    saved = often.load()
    assert saved is not None and 1000 <= saved.objective["evaluations"] <= 2000


@pytest.mark.slow
def test_a_real_sigterm_to_the_command_and_the_same_command_again(tmp_path):
    """The command line itself, stopped as a cluster stops a job (SIGTERM to its process group)."""
    import subprocess
    import sys
    import time

    from tests import ROOT

    args = argv("two_opt", tmp_path / "broken", "budget.evaluations=1000000")
    command = [sys.executable, "-m", "experiments.run", *args]
    job = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)  # fmt: skip
    while not (tmp_path / "broken" / "config.yaml").is_file() and job.poll() is None:
        time.sleep(0.1)  # Python and Hydra loading
    time.sleep(3)  # the board built, the run under way
    assert job.poll() is None, job.communicate()
    os.killpg(job.pid, signal.SIGTERM)
    _, err = job.communicate(timeout=60)
    assert job.returncode == 130 and (tmp_path / "broken" / FILE).is_file(), err
    again = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "resumed from checkpoint: " in again.stdout, again.stderr
    whole = tmp_path / "whole"
    whole.mkdir()
    assert run(argv("two_opt", whole, "budget.evaluations=1000000"), whole).returncode == 0
    a, b = row(whole), row(tmp_path / "broken")
    assert (b["best"], b["evaluations"], b["best_genome"]) == (a["best"], a["evaluations"], a["best_genome"])
