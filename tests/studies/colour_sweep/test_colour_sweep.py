"""The colour sweep through the Hydra app: table, plot, optimizer labels, and one-line errors."""

import subprocess
import sys

import pandas as pd
import pytest

from puzzles.edge_matching.seed_sweep import greedy_point
from puzzles.edge_matching.sweep import seed_colours
from studies.colour_sweep.plot import colour_sweep as plot
from studies.colour_sweep.report import colour_sweep_summary as summary
from studies.colour_sweep.table import COLUMNS
from tests import ROOT


def run_app(*overrides: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "experiments.run", *overrides],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_seed_colour_range_is_the_articles():
    assert seed_colours(13) == list(range(2, 313)) and seed_colours(15)[-1] == 420
    few = seed_colours(15, 16)
    assert few[0] == 2 and few[-1] == 420 and len(few) <= 16


@pytest.mark.slow
def test_tiny_sweep_writes_one_table_and_the_plot(tmp_path):
    proc = run_app(
        "+experiment=colour_sweep",
        "puzzle.n=5,7",
        "optimizer=greedy_faithful,greedy,two_opt_swap",
        "puzzle.instance_seed=0,1",
        "task.optimizer_points=3",
        "budget.evaluations=500",
        "task.pictures=[3]",
        "hydra.launcher.n_jobs=2",
        f"hydra.sweep.dir={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(tmp_path / "colour_sweep_table.csv")
    assert list(table.columns) == COLUMNS
    greedy = table[table["optimizer"] == "greedy"]
    assert sorted(greedy[greedy["n"] == 7]["colours"].unique()) == list(range(2, 85))  # every count
    assert len(greedy) == 2 * (39 + 83)
    assert set(table[table["optimizer"] == "two_opt_swap"]["colours"]) <= set(seed_colours(7))
    assert (greedy["duplicates"] == 0).all()  # corrected: each piece once
    assert table["match_rate"].between(0, 1).all() and table["edge_score"].between(0, 1).all()
    assert (tmp_path / "colour_sweep.png").stat().st_size > 0
    assert any(tmp_path.rglob("board_colours=3.png"))


def test_plot_has_faithful_and_corrected_side_by_side():
    rows = [greedy_point(5, c, s, f) for c in (2, 4, 8) for s in (0, 1) for f in (True, False)]
    table = pd.DataFrame(rows)
    fig = plot(table)
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[:2] == ["seed-faithful greedy (the seed's figure)", "corrected greedy and optimisers"]
    assert set(summary(table)["optimizer"]) == {"greedy", "greedy_faithful"}


@pytest.mark.slow
@pytest.mark.parametrize(
    "overrides, line",
    [
        (
            ["puzzle=queens", "optimizer=greedy"],
            "error: optimizer=greedy needs an edge-matching board, which puzzle=queens does not offer "
            "(puzzles that do: edge_matching, eternity, eternity2, eternity2_like)",
        ),
        (
            ["puzzle=edge_matching", "puzzle.n=6"],
            (
                "error: puzzle.fix_centre needs odd sides (a board with a centre cell), got 6 x 6; "
                "use an odd n or puzzle.fix_centre=false"
            ),
        ),
        (
            ["puzzle=edge_matching", "puzzle.colours=500"],
            (
                "error: puzzle.colours=500 cannot be held by a 13x13 board: it has 312 inner edges, "
                "so use 1 <= colours <= 312"
            ),
        ),
        (
            [
                "task=colour_sweep",
                "puzzle=eternity",
                "optimizer=greedy_faithful",
                "task.colours=[5]",
                "puzzle.n=4",
            ],
            (
                "error: optimizer=greedy_faithful reproduces the seed, whose pieces never turn: "
                "use puzzle.rotations=false, or optimizer=greedy"
            ),
        ),
    ],
)
def test_bad_edge_matching_input_ends_with_one_clear_line(tmp_path, overrides, line):
    """The whole line a user reads, and nothing else on stderr."""
    # progress=false: with the bar on, optimizer=greedy draws an empty progress bar before its error
    proc = run_app(*overrides, f"hydra.run.dir={tmp_path}", "progress=false")
    assert proc.returncode == 2
    assert proc.stderr.strip() == line
    assert "Traceback" not in proc.stdout


@pytest.mark.slow
def test_a_misspelt_key_is_named_when_the_config_is_composed(tmp_path):
    """The command line is checked before Hydra runs it: one line naming the key and the settings
    the puzzle takes, and nothing else on stderr."""
    proc = run_app("puzzle=edge_matching", "puzzle.colour=5", f"hydra.run.dir={tmp_path}")
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        "error: puzzle has no setting 'colour'; it takes: n, colours, generator, instance_seed, rotations, "
        "fix_centre, hints, pieces_file, order (prefix a new key with + to add it)"
    )
    assert "Traceback" not in proc.stderr + proc.stdout


@pytest.mark.slow
def test_greedy_started_hybrid_runs_every_count_in_the_sweep(tmp_path):
    """The compiled hybrid from the corrected greedy's board: every colour count, its own budget in
    priced moves, and never fewer matched edges than the greedy it starts from. exact_first proves a
    perfect board at every count of a 5 x 5 board (the backtracker's tree is small there)."""
    proc = run_app(
        "+experiment=colour_sweep",
        "puzzle.n=5",
        "optimizer=greedy,hybrid_greedy,exact_first",
        "puzzle.instance_seed=0",
        "task.compiled_evaluations=30000",
        "task.pictures=[]",
        "hydra.launcher.n_jobs=2",
        f"hydra.sweep.dir={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(tmp_path / "colour_sweep_table.csv").set_index(["optimizer", "colours"])
    hybrid, greedy = table.loc["hybrid_greedy"], table.loc["greedy"]
    assert list(hybrid.index) == list(range(2, 41))  # every count
    assert (hybrid["unmatched_edges"] <= greedy["unmatched_edges"]).all()
    assert (hybrid["duplicates"] == 0).all()
    exact = table.loc["exact_first"]
    assert list(exact.index) == list(range(2, 41)) and (exact["unmatched_edges"] == 0).all()
    runs = pd.read_csv(tmp_path / "runs.csv").set_index("optimizer")
    assert runs.loc["hybrid_greedy", "budget.evaluations"] == 30000


def test_a_sweep_of_one_method_is_reported(tmp_path):
    """The break backtracker as the sweep's only method: its points are the table and report.md shows
    them (the verdicts, which need two methods, are an empty table, not a KeyError)."""
    proc = run_app(
        "+experiment=colour_sweep",
        "optimizer=breaks",
        "optimizer.max_nodes=100000",
        "puzzle.n=5",
        "puzzle.instance_seed=0",
        "task.colours=[3,6]",
        f"hydra.sweep.dir={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr
    assert "raised" not in proc.stderr, proc.stderr
    table = pd.read_csv(tmp_path / "colour_sweep_table.csv")
    assert list(table["colours"]) == [3, 6] and set(table["optimizer"]) == {"breaks"}
    assert (
        table["match_rate"].between(0, 1).all() and table.loc[table["colours"] == 6, "match_rate"].item() == 1
    )
    assert "| breaks" in (tmp_path / "report.md").read_text()
    assert pd.read_csv(tmp_path / "colour_sweep_verdicts.csv").empty
