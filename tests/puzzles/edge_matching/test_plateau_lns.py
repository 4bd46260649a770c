"""plateau_lns (puzzles/edge_matching/plateau.py, pipelines.py): destroy-and-repair that
accepts equal and worse boards must still report a legal board the puzzle scores as it says, never end
worse than its start, repeat a run under an evaluation budget, and say which operator did what.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.errors import InputError
from core.rng import make_rng
from experiments import api
from heuristics.chains import Chain
from heuristics.kernels import BEST, CURRENT, kernel_row
from puzzles.edge_matching import board_moves as face
from puzzles.edge_matching import face_states, plateau, plateau_operators, plateau_repair
from puzzles.edge_matching.board_files import read_board
from puzzles.edge_matching.eternity2 import Eternity2Like
from puzzles.edge_matching.kernel_rows import PLATEAU_COUNTS
from puzzles.edge_matching.pipelines import OPERATORS, PlateauLNS

PARAMS = {
    "ops": 255,
    "moves": 50,
    "t_hi": 1.0,
    "t_lo": 0.15,
    "temperature": 1.0,
    "patience": 60,
    "decay": 0.9,
    "region": 30,
    "cap": 2000,
}


def test_the_kernel_row_holds_every_setting_the_optimiser_gives_and_room_for_every_weight():
    row = kernel_row("plateau", Eternity2Like(n=6, instance_seed=1).local_search())  # the face's row
    assert set(row.settings) == set(PlateauLNS().params)
    assert row.control == plateau.WEIGHTS + len(OPERATORS)


@pytest.mark.parametrize("op", range(len(OPERATORS)))
def test_every_operator_keeps_the_board_legal_and_its_tally_true(op):
    """Each operator alone, many iterations from a random board: the state stays a legal board whose
    cache is fresh, ctl[CURRENT] is the board's fitness and ctl[BEST] the best board's."""
    ls = Eternity2Like(n=8, instance_seed=3).local_search()
    assert ls is not None
    inst = ls.instance
    chain = Chain(ls, ls.start(np.random.default_rng(op)), "plateau", dict(PARAMS, ops=1 << op), seed=op)
    start = int(chain.ctl[BEST])
    for _ in range(5):
        chain.step(20_000)
        face_states.check_state(inst, chain.st)
        face_states.check_state(inst, chain.best)
        assert int(face.fitness(inst, chain.st)) == chain.ctl[CURRENT]
        assert int(face.fitness(inst, chain.best)) == chain.ctl[BEST] <= start
    tried = chain.ctl[PLATEAU_COUNTS : plateau.WEIGHTS].reshape(-1, 4)[:, 0]
    assert tried[op] > 0 and tried.sum() == tried[op]  # only the operator in play ran
    assert chain.ctl[BEST] < start  # from a random board every operator finds something


@pytest.mark.slow
def test_the_anneal_refill_prices_its_moves_and_reports_the_true_change():
    ls = Eternity2Like(n=6, instance_seed=1).local_search()
    assert ls is not None
    inst, rng = ls.instance, make_rng(5)
    st = ls.start(np.random.default_rng(2))
    for _ in range(20):
        cells = plateau_operators._destroy(inst, st, rng, 2, 30)
        before = int(face.fitness(inst, st))
        change, priced = plateau_repair.anneal(inst, st, rng, cells, 200, 1.0, 0.15, True)
        face_states.check_state(inst, st)
        assert priced == 200 and before + change == int(face.fitness(inst, st))


def test_twins_show_three_of_each_others_colours():
    ls = Eternity2Like(n=8, instance_seed=3).local_search()
    assert ls is not None
    inst = ls.instance
    start, twins = plateau_repair._twin_table(inst)
    rc = inst.rc.reshape(-1, 4, 4)  # piece, turn, side
    assert len(twins) > 0
    for p in range(len(start) - 1):
        for q in twins[start[p] : start[p + 1]]:
            assert inst.piece_class[p] == inst.piece_class[q]
            assert max(int((rc[p, 0] == rc[q, r]).sum()) for r in range(4)) >= 3


def run_dir(row) -> Path:
    return Path(row["run_dir"])


def trace(row) -> pd.DataFrame:
    return pd.read_parquet(run_dir(row) / "trace.parquet")


SMALL_BEAM = ["optimizer.width=50", "optimizer.max_width=500"]


@pytest.mark.slow
def test_from_the_app_a_run_is_legal_scored_true_never_worse_than_its_start_and_repeats(tmp_path):
    """`python -m experiments.run puzzle=eternity2_like puzzle.n=8 optimizer=plateau_lns budget.evaluations=...`:
    the same seed and budget give the same run on two chains; the best board is legal and re-scored as
    reported; the first trace entry is the beam's board and the best is never worse."""
    settings = ["puzzle.n=8", *SMALL_BEAM, "budget.evaluations=300000", "progress=false"]
    rows = [
        api.run(
            puzzle="eternity2_like", optimizer="plateau_lns", seed=3, overrides=settings, out=tmp_path / s
        )
        for s in ("a", "b")
    ]
    assert rows[0]["best_genome"] == rows[1]["best_genome"] and rows[0]["best"] == rows[1]["best"]
    assert trace(rows[0]).equals(trace(rows[1]).assign(seconds=trace(rows[0])["seconds"]))
    steps = trace(rows[0])["best"]
    assert steps.is_monotonic_decreasing and steps.iloc[-1] == rows[0]["best"]
    assert rows[0]["evaluations"] == 300000
    puzzle = Eternity2Like(n=8)
    layout = read_board(puzzle, run_dir(rows[0]) / "best_board.txt")
    assert puzzle.score_layout(layout)["unmatched_edges"] == rows[0]["best"]
    beam = api.run(
        puzzle="eternity2_like",
        optimizer="beam",
        seed=3,
        overrides=["puzzle.n=8", *SMALL_BEAM, "budget.evaluations=1"],  # untimed: the configured beam alone
        out=tmp_path / "beam",
    )
    assert rows[0]["best"] <= beam["best"] == steps.iloc[0]


@pytest.mark.slow
def test_from_a_board_file_it_starts_there_and_improves(tmp_path):
    greedy = api.run(puzzle="eternity2_like", optimizer="greedy", out=tmp_path / "greedy")
    board = run_dir(greedy) / "best_board.txt"
    row = api.run(
        puzzle="eternity2_like",
        optimizer="plateau_lns",
        overrides=[f"optimizer.start='{board}'", "optimizer.chains=1", "budget.evaluations=300000"],
        out=tmp_path / "lns",
    )
    steps = trace(row)["best"]
    assert steps.iloc[0] == greedy["best"] and row["best"] < greedy["best"]


def test_operator_counts_are_kept_and_printed(capsys):
    """The benchmark reads each operator's share from `operator_stats`; a run prints it in one line."""
    from core.space import Budget
    from heuristics.minimize import minimize

    puzzle = Eternity2Like(n=8, instance_seed=3)
    opt = PlateauLNS(start="random", chains=1, cap=2000)
    minimize(
        puzzle.fitness, puzzle.space, opt, Budget(evaluations=200_000), seed=1, face=puzzle.local_search()
    )
    stats = opt.operator_stats
    assert list(stats) == list(OPERATORS)
    assert sum(row["tried"] for row in stats.values()) > 10
    for row in stats.values():
        assert row["tried"] >= row["equal"] + row["better"] and row["better"] >= row["best"]
    assert "plateau_lns operators (tried/equal/better/best): " in capsys.readouterr().out


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("optimizer.operators=[square,nope]", "optimizer.operators must be a non-empty list of square"),
        ("optimizer.temperature=0", "optimizer.temperature must be positive"),
        ("optimizer.t_lo=2", "optimizer.t_lo must be <= t_hi"),
        ("optimizer.decay=1", r"optimizer.decay must be in \[0, 1\)"),
        ("optimizer.region=4", "region >= 16"),
        ("optimizer.start=no/such/board.txt", "optimizer.start must be one of random, greedy, beam"),
    ],
)
def test_bad_settings_are_refused_in_one_line(tmp_path, setting, message):
    with pytest.raises(InputError, match=message) as refused:
        api.run(puzzle="eternity2_like", optimizer="plateau_lns", overrides=[setting], out=tmp_path)
    assert "\n" not in str(refused.value)
