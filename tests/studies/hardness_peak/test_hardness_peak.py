"""+experiment=hardness_peak through the app's entry point: its smoke study's table, figures and
report, the re-scored first boards, boards stopped at the cap, the same nodes on every run, Owen's
predicted peak, and one-line errors.

Each run goes through `experiments.run` in a forked child, as tests/experiments/test_bad_input.py runs the
app.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from puzzles.edge_matching.eternity2 import HARDEST_COLOURS, Eternity2Like
from puzzles.edge_matching.hardness import board_of
from puzzles.edge_matching.owen import joins, log10_expected_solutions, predicted_peak
from studies.hardness_peak.table import COLUMNS
from tests.experiments.test_bad_input import assert_one_line, needs_fork, run_forked

SMOKE = ["+experiment=hardness_peak", "smoke=on"]
FIGURES = ["solved", "nodes_to_first", "nodes_walked", "scan_order", "first_board", "solutions"]
FIGURES += ["solutions_complete", "count_nodes_walked"]  # what the search found: no timings


def smoke_run(folder: Path, *extra: str):
    proc = run_forked([*SMOKE, f"hydra.sweep.dir={folder}", *extra], folder.parent, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


@pytest.fixture(scope="module")
def sweep(tmp_path_factory) -> Path:
    """The smoke study, run once for the tests that read it."""
    folder = tmp_path_factory.mktemp("hardness") / "sweep"
    smoke_run(folder)
    return folder


@pytest.fixture(scope="module")
def table(sweep) -> pd.DataFrame:
    return pd.read_parquet(sweep / "hardness_peak_table.parquet")


@needs_fork
def test_the_smoke_study_writes_a_row_per_board_its_plot_and_report(sweep, table):
    assert list(table.columns) == COLUMNS
    assert len(table) == 3 * 4  # 3 instance seeds x 4 colour counts, each board once
    assert not table.duplicated(["n", "colours", "instance_seed"]).any()
    assert set(table["n"]) == {5} and set(table["frame_colours"]) == {HARDEST_COLOURS[5][0]}
    assert pd.read_csv(sweep / "hardness_peak_table.csv").shape == table.shape
    summary = pd.read_csv(sweep / "hardness_peak_summary.csv")
    assert list(summary["colours"]) == [2, 3, 4, 6] and (summary["boards"] == 3).all()
    assert (sweep / "hardness_peak_n=5.png").stat().st_size > 0
    report = (sweep / "report.md").read_text()
    assert "## Hardness peak" in report and "Predicted peak: 3.62 inner colours" in report


@needs_fork
def test_every_solved_board_rescores_to_zero(table):
    solved = table[table["solved"]]
    assert len(solved) >= 6
    for row in solved.itertuples():
        puzzle = Eternity2Like(
            n=row.n,
            frame_colours=row.frame_colours,
            inner_colours=row.colours,
            instance_seed=row.instance_seed,
        )
        layout = board_of(puzzle, row.first_board)  # checks that each piece is used once
        assert puzzle.score_layout(layout)["unmatched_edges"] == 0, row


@needs_fork
def test_a_board_not_solved_counts_at_the_cap_and_is_flagged(sweep, table):
    capped = table[~table["solved"]]
    assert len(capped) >= 1  # the smoke's 10,000-node cap stops some 4-colour boards
    assert capped["censored"].all() and (capped["nodes_to_first"] == capped["max_nodes"]).all()
    assert (capped["nodes_walked"] >= capped["max_nodes"]).all() and (capped["first_board"] == "").all()
    assert (capped["stop_reason"] == "max_nodes").all()
    assert (table[table["solved"]]["nodes_to_first"] <= table["max_nodes"].max()).all()
    assert "| >= 10,000" in (sweep / "report.md").read_text()
    unfinished = table[~table["solutions_complete"]]  # counts cut at the cap: lower bounds
    assert len(unfinished) and (unfinished["count_nodes_walked"] > unfinished["count_cap"]).all()


@needs_fork
@pytest.mark.slow
def test_the_same_numbers_on_a_fresh_run_and_resumed(sweep, table, tmp_path):
    fresh = tmp_path / "fresh"
    smoke_run(fresh, "hydra/launcher=basic")  # one process: the nodes do not depend on the launcher
    again = pd.read_parquet(fresh / "hardness_peak_table.parquet")
    pd.testing.assert_frame_equal(again[FIGURES], table[FIGURES])
    resumed = smoke_run(sweep)
    assert resumed.stdout.count("skip (already complete)") == 3, resumed.stdout
    pd.testing.assert_frame_equal(pd.read_parquet(sweep / "hardness_peak_table.parquet"), table)


def test_owens_peak_for_a_4_by_4_board_with_2_frame_colours():
    """By hand: a 4 x 4 board has 4 corners (4! ways), 8 edge pieces (8! = 40,320 ways, one turn each)
    and 4 inner pieces (4! ways, 4 turns each: 4^4 = 256); its 12 joins between rim cells match with
    chance 1/2 each (2 frame colours: 2^12 = 4,096), its other 12 with 1/I. So
    E = 24 * 40,320 * 24 * 256 / 4,096 / I^12 = 1,451,520 / I^12, which is 1 at
    I = 1,451,520^(1/12) = 10^(6.16182 / 12) = 10^0.51349 = 3.262."""
    assert joins(4) == (12, 12)
    assert predicted_peak(4, 2) == pytest.approx(3.262, abs=5e-4)
    assert log10_expected_solutions(4, 2, 1) == pytest.approx(6.16182, abs=1e-5)
    assert log10_expected_solutions(4, 2, predicted_peak(4, 2)) == pytest.approx(0, abs=1e-9)


def test_the_peak_rounds_to_the_tabled_hardest_inner_counts_but_at_9():
    """HARDEST_COLOURS (jwortmann/Eternity2Puzzles.jl's table) by the formula: the same inner count at
    every size but 9, where the table says 9 and the estimate crosses one at 8.46."""
    rounded = {n: round(predicted_peak(n, frame)) for n, (frame, _) in HARDEST_COLOURS.items()}
    assert {n for n in HARDEST_COLOURS if rounded[n] != HARDEST_COLOURS[n][1]} == {9}
    assert predicted_peak(8, 3) == pytest.approx(7.83, abs=5e-3)


ONE_RUN = ["task=hardness_peak", "puzzle=eternity2_like", "puzzle.n=4", "progress=false"]


@needs_fork
@pytest.mark.parametrize(
    "args, expected",
    [
        (["task.colours=[1,3]"], "task.colours: 1 is not an inner colour count of 2 or more"),
        (["task.colours=[]"], "task.colours must list inner colour counts, e.g. task.colours=[2,4,8]"),
        (["task.max_nodes=0"], "task.max_nodes must be a whole number of at least 1"),
        (["task.count_nodes=-5"], "task.count_nodes must be a whole number of at least 1"),
        (["task.colours=[2,13]"], "13 inner colours cannot all be dealt on a 4 x 4 board's 12 inner joins"),
        (["task.order=zigzag"], "task.order='zigzag' is not a scan order; choose auto or one of: short"),
        (["puzzle=edge_matching"], "puzzle=edge_matching does not; use puzzle=eternity2_like"),
    ],
    ids=["colour_1", "no_colours", "cap_0", "count_cap", "too_many", "order", "puzzle"],
)
def test_bad_input_ends_in_one_line(args, expected, tmp_path):
    proc = run_forked([*ONE_RUN, *args, f"hydra.run.dir={tmp_path}"], tmp_path)
    assert_one_line(proc, expected)
