"""The compiled chains resume from their checkpoint (issue 58, item 1): `sa_compiled`, `plateau_lns`
and the large-step hybrids (`hybrid_vlns`, `hybrid_greedy`, `sa_repack`) stopped by a real SIGINT
mid-chunk and run again with the same command in the same folder end, under an evaluation budget,
with an unbroken run's best, board, evaluations and trace; under a seconds budget with the time left.
The chains stop at the next epoch's start, where their state (and the large step's generator) is
whole. In-process, every compiled optimiser resumes bit for bit, on one chain and on two.
"""

from __future__ import annotations

import os
import signal

import numpy as np
import pandas as pd
import pytest

from core.checkpoint import FILE, Checkpoint
from core.space import Budget
from heuristics.compiled import CompiledDescent, CompiledILS, CompiledSA, HybridVLNS, WindowLNS
from heuristics.minimize import minimize
from puzzles.edge_matching.eternity2 import Eternity2Like
from puzzles.edge_matching.pipelines import PlateauLNS
from tests.experiments.test_bad_input import _as_main, forked
from tests.experiments.test_checkpoint import needs_fork, row, run, stopping_at

BOARD = ["puzzle=eternity2_like", "puzzle.n=8"]
STRIP = ["puzzle=packing/hexominoes15"]  # no rectangle exists: no target ends a run early
EVALUATIONS = 2_000_000


@pytest.fixture(scope="module", autouse=True)
def warm(compose_config) -> None:
    """The board's fitness and the chains' kernels, compiled once here, where the forked runs inherit them."""
    import matplotlib.pyplot  # noqa: F401

    import experiments.tasks.optimise  # noqa: F401
    import puzzles.edge_matching.pictures  # noqa: F401
    from experiments.build import build
    from experiments.pairing import local_search_face

    for board, optimizers in ((BOARD, (CompiledSA(), PlateauLNS(start="random"))), (STRIP, (HybridVLNS(),))):
        puzzle = build(compose_config(*board).puzzle, "puzzle")
        puzzle.fitness(puzzle.space.identity())
        for optimizer in optimizers:
            local_search_face(puzzle, optimizer)


def argv(optimizer: str, folder, *more: str, board: list[str] = BOARD) -> list[str]:
    return [*board, f"optimizer={optimizer}", "progress=false", f"hydra.run.dir={folder}", *more]


CHUNK = "optimizer.chunk=65536"
EVERY = "optimizer.every=65536"  # the hybrids' epoch: a large step on every chain after each


def case(
    board: list[str],
    optimizer: str,
    stop: int = EVALUATIONS // 2,
    slow: bool = False,
    evaluations: int = EVALUATIONS,
):
    """A run of `optimizer` on `board` for `evaluations`, stopped `stop` evaluations in."""
    marks = [pytest.mark.slow] * slow
    return pytest.param(board, optimizer, stop, evaluations, id=optimizer.split()[0], marks=marks)


EARLY = EVALUATIONS // 8  # the hybrids' large steps change the board early on, before the run cools


@needs_fork
@pytest.mark.parametrize(
    "board, optimizer, stop, evaluations",
    [
        case(BOARD, f"plateau_lns {CHUNK} optimizer.start=random optimizer.chains=2"),  # the fast tier's one
        case(BOARD, f"sa_compiled {CHUNK}", slow=True),
        case(BOARD, f"hybrid_vlns {EVERY} optimizer.chains=2", EARLY, slow=True),  # one large step generator
        case(BOARD, f"hybrid_greedy {EVERY}", EARLY, slow=True),  # hybrid_vlns's step, a greedy start
        # the strip's moves are slower: a quarter of the budget, a large step every 1,000 moves all through
        case(STRIP, "sa_repack", EVALUATIONS // 8, slow=True, evaluations=EVALUATIONS // 4),
    ],
)
def test_a_chain_run_stopped_and_run_again_ends_as_an_unbroken_one(
    tmp_path, board, optimizer, stop, evaluations
):
    name, *settings = optimizer.split()
    args = [f"budget.evaluations={evaluations}", *settings]
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    whole.mkdir()
    assert run(argv(name, whole, *args, board=board), whole).returncode == 0
    broken.mkdir()
    stopped = run(argv(name, broken, *args, board=board), broken, stop)
    assert stopped.returncode == 130 and (broken / FILE).is_file(), stopped.stderr
    assert stop <= row(broken)["evaluations"] < evaluations
    again = run(argv(name, broken, *args, board=board), broken)
    assert again.returncode == 0, again.stderr
    said = [line for line in again.stdout.splitlines() if line.startswith("resumed from checkpoint: ")]
    assert len(said) == 1 and f"{row(whole)['evaluations']:,}" not in said[0], again.stdout
    a, b = row(whole), row(broken)
    assert (b["best"], b["evaluations"], b["best_genome"]) == (a["best"], a["evaluations"], a["best_genome"])
    assert b["stop_reason"] == a["stop_reason"] == "evaluations"
    trace_a, trace_b = (pd.read_parquet(f / "trace.parquet") for f in (whole, broken))
    assert trace_b[["evaluations", "best"]].equals(trace_a[["evaluations", "best"]])
    assert not (broken / FILE).exists()


@needs_fork
def test_a_continued_chain_run_gets_the_time_left(tmp_path):
    folder = tmp_path / "timed"
    folder.mkdir()
    stopped = run(argv("sa_compiled", folder, CHUNK, "budget.seconds=3"), folder, 300_000)
    assert stopped.returncode == 130 and (folder / FILE).is_file(), stopped.stderr
    assert row(folder)["seconds"] < 3
    again = run(argv("sa_compiled", folder, CHUNK, "budget.seconds=3"), folder)
    assert again.returncode == 0 and "resumed from checkpoint: " in again.stdout, again.stderr
    done = row(folder)
    assert done["stop_reason"] == "seconds" and 3 <= done["seconds"] < 4, done["seconds"]


PUZZLE = Eternity2Like(n=8)


@pytest.mark.slow  # several runs each: the longer checks
@pytest.mark.parametrize(
    "optimizer",
    [
        CompiledSA(chunk=1 << 14),
        CompiledSA(chunk=1 << 14, chains=2),
        CompiledILS(chunk=1 << 14),
        CompiledDescent(chunk=1 << 14),
        WindowLNS(chunk=1 << 12, chains=2),
        PlateauLNS(start="random", chunk=1 << 12),
        HybridVLNS(every=1 << 14, steps=3, size=20),
        HybridVLNS(every=1 << 14, steps=3, size=20, chains=2),
    ],
    ids=lambda o: f"{o.name}-{o.chains}",
)
def test_every_compiled_optimiser_resumes_bit_for_bit(tmp_path, optimizer):
    from core import interrupt
    from experiments.pairing import local_search_face

    face = local_search_face(PUZZLE, optimizer)
    budget = Budget(evaluations=600_000)
    unbroken = Checkpoint(tmp_path / "unbroken.pkl", {"seed": 3}, every=0)  # each epoch: the last stays
    whole = minimize(PUZZLE.fitness, PUZZLE.space, optimizer, budget, 3, face=face, checkpoint=unbroken)
    first = Checkpoint(tmp_path / FILE, {"seed": 3})
    try:
        part = minimize(
            PUZZLE.fitness,
            PUZZLE.space,
            optimizer,
            budget,
            3,
            stopping_at(250_000),
            face=face,
            checkpoint=first,
        )
    finally:
        interrupt.clear()
    assert part.stop_reason == "interrupted" and 250_000 <= part.evaluations < 600_000
    again = Checkpoint(tmp_path / FILE, {"seed": 3}, every=0)
    saved = again.load()
    assert saved is not None and saved.objective["evaluations"] == part.evaluations  # saved where it stopped
    rest = minimize(PUZZLE.fitness, PUZZLE.space, optimizer, budget, 3, face=face, checkpoint=again)
    assert (rest.best, rest.evaluations) == (whole.best, whole.evaluations)
    assert np.array_equal(rest.best_genome, whole.best_genome)
    assert [r[0::2] for r in rest.trace] == [r[0::2] for r in whole.trace]
    # The last epoch's state as the unbroken run's: every chain's boards, counters and generator, and the
    # large step's generator; it tells runs apart whose best was found before the stop, as the trace cannot.
    last = [Checkpoint(path, {"seed": 3}).load() for path in (tmp_path / "unbroken.pkl", tmp_path / FILE)]
    assert last[0] is not None and last[1] is not None
    assert last[1].search["epoch"] == last[0].search["epoch"] > saved.search["epoch"]
    np.testing.assert_equal(last[1].search, last[0].search)


def stopped_in_the_beam(args: list[str], folder):
    """The app on `args` in a forked child that sends itself SIGINT once its beam start has finished
    its first beam (the stop lands while a wider one builds)."""

    def call() -> None:
        from core import progress

        told = progress.report

        def report(work, best, unit) -> None:
            told(work, best, unit)
            if unit == "candidate" and best is not None:
                os.kill(os.getpid(), signal.SIGINT)

        progress.report = report
        _as_main(args)

    return forked(call, folder, fresh_ok=True)


@needs_fork
@pytest.mark.slow  # three runs of a few seconds
def test_a_pipeline_stopped_in_its_beam_start_goes_on_building_then_walks_the_time_left(tmp_path):
    folder = tmp_path / "timed"
    folder.mkdir()
    args = argv("plateau_lns", folder, "budget.seconds=4", "optimizer.chains=2")
    stopped = stopped_in_the_beam(args, folder)
    assert stopped.returncode == 130 and (folder / FILE).is_file(), stopped.stderr
    first = row(folder)
    assert first["stop_reason"] == "interrupted" and first["seconds"] < 4 * 0.8  # in the beam's share
    again = run(args, folder)
    assert again.returncode == 0 and "resumed from checkpoint: beam: " in again.stdout, again.stderr
    done = row(folder)
    assert done["stop_reason"] == "seconds" and 4 <= done["seconds"] < 5, done["seconds"]
    assert done["best"] <= first["best"] and done["evaluations"] > first["evaluations"]
    assert not (folder / FILE).exists()


@needs_fork
@pytest.mark.slow
def test_a_stop_in_the_beam_start_under_an_evaluation_budget_leaves_no_checkpoint(tmp_path):
    """The board built so far is not the unbroken run's: the same command builds again, to its record."""
    args = ["budget.evaluations=200000", "optimizer.width=3000", "optimizer.max_width=30000"]
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    whole.mkdir()
    assert run(argv("plateau_lns", whole, *args), whole).returncode == 0
    broken.mkdir()
    stopped = stopped_in_the_beam(argv("plateau_lns", broken, *args), broken)
    assert stopped.returncode == 130 and not (broken / FILE).exists(), stopped.stderr
    again = run(argv("plateau_lns", broken, *args), broken)
    assert again.returncode == 0 and "resumed from checkpoint" not in again.stdout, again.stderr
    a, b = row(whole), row(broken)
    assert (b["best"], b["evaluations"], b["best_genome"]) == (a["best"], a["evaluations"], a["best_genome"])


@needs_fork
@pytest.mark.slow  # two runs of a few seconds
def test_a_beam_stopped_mid_schedule_goes_on_with_its_next_width_in_the_time_left(tmp_path):
    folder = tmp_path / "beam"
    folder.mkdir()
    args = argv("beam", folder, "budget.seconds=4", "optimizer.width=400000", "optimizer.max_width=4000000")
    stopped = stopped_in_the_beam(args, folder)
    assert stopped.returncode == 130 and (folder / FILE).is_file(), stopped.stderr
    first = row(folder)
    again = run(args, folder)
    assert again.returncode == 0, again.stderr
    said = [line for line in again.stdout.splitlines() if line.startswith("resumed from checkpoint: beam: ")]
    assert len(said) == 1 and "beams finished, next " in said[0], again.stdout
    done = row(folder)
    # the schedule ends when no wider beam fits the time left; its clock carried the time spent
    assert done["stop_reason"] == "seconds" and first["seconds"] < done["seconds"] < 4 + 0.5, done["seconds"]
    assert done["best"] <= first["best"] and done["work"] > first["work"] and not (folder / FILE).exists()
