"""The compiled chains resume from their checkpoint (issue 58, item 1): `sa_compiled` and `plateau_lns`
stopped by a real SIGINT mid-chunk and run again with the same command in the same folder end, under
an evaluation budget, with an unbroken run's best, board, evaluations and trace; under a seconds
budget with the time left. The chains stop at the next epoch's start, where their state is whole.
In-process, every compiled optimiser but hybrid_vlns (whose large step draws from a generator of its
own) resumes bit for bit, on one chain and on two.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.checkpoint import FILE, Checkpoint
from core.space import Budget
from heuristics.compiled import CompiledDescent, CompiledILS, CompiledSA, WindowLNS
from heuristics.minimize import minimize
from puzzles.edge_matching.eternity2 import Eternity2Like
from puzzles.edge_matching.pipelines import PlateauLNS
from tests.test_checkpoint import needs_fork, row, run, stopping_at

BOARD = ["puzzle=eternity2_like", "puzzle.n=8"]
EVALUATIONS = 2_000_000


@pytest.fixture(scope="module", autouse=True)
def warm(compose_config) -> None:
    """The board's fitness and the chains' kernels, compiled once here, where the forked runs inherit them."""
    import matplotlib.pyplot  # noqa: F401

    import experiments.tasks.optimise  # noqa: F401
    import puzzles.edge_matching.pictures  # noqa: F401
    from experiments.build import build
    from experiments.pairing import local_search_face

    puzzle = build(compose_config(*BOARD).puzzle, "puzzle")
    puzzle.fitness(puzzle.space.identity())
    for optimizer in (CompiledSA(), PlateauLNS(start="random")):
        local_search_face(puzzle, optimizer)


def argv(optimizer: str, folder, *more: str) -> list[str]:
    return [
        *BOARD,
        f"optimizer={optimizer}",
        "optimizer.chunk=65536",
        "progress=false",
        f"hydra.run.dir={folder}",
        *more,
    ]


@needs_fork
@pytest.mark.parametrize(
    "optimizer",
    ["sa_compiled", "plateau_lns optimizer.start=random optimizer.chains=2"],
    ids=lambda o: o.split()[0],
)
def test_a_chain_run_stopped_and_run_again_ends_as_an_unbroken_one(tmp_path, optimizer):
    name, *settings = optimizer.split()
    args = [f"budget.evaluations={EVALUATIONS}", *settings]
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    whole.mkdir()
    assert run(argv(name, whole, *args), whole).returncode == 0
    broken.mkdir()
    stopped = run(argv(name, broken, *args), broken, EVALUATIONS // 2)
    assert stopped.returncode == 130 and (broken / FILE).is_file(), stopped.stderr
    assert EVALUATIONS // 2 <= row(broken)["evaluations"] < EVALUATIONS
    again = run(argv(name, broken, *args), broken)
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
    stopped = run(argv("sa_compiled", folder, "budget.seconds=3"), folder, 300_000)
    assert stopped.returncode == 130 and (folder / FILE).is_file(), stopped.stderr
    assert row(folder)["seconds"] < 3
    again = run(argv("sa_compiled", folder, "budget.seconds=3"), folder)
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
    ],
    ids=lambda o: f"{o.name}-{o.chains}",
)
def test_every_compiled_optimiser_resumes_bit_for_bit(tmp_path, optimizer):
    from core import interrupt
    from experiments.pairing import local_search_face

    face = local_search_face(PUZZLE, optimizer)
    budget = Budget(evaluations=600_000)
    whole = minimize(PUZZLE.fitness, PUZZLE.space, optimizer, budget, 3, face=face)
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
    again = Checkpoint(tmp_path / FILE, {"seed": 3})
    saved = again.load()
    assert saved is not None and saved.objective["evaluations"] == part.evaluations  # saved where it stopped
    rest = minimize(PUZZLE.fitness, PUZZLE.space, optimizer, budget, 3, face=face, checkpoint=again)
    assert (rest.best, rest.evaluations) == (whole.best, whole.evaluations)
    assert np.array_equal(rest.best_genome, whole.best_genome)
    assert [r[0::2] for r in rest.trace] == [r[0::2] for r in whole.trace]
