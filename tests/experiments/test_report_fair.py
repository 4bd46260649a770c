"""The sweep report compares like with like (issue 31): targets, ECDFs and ERT per problem instance,
never pooled across score scales; evaluations that count different things (a fitness call, a priced
move, a whole construction) never in one ERT table or one evaluations-based test. A report is written
whenever any record exists, with the failures by reason; pictures name their study, budget and smoke."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.ticker import MaxNLocator

from experiments import plots
from experiments.records import write_record
from experiments.report import failure_lines, failures, main, report
from studies.colour_sweep.report import colour_sweep_comparison, colour_sweep_verdicts, t_interval

# the slow tier (--dist loadgroup) runs this file on one worker: its fixtures, built once
pytestmark = pytest.mark.xdist_group("report_fair")

KINDS = {"sa": "fitness", "ga": "fitness", "beam": "construction", "hybrid": "priced move"}


def record(puzzle: str, optimizer: str, seed: int, trace: list[tuple[int, float]], **extra) -> dict:
    """One run's row: its final best is the trace's last, its evaluations the trace's last count."""
    evaluations, best = trace[-1]
    return {
        "task": "optimize",
        "seed": seed,
        "puzzle": puzzle,
        "optimizer": optimizer,
        "status": "ok",
        "error": None,
        "best": float(best),
        "known_optimum": 0.0,
        "success": best == 0,
        "evaluations": evaluations,
        "evaluation_kind": KINDS[optimizer],
        "evals_to_optimum": float(evaluations) if best == 0 else None,
        "best_genome": "0 1 2 3",
        "score_name": "conflicts" if puzzle == "queens" else "unmatched",
        "instance_keys": None,
        "seconds": evaluations / 1000,
        "cpu_seconds": evaluations / 1000,
        "seconds_to_optimum": evaluations / 1000 if best == 0 else None,
        "budget.evaluations": 1000,
        **extra,
    }


def write_run(root: Path, row: dict, trace: list[tuple[int, float]], smoke: bool = True) -> Path:
    d = root / f"puzzle={row['puzzle']},optimizer={row['optimizer']}" / f"seed={row['seed']}"
    d.mkdir(parents=True)
    (d / "config.yaml").write_text(f"study: mixed_study\nsmoke: {str(smoke).lower()}\n")
    frame = pd.DataFrame(
        {
            "evaluations": [e for e, _ in trace],
            "seconds": [e / 1000 for e, _ in trace],
            "best": [float(b) for _, b in trace],
        }
    )
    write_record(d, row, frame)
    return d


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> Path:
    """Queens (0 to 8 conflicts) beside a 13 x 13 edge board (150 to 300 unmatched joins); on the
    board, SA counts fitness calls, a beam one construction and a hybrid priced moves."""
    root = tmp_path_factory.mktemp("mixed")
    for seed in range(4):
        queens = {
            "sa": [(1, 8), (20, 4), (300 + seed, 0)],
            "ga": [(1, 7), (50, 3), (1000, 1 + seed % 2)],
        }
        for name, trace in queens.items():
            write_run(root, record("queens", name, seed, trace), trace)
        board = {
            "sa": [(1, 300), (400, 220), (1000, 200 - seed)],
            "beam": [(1, 160 + seed)],
            "hybrid": [(1, 290), (5000, 180), (2_000_000, 155 + seed)],
        }
        for name, trace in board.items():
            write_run(root, record("edge_matching", name, seed, trace), trace)
    report([root], quiet=True)
    return root


@pytest.mark.slow
def test_targets_are_per_puzzle_never_pooled_across_score_scales(mixed):
    ert = pd.read_csv(mixed / "ert_targets.csv")
    queens, board = ert[ert["puzzle"] == "queens"], ert[ert["puzzle"] == "edge_matching"]
    assert queens["target"].between(0, 8).all() and queens["target"].nunique() == 9  # every integer 0 .. 8
    assert board["target"].between(155, 300).all()
    # queens does not "reach" most targets at its first evaluation (a pooled grid's 150 .. 300 would)
    first = queens[queens["target"] < 7]
    assert (first["ert_evaluations"] > 1).all()


def test_evaluation_kinds_are_never_in_one_ert_table_or_one_evaluations_test(mixed):
    ert = pd.read_csv(mixed / "ert_targets.csv")
    kinds = ert.groupby("optimizer")["evaluation_kind"].unique().map(list).to_dict()
    assert kinds == {
        "beam": ["construction"],
        "ga": ["fitness"],
        "hybrid": ["priced move"],
        "sa": ["fitness"],
    }
    tests = pd.read_csv(mixed / "comparisons.csv")
    on_evaluations = tests[tests["metric"] == "evaluations_to_optimum"]
    pairs = {frozenset((a, b)) for a, b in zip(on_evaluations["a"], on_evaluations["b"])}
    assert pairs == {frozenset(("ga", "sa"))}  # only fitness against fitness; on queens
    assert set(on_evaluations["puzzle"]) == {"queens"}
    on_best = tests[(tests["metric"] == "best") & (tests["puzzle"] == "edge_matching")]
    assert len(on_best) == 3  # the final scores compare across kinds: every pair of the board's three
    text = (mixed / "report.md").read_text()
    ert_section = text.split("## Fixed-target ERT")[1].split("\n## ")[0]
    titles = [line for line in ert_section.splitlines() if line.startswith("### ")]
    assert titles == [
        "### edge_matching (evaluations = constructions)",
        "### edge_matching (evaluations = fitness calls)",
        "### edge_matching (evaluations = priced moves)",
        "### queens (evaluations = fitness calls)",
    ]
    summary = pd.read_csv(mixed / "summary.csv").set_index(["puzzle", "optimizer"])
    assert summary.loc[("edge_matching", "beam"), "evaluation_kind"] == "construction"


def test_pictures_have_a_facet_per_puzzle_and_kind_and_say_what_they_show(mixed):
    runs, traces = pd.read_parquet(mixed / "runs.parquet"), pd.read_parquet(mixed / "traces.parquet")
    keys = ["puzzle", "optimizer"]
    fig = plots.ecdf(runs, traces, keys, caption="study mixed_study")
    titles = sorted(ax.get_title() for ax in fig.axes)
    assert titles == sorted(
        [
            "edge_matching\nevaluations = constructions",
            "edge_matching\nevaluations = fitness calls",
            "edge_matching\nevaluations = priced moves",
            "queens\nevaluations = fitness calls",
        ]
    )
    for ax in fig.axes:  # the legend sits outside the data, one for the figure
        assert ax.get_legend() is None
    assert len(fig.legends) == 1 and fig._suptitle.get_text() == "study mixed_study"
    plt.close(fig)
    fig = plots.convergence(runs, traces, keys, x="seconds")  # against time every kind shares a facet
    assert sorted(ax.get_title() for ax in fig.axes) == ["edge_matching", "queens"]
    for ax in fig.axes:  # whole-number scores: integer ticks
        assert isinstance(ax.yaxis.get_major_locator(), MaxNLocator)
        assert all(t == round(t) for t in ax.get_yticks())
    plt.close(fig)
    fig = plots.final_scores(runs, keys)
    assert sorted(ax.get_title() for ax in fig.axes) == ["edge_matching", "queens"]
    plt.close(fig)


@pytest.mark.slow
def test_pictures_and_report_name_the_study_budget_and_smoke(mixed, monkeypatch):
    captions = []
    real = plots.finish
    monkeypatch.setattr(plots, "finish", lambda fig, caption: (captions.append(caption), real(fig, caption)))
    report([mixed], quiet=True)
    assert len(captions) >= 5 and len(set(captions)) == 1
    assert "mixed_study" in captions[0] and "SMOKE" in captions[0] and "1,000 evaluations" in captions[0]
    assert "mixed_study" in (mixed / "report.md").read_text().splitlines()[2]


def test_a_report_is_written_when_no_run_has_a_best(tmp_path, capsys):
    rows = [
        ("queens", "sa", 0, "ValueError: bad board"),
        ("queens", "sa", 1, "ValueError: bad board"),
        ("queens", "ga", 0, "MemoryError: out of memory"),
    ]
    dirs = []
    for puzzle, name, seed, error in rows:
        row = record(puzzle, name, seed, [(1, 5)]) | {"status": "failed", "error": error, "best": None}
        dirs.append(write_run(tmp_path, row, [(1, 5)]))
    out = report([tmp_path])
    text = (out / "report.md").read_text()
    assert (out / "summary.csv").is_file()
    assert "3 run(s) failed" in text and "`ValueError: bad board`" in text and str(dirs[2]) in text
    table = failures(pd.read_parquet(out / "runs.parquet"))
    assert table["error"].tolist() == ["ValueError: bad board", "MemoryError: out of memory"]
    assert table["runs"].tolist() == [2, 1] and table["run_dirs"].iloc[0] == [str(dirs[0]), str(dirs[1])]
    assert "3 run(s) failed, by reason in" in capsys.readouterr().out
    lines = failure_lines(table)
    assert lines[0] == "3 run(s) failed:" and lines[1].startswith("  2 x ValueError: bad board: ")
    main([str(tmp_path)])
    assert "  1 x MemoryError: out of memory: " + str(dirs[2]) in capsys.readouterr().err


def test_colour_sweep_methods_with_intervals_per_colour_count():
    rates = {"greedy": [0.9, 0.92, 0.94], "sa": [0.5, 0.6, 0.55], "two_opt": [0.9, 0.92, 0.94]}
    table = pd.DataFrame(
        [
            {"n": 5, "colours": c, "optimizer": o, "instance_seed": i, "match_rate": r if c == 4 else 1.0}
            for c in (4, 9)
            for o, rs in rates.items()
            for i, r in enumerate(rs)
        ]
    )
    comparison = colour_sweep_comparison(table).set_index(["colours", "optimizer"])
    lo, hi = t_interval(np.array([0.5, 0.6, 0.55]))
    assert comparison.loc[(4, "sa"), "ci_low"] == pytest.approx(lo) and lo < 0.55 < hi
    assert hi - 0.55 == pytest.approx(4.302653 * 0.05 / math.sqrt(3), rel=1e-5)  # t(0.975, 2) sd / sqrt(n)
    verdicts = colour_sweep_verdicts(table).set_index("colours")
    assert verdicts.loc[4, "best"] == "greedy, two_opt" and verdicts.loc[4, "verdict"] == "tied"
    alone = colour_sweep_verdicts(table[table["optimizer"] != "two_opt"]).set_index("colours")
    assert alone.loc[4, "best"] == "greedy" and alone.loc[4, "verdict"] == "better"
