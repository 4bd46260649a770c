"""Window re-solves (puzzles/edge_matching/windows.py) and the beam-then-refine pipeline, from the app.

The re-solve is exact: on small windows it finds the brute-force optimum of its own pieces; the
pipeline and window LNS run from the command line's config, start from the board they are given
(beam, greedy or a board file), never record a score their board does not have, and repeat a run
exactly under an evaluation budget on two chains.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.errors import InputError
from core.rng import make_rng
from experiments import api
from puzzles.edge_matching import board_moves as face
from puzzles.edge_matching import face_states
from puzzles.edge_matching.board_files import read_board
from puzzles.edge_matching.eternity2 import Eternity2Like
from puzzles.edge_matching.windows import _window, resolve


def brute_force_best(inst, st, cells) -> int:
    """The fewest unmatched joins on the board over every re-fill of `cells` with their own pieces."""
    pieces, best = st[cells] >> 2, None
    for perm in itertools.permutations(pieces.tolist()):
        for turns in itertools.product(range(4), repeat=len(cells)):
            trial = st.copy()
            if not all(
                inst.piece_class[p] == inst.cell_class[x] and face_states.turn_allowed(inst, p, x, r, True)
                for x, p, r in zip(cells, perm, turns, strict=True)
            ):
                continue
            trial[cells] = 4 * np.array(perm) + np.array(turns)
            face_states.refresh(inst, trial)
            f = int(face.fitness(inst, trial))
            best = f if best is None else min(best, f)
    assert best is not None
    return best


@pytest.mark.slow
@pytest.mark.parametrize("extra", [0, 1])
def test_a_re_solve_finds_the_best_re_fill_and_keeps_the_board_legal(extra):
    puzzle = Eternity2Like(n=5, instance_seed=3)
    ls = puzzle.local_search()
    inst, rng = ls.instance, make_rng(11)
    st = ls.start(np.random.default_rng(0))
    for _ in range(12):
        cells = _window(inst, st, rng, 2, 0.5, extra)
        before = int(face.fitness(inst, st))
        optimum = brute_force_best(inst, st, cells)
        change, priced = resolve(inst, st, rng, cells, 10**8, True)
        face_states.check_state(inst, st)
        assert priced > 0
        assert before + change == int(face.fitness(inst, st)) == optimum


def run_dir(row) -> Path:
    return Path(row["run_dir"])


def trace(row) -> pd.DataFrame:
    return pd.read_parquet(run_dir(row) / "trace.parquet")


def test_window_lns_from_a_board_file_starts_from_that_board_and_never_records_worse(tmp_path):
    greedy = api.run(puzzle="eternity2_like", optimizer="greedy", out=tmp_path / "greedy")
    board = run_dir(greedy) / "best_board.txt"
    row = api.run(
        puzzle="eternity2_like",
        optimizer="window_lns",
        overrides=[f"optimizer.start='{board}'", "budget.evaluations=300000"],
        out=tmp_path / "lns",
    )
    steps = trace(row)["best"]
    assert steps.iloc[0] == greedy["best"]  # the first evaluation is the file's board
    assert steps.is_monotonic_decreasing and row["best"] < greedy["best"]
    layout = read_board(Eternity2Like(), run_dir(row) / "best_board.txt")
    assert Eternity2Like().score_layout(layout)["unmatched_edges"] == row["best"]


def test_beam_refine_repeats_a_two_chain_run_exactly_under_an_evaluation_budget(tmp_path):
    settings = ["optimizer.width=50", "optimizer.max_width=500", "budget.evaluations=400000"]
    rows = [
        api.run(
            puzzle="eternity2_like", optimizer="beam_refine", seed=4, overrides=settings, out=tmp_path / s
        )
        for s in ("a", "b")
    ]
    assert rows[0]["best_genome"] == rows[1]["best_genome"] and rows[0]["best"] == rows[1]["best"]
    assert trace(rows[0]).equals(trace(rows[1]).assign(seconds=trace(rows[0])["seconds"]))
    beam = api.run(
        puzzle="eternity2_like",
        optimizer="beam",
        seed=4,
        overrides=["optimizer.width=50", "optimizer.max_width=500"],
        out=tmp_path / "beam",
    )
    assert rows[0]["best"] <= beam["best"]  # refining never loses the beam's board


def test_the_run_seed_reaches_the_beam(tmp_path):
    settings = ["optimizer.width=20", "optimizer.max_width=20"]
    boards = {
        api.run(puzzle="eternity2_like", optimizer="beam", seed=s, overrides=settings, out=tmp_path)[
            "best_genome"
        ]
        for s in range(4)
    }
    assert len(boards) > 1


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        (
            "optimizer.start=no/such/board.txt",
            "optimizer.start must be one of random, greedy, beam, breaks, concurrent or a board file",
        ),
        ("optimizer.focus=2", "optimizer.focus must be a probability"),
        ("optimizer.extra=-1", "optimizer.extra must be 0 or more"),
    ],
)
def test_bad_window_settings_are_refused_in_one_line(tmp_path, setting, message):
    with pytest.raises(InputError, match=message) as refused:
        api.run(puzzle="eternity2_like", optimizer="window_lns", overrides=[setting], out=tmp_path)
    assert "\n" not in str(refused.value)


def test_beam_refine_builds_its_beam_and_gives_it_its_share_of_a_time_budget(monkeypatch):
    """The pipeline hands its start over as a built beam, settings and all; the puzzle's face builds
    the board with it, within the share of a time budget the pipeline grants it (none under an
    evaluation budget)."""
    from types import SimpleNamespace

    from puzzles.edge_matching.pipelines import BeamRefine
    from puzzles.edge_matching.solvers.beam import Beam

    refine = BeamRefine(width=50, max_width=500, beam_share=0.8)
    assert isinstance(refine.start, Beam)
    assert (refine.start.width, refine.start.max_width, refine.start.order) == (50, 500, "rows")
    assert refine.start_seconds(SimpleNamespace(budget=SimpleNamespace(seconds=10.0))) == 8.0
    assert refine.start_seconds(SimpleNamespace(budget=SimpleNamespace(seconds=None))) is None
    given = []
    construct = Beam.construct
    monkeypatch.setattr(Beam, "construct", lambda self, p, s=None: given.append(s) or construct(self, p, s))
    built = Eternity2Like().local_search(refine.start).built
    built(np.random.default_rng(0), 8.0)
    built(np.random.default_rng(0))
    assert given == [8.0, None]
