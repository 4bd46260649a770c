"""The break backtracker and the portfolio resume from their checkpoint (issue 58, item 1): stopped by
a real SIGINT mid-walk, mid-probes or mid-chains and run again with the same command in the same
folder, a run under a node (and evaluation) budget ends with the board, work and profile of an
unbroken run; under a seconds budget it gets the time left and goes on with the restarts it had.

How the stop lands where it should: the forked child (tests/experiments/test_checkpoint.py's `run`) sends
itself SIGINT from the search's own hooks: a walk's pause (every PAUSE_NODES placements, made small here so
that a small board's restarts pause), a quota probe's end, or the live line's progress call in the
chains. The walk reads the flag at its next look (every 4,096 placements), mid-restart.
"""

from __future__ import annotations

import os
import pickle
import re
import signal
import threading
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from core.checkpoint import FILE, Checkpoint, staged
from puzzles.edge_matching.eternity2 import Eternity2Like
from puzzles.edge_matching.solvers import breaks_tables
from puzzles.edge_matching.solvers.breaks import Breaks
from tests.experiments.test_bad_input import _as_main, forked
from tests.experiments.test_checkpoint import needs_fork, row

SMALL = ["puzzle=eternity2_like", "puzzle.n=8"]  # 64 cells: no quota probes
PROBED = ["puzzle=eternity2_like", "puzzle.n=10"]  # 100 cells: the quota's probes run first
BREAKS = ["optimizer=breaks", "optimizer.restart_nodes=100000", "optimizer.finish_width=20"]
NODES = "budget.evaluations=1"  # one board, no time limit: optimizer.max_nodes is the budget
PORTFOLIO = [
    *("optimizer=portfolio", "optimizer.breaks.max_nodes=600000", "optimizer.breaks.restart_nodes=100000"),
    *("optimizer.breaks.finish_width=20", "optimizer.width=50", "optimizer.max_width=500"),
    "optimizer.chunk=16384",
]


@pytest.fixture(scope="module")
def warm(compose_config) -> None:
    """What every forked run loads, loaded (and compiled) once here, where the children inherit it;
    not the beam's kernel, whose run starts numba's parallel threads, which a forked child cannot use."""
    import matplotlib.pyplot  # noqa: F401

    import experiments.tasks.optimise  # noqa: F401
    import puzzles.edge_matching.pictures  # noqa: F401
    from experiments.build import build
    from experiments.pairing import local_search_face
    from puzzles.edge_matching.pipelines import Portfolio
    from puzzles.edge_matching.solvers.breaks import warm_up

    warm_up()
    for board in (SMALL, PROBED):
        puzzle = build(compose_config(*board).puzzle, "puzzle")
        puzzle.fitness(puzzle.space.identity())
    local_search_face(build(compose_config(*SMALL).puzzle, "puzzle"), Portfolio())


def app(args: list[str], folder: Path, stop: str | None = None, at: int = 0):
    """The app in a forked child, which sends itself SIGINT: at its `at`-th walk pause (`stop="pause"`,
    walks pausing every 8,192 placements), at its `at`-th probe's end ("probe"), once the chains have
    made `at` evaluations ("evaluations"), or `at` ms after its first walk pause ("ms")."""

    def call() -> None:
        from experiments.live import LiveLine
        from puzzles.edge_matching.solvers import breaks, breaks_tables

        breaks_tables.PAUSE_NODES = 1 << 13
        count = [0]

        def signal_once() -> None:
            count[0] += 1
            if count[0] == (at if stop in ("pause", "probe") else 1):
                if stop == "ms":
                    threading.Timer(at / 1000, os.kill, (os.getpid(), signal.SIGINT)).start()
                else:
                    os.kill(os.getpid(), signal.SIGINT)

        hooked = {"pause": "paused", "ms": "paused", "probe": "probe_ended"}.get(stop or "")
        if hooked:
            original = getattr(breaks._Restarts, hooked)

            def hook(self, *args) -> None:
                original(self, *args)
                signal_once()

            setattr(breaks._Restarts, hooked, hook)
        if stop == "evaluations":

            def seen(self, objective) -> None:
                self.objective = objective
                if objective.evaluations >= at and not count[0]:
                    signal_once()

            LiveLine.seen = seen  # type: ignore[method-assign]
        _as_main([*args, "progress=false", f"hydra.run.dir={folder}"])

    return forked(call, folder, timeout=300, fresh_ok=True)  # the child's hooks are its own


def note(stderr: str) -> str:
    """The backtracker's profile line (restarts, nodes, deepest depth, peak, quota, best)."""
    return re.findall(r"breaks: [\d,]+ restarts, .*", stderr)[-1]


def broken_and_whole(tmp_path: Path, args: list[str], stop: str, at: int):
    """An unbroken run, and the same run stopped (its checkpoint there) and run again: both records'
    folders and the stopped and the continued run's output."""
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    whole.mkdir()
    broken.mkdir()
    unbroken = app(args, whole)
    assert unbroken.returncode == 0, unbroken.stderr
    stopped = app(args, broken, stop, at)
    assert stopped.returncode == 130, stopped.stderr
    assert row(broken)["stop_reason"] == "interrupted"
    assert (broken / FILE).is_file() and "the same command continues the run" in stopped.stderr
    again = app(args, broken)
    assert again.returncode == 0, again.stderr
    said = [line for line in again.stdout.splitlines() if line.startswith("resumed from checkpoint: ")]
    assert len(said) == 1, again.stdout
    assert not (broken / FILE).exists()  # the record is complete: nothing left to continue
    return whole, broken, unbroken, stopped, again, said[0]


def same_record(whole: Path, broken: Path, threads: int = 1) -> None:
    """The same board, work and counts; on one thread the same trace. On two, the restarts end in an
    order the machine's timing sets, and so which of them set a new best on the way: the traces then
    share their last row (the best board's score), each a descent."""
    a, b = row(whole), row(broken)
    for column in ("best", "best_genome", "evaluations", "work", "stop_reason"):
        assert b[column] == a[column], column
    trace_a, trace_b = (
        pd.read_parquet(f / "trace.parquet")[["evaluations", "best"]] for f in (whole, broken)
    )
    if threads == 1:
        assert trace_b.equals(trace_a)
    else:
        assert trace_b.iloc[-1].equals(trace_a.iloc[-1]) and trace_b["best"].iloc[-1] == b["best"]
        assert all(t["best"].is_monotonic_decreasing and t["best"].is_unique for t in (trace_a, trace_b))


@needs_fork
@pytest.mark.parametrize("threads", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_breaks_stopped_mid_walk_and_run_again_ends_as_an_unbroken_run(tmp_path, threads, warm):
    args = [*SMALL, *BREAKS, "optimizer.max_nodes=1500000", f"optimizer.threads={threads}", NODES]
    whole, broken, unbroken, stopped, again, said = broken_and_whole(tmp_path, args, "pause", 40)
    assert re.match(
        r"resumed from checkpoint: breaks: [\d,]+ restarts done, [012] under way, [\d,]+ nodes, best ", said
    ), said
    assert int(row(broken)["work"]) == 1_500_000 and row(broken)["stop_reason"] == "max_nodes"
    same_record(whole, broken, threads)
    assert note(again.stderr) == note(unbroken.stderr)  # restarts, nodes, deepest, peak and best
    assert note(stopped.stderr) != note(unbroken.stderr)


@needs_fork
@pytest.mark.slow
def test_breaks_stopped_in_its_quota_probes_runs_the_rest_of_them(tmp_path, warm):
    args = [*PROBED, *BREAKS, "optimizer.max_nodes=3000000", "optimizer.threads=2", NODES]
    whole, broken, unbroken, _, again, said = broken_and_whole(tmp_path, args, "probe", 20)
    assert re.match(r"resumed from checkpoint: breaks: (\d+) quota probes done", said), said
    assert (
        20 <= int(said.split()[4]) < 264
    )  # 48 triples a batch, 5 batches (none passes), the best 6 four times more
    same_record(whole, broken, threads=2)
    assert note(again.stderr) == note(unbroken.stderr) and "none of 240 probed passed" in note(
        unbroken.stderr
    )


@needs_fork
def test_breaks_under_a_seconds_budget_gets_the_time_left_and_its_restarts(tmp_path, warm):
    folder = tmp_path / "timed"
    folder.mkdir()
    args = [*PROBED, *BREAKS, "budget.seconds=4", "optimizer.quota=[]"]
    stopped = app(args, folder, "ms", 1500)
    assert stopped.returncode == 130 and (folder / FILE).is_file(), stopped.stderr
    first = row(folder)
    assert first["seconds"] < 3
    again = app(args, folder)
    assert again.returncode == 0, again.stderr
    said = re.search(
        r"resumed from checkpoint: breaks: ([\d,]+) restarts done, [01] under way, ([\d,]+) nodes",
        again.stdout,
    )
    assert said is not None, again.stdout
    restarts, nodes = (int(said.group(k).replace(",", "")) for k in (1, 2))
    assert restarts >= 1 and nodes == int(first["work"])  # the stopped run's work, its stopped walk's too
    done = row(folder)
    assert done["stop_reason"] == "seconds"
    assert 4 <= done["seconds"] < 5, done["seconds"]  # the whole run's time: 4 s, not 4 s more
    final = re.search(r"breaks: ([\d,]+) restarts, ([\d,]+) nodes", note(again.stderr))
    assert final is not None and int(final.group(1).replace(",", "")) > restarts  # its count went on
    assert int(final.group(2).replace(",", "")) > nodes


@pytest.mark.slow  # several runs each: the longer checks
@needs_fork
@pytest.mark.parametrize(
    "stop, at",
    [("pause", 30), ("evaluations", 150_000)],
    ids=["while the start is built", "in the chains"],
)
def test_portfolio_stopped_and_run_again_ends_as_an_unbroken_run(tmp_path, stop, at, warm):
    args = [*SMALL, *PORTFOLIO, "budget.evaluations=300000"]
    whole, broken, unbroken, _, again, said = broken_and_whole(tmp_path, args, stop, at)
    if stop == "pause":  # the backtracker went on from its walks; the beam beside it was built again
        assert said.startswith("resumed from checkpoint: breaks: "), said
    else:
        assert re.match(r"resumed from checkpoint: [\d,]+ evaluations, ", said), said
        assert "(unmatched joins): " not in again.stderr  # the start is not built again
    same_record(whole, broken)
    assert row(broken)["evaluations"] == 300_000


@needs_fork
@pytest.mark.slow
def test_portfolio_under_a_seconds_budget_gets_the_time_left(tmp_path, warm):
    folder = tmp_path / "timed"
    folder.mkdir()
    args = [*PROBED, "optimizer=portfolio", "optimizer.beam=false", "optimizer.breaks.finish_width=20"]
    args += ["optimizer.breaks.restart_nodes=200000", "budget.seconds=5"]
    stopped = app(args, folder, "ms", 1500)  # in the backtracker's 4 s
    assert stopped.returncode == 130 and (folder / FILE).is_file(), stopped.stderr
    again = app(args, folder)
    assert again.returncode == 0, again.stderr
    assert "resumed from checkpoint: breaks: " in again.stdout, again.stdout
    done = row(folder)
    assert done["stop_reason"] == "seconds"
    assert 5 <= done["seconds"] < 6, done["seconds"]
    trace = pd.read_parquet(folder / "trace.parquet")
    assert trace["best"].is_monotonic_decreasing and trace["best"].iloc[-1] == done["best"]


# In-process: every checkpoint a running search writes (not only the one a stop writes) continues it.


@pytest.mark.parametrize("threads", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_every_checkpoint_written_on_the_way_continues_to_the_unbroken_board(tmp_path, threads, monkeypatch):
    """The saves every PAUSE_NODES placements, at each restart's and probe's end (the interval made 0:
    each is due), on one thread and on two: from any of them, the run ends with the unbroken board,
    work, histograms and profile. Why it matters: a job killed outright (kill -9, a node lost)
    continues from the last of them, not from a stop's."""
    monkeypatch.setattr(breaks_tables, "PAUSE_NODES", 1 << 13)
    puzzle = Eternity2Like(n=10)  # 100 cells: the quota's probes, then restarts
    solver = Breaks(seed=1, threads=threads, max_nodes=600_000, restart_nodes=50_000, finish_width=20)
    whole = solver.construct(puzzle)
    written: list[bytes] = []
    keeper = Checkpoint(tmp_path / FILE, {}, every=0)
    keeper.save = lambda counters, search, rng=None: written.append(pickle.dumps(search["stage"]))  # type: ignore[method-assign]
    counters = {"evaluations": 0, "best": float("inf"), "best_genome": None, "trace": [], "seconds": 0.0}
    with staged(SimpleNamespace(checkpoints=keeper, restored=None, state=lambda: counters), None):
        again = solver.construct(puzzle)
    assert same_construction(again, whole) and len(written) > 50
    phases = [next(iter(pickle.loads(blob).values()))["phase"] for blob in written]
    assert phases[0] == "probes" and phases[-1] == "restarts"
    for blob in written[:: len(written) // 4]:
        parts = pickle.loads(blob)
        resumed = SimpleNamespace(
            checkpoints=Checkpoint(tmp_path / "other.pkl", {}, every=1e9),
            restored={"stage": parts},
            state=lambda: counters,
        )
        with staged(resumed, None):
            assert same_construction(solver.construct(puzzle), whole)


def same_construction(a, b) -> bool:
    """The same board, work, histograms and profile line."""
    return bool(
        np.array_equal(a.layout.piece, b.layout.piece)
        and np.array_equal(a.layout.rotation, b.layout.rotation)
        and (a.work, a.unmatched, a.deepest, a.restarts, a.quota, a.note)
        == (b.work, b.unmatched, b.deepest, b.restarts, b.quota, b.note)
        and np.array_equal(a.depth_nodes, b.depth_nodes)
        and np.array_equal(a.break_nodes, b.break_nodes)
    )
