"""A sweep always gets its report (issue 44, part 3): every plot draws from failed, missing and constant
values or raises NotDrawn, a plot that cannot be drawn is named in report.md and the rest is written,
records left out as damaged are listed, and `experiments.report` is one line where it cannot write."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from experiments import plots
from experiments import report as report_module
from experiments.ranking import cd_diagram, rank
from experiments.records import write_record
from experiments.report import report
from studies.colour_sweep.plot import colour_sweep
from tests.experiments.test_experiment_run import run_app
from tests.experiments.test_report_fair import record

# each case's final bests for runs 0 .. 3 (None: a failed run); a run's trace ends at its best
CASES = {
    "failed": [3.0, None, None, 4.0],
    "all failed": [None, None, None, None],
    "missing": [np.nan, 2.0, 5.0, np.nan],
    "constant": [4.0, 4.0, 4.0, 4.0],
}


def runs_and_traces(case: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two optimisers x two settings on one puzzle, `best` as records gathered beside a failure hold it
    (objects); "missing" also lacks an evaluation count and a trace, "constant" is one evaluation each."""
    bests = CASES[case]
    evaluations = [1] * 4 if case == "constant" else [100, 200, None, 200]
    runs = pd.DataFrame(
        {
            "run_id": range(4),
            "puzzle": "p",
            "optimizer": ["a", "a", "b", "b"],
            "optimizer.x": [1.0, 2.0, 1.0, 2.0],
            "puzzle.width": [6.0, 6.0, 7.0, 7.0],
            "status": ["ok" if b is not None else "failed" for b in bests],
            "best": pd.Series(bests, dtype=object),
            "evaluations": pd.Series(evaluations, dtype=object),
            "seconds": [0.1, 0.2, np.nan, 0.2],
        }
    )
    rows = [
        (i, e, e / 1000, b + d)
        for i, b in enumerate(bests)
        if b is not None and not np.isnan(b) and not (case == "missing" and i == 1)
        for e, d in ([(1, 0.0)] if case == "constant" else [(1, 3.0), (50, 0.0)])
    ]
    traces = pd.DataFrame(rows, columns=["run_id", "evaluations", "seconds", "best"])
    return runs, traces


KEYS = ["puzzle", "optimizer", "optimizer.x", "puzzle.width"]


def colour_table(bests: list) -> pd.DataFrame:
    """A colour sweep's points with these values as match rates (None: a point that failed)."""
    rows = [
        {"n": 4, "colours": c, "optimizer": name, "instance_seed": 0, "match_rate": b}
        for name in ("greedy_faithful", "sa")
        for c, b in zip((2, 3, 4, 5), bests)
    ]
    return pd.DataFrame(rows).astype({"match_rate": object})


def ranked(bests: list):
    """A ranking of three optimisers over ten puzzles, each puzzle's bests from these values (all equal
    where the values are); None where fewer than five puzzles have a best."""
    step = 0.0 if len(set(bests)) == 1 else 1.0
    rows = [
        {
            "puzzle": f"p{i}",
            "optimizer": name,
            "best": (np.nan if bests[i % 4] is None else bests[i % 4]) + k * step * (i % 3),
        }
        for i in range(10)
        for k, name in enumerate("abc")
    ]
    return rank(pd.DataFrame(rows), ["puzzle", "optimizer"])


PLOTS = {
    "convergence": lambda r, t, b: plots.convergence(r, t, KEYS),
    "convergence_seconds": lambda r, t, b: plots.convergence(r, t, KEYS, x="seconds"),
    "final_scores": lambda r, t, b: plots.final_scores(r, KEYS),
    "ecdf": lambda r, t, b: plots.ecdf(r, t, KEYS),
    "ecdf_seconds": lambda r, t, b: plots.ecdf(r, t, KEYS, x="seconds"),
    "heatmaps": lambda r, t, b: plots.heatmaps(r, "optimizer.x", "puzzle.width"),
    "colour_sweep": lambda r, t, b: colour_sweep(colour_table(b)),
    "cd_diagram": lambda r, t, b: cd_diagram(ranked(b)),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", PLOTS)
def test_every_plot_draws_or_says_why_not(tmp_path, name, case):
    runs, traces = runs_and_traces(case)
    if name == "cd_diagram" and ranked(CASES[case]) is None:
        assert case == "all failed"  # no instance has a best: the report ranks nothing, draws no diagram
        return
    try:
        fig = PLOTS[name](runs, traces, CASES[case])
    except plots.NotDrawn as err:  # what the report catches and names (plots.picture)
        assert case == "all failed", f"{name} drew nothing from {case} values: {err}"
        assert str(err).startswith("no ")
        return
    assert isinstance(fig, Figure)
    fig.savefig(tmp_path / "plot.png")
    plt.close(fig)
    assert (tmp_path / "plot.png").stat().st_size > 0


def write_sweep(root: Path) -> Path:
    """Five puzzles x two optimisers x two settings of x and y (a two-parameter sweep that ranks), a
    failed run whose `best` is None, and one damaged record; returns the damaged record's folder."""
    for p in range(5):
        for name in ("sa", "ga"):
            for x in (1, 2):
                for y in (0.5, 0.9):
                    trace = [(1, 8.0), (10 * x, float(p + x))]
                    row = record(f"q{p}", name, 0, trace, **{"optimizer.x": x, "optimizer.y": y})
                    d = root / f"puzzle=q{p},optimizer={name},x={x},y={y}" / "seed=0"
                    d.mkdir(parents=True)
                    write_record(
                        d, row, pd.DataFrame(trace, columns=["evaluations", "best"]).assign(seconds=0.1)
                    )
    failed = record("q0", "sa", 1, [(1, 5.0)]) | {
        "status": "failed",
        "error": "ValueError: bad",
        "best": None,
    }
    (root / "failed").mkdir()
    write_record(root / "failed", failed)
    damaged = root / "damaged" / "seed=0"
    damaged.mkdir(parents=True)
    (damaged / "run.parquet").write_text("not a table")
    return damaged


@pytest.mark.slow
def test_plots_that_fail_are_named_and_the_rest_of_the_report_is_written(tmp_path, monkeypatch):
    damaged = write_sweep(tmp_path)

    def broken(*args, **kwargs):
        raise RuntimeError("drawing broke\nsecond line")

    def nothing(*args, **kwargs):
        raise plots.NotDrawn("no run has a number in best")

    monkeypatch.setattr(plots, "convergence", broken)
    monkeypatch.setattr(plots, "heatmaps", nothing)
    monkeypatch.setattr(report_module, "cd_diagram", broken)
    report([tmp_path], quiet=True)
    text = (tmp_path / "report.md").read_text()
    section = text.split("## Plots not drawn\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert section == [
        "- cd_diagram.png: RuntimeError: drawing broke",
        "- convergence.png: RuntimeError: drawing broke",
        "- convergence_seconds.png: RuntimeError: drawing broke",
        "- heatmap.png: no run has a number in best",
    ]
    for gone in ("convergence.png", "convergence_seconds.png", "heatmap.png", "cd_diagram.png"):
        assert f"({gone})" not in text and not (tmp_path / gone).exists()
    for drawn in ("final.png", "ecdf.png", "ecdf_seconds.png"):
        assert f"![{drawn}]({drawn})" in text and (tmp_path / drawn).stat().st_size > 0
    assert "## Summary" in text and "## Ranking over instances" in text and "## Pairwise comparisons" in text
    assert "## Failed runs" in text and "`ValueError: bad`" in text
    assert (tmp_path / "summary.csv").is_file() and (tmp_path / "ranking.csv").is_file()
    # the damaged record: which folder and why
    left = text.split("## Records left out\n", 1)[1]
    assert f"left out, damaged record: {damaged}: run.parquet is unreadable" in left


def test_a_report_of_only_failed_runs_lists_its_damaged_records(tmp_path):
    failed = record("q0", "sa", 1, [(1, 5.0)]) | {
        "status": "failed",
        "error": "ValueError: bad",
        "best": None,
    }
    write_record(tmp_path / "ok", failed)
    (tmp_path / "cut").mkdir()
    (tmp_path / "cut" / "run.parquet").write_bytes(b"")
    report([tmp_path], quiet=True)
    text = (tmp_path / "report.md").read_text()
    assert f"left out, damaged record: {tmp_path / 'cut'}: run.parquet is empty" in text
    assert "## Plots not drawn" not in text and "## Failed runs" in text


SWEEP = [
    "-m",
    "puzzle.width=6,7",
    "optimizer.cxpb=0.5,0.9,1.5",
    "budget.evaluations=200",
    "hydra/launcher=basic",
]


@pytest.mark.slow
def test_a_two_setting_sweep_with_failed_runs_gets_its_report(tmp_path):
    """The issue's command: cxpb=1.5 fails its runs, whose `best` is None beside the others' numbers."""
    done = run_app(*SWEEP, f"hydra.sweep.dir={tmp_path}")
    assert done.returncode == 1 and "Traceback" not in done.stderr  # failed runs fail the sweep
    assert "the sweep's report failed" not in done.stderr and "not drawn" not in done.stderr
    assert "2 of 6 runs failed or were refused:" in done.stderr
    text = (tmp_path / "report.md").read_text()
    assert "## Failed runs" in text and "optimizer.cxpb must be a probability" in text
    for name in ("heatmap.png", "final.png", "convergence.png", "ecdf.png"):
        assert f"![{name}]({name})" in text and (tmp_path / name).stat().st_size > 0
    again = run_app(str(tmp_path), module="experiments.report")
    assert again.returncode == 0 and "Traceback" not in again.stderr
    assert again.stdout.strip().endswith(f"report written to {tmp_path / 'report.md'}")


@pytest.mark.slow
def test_an_optuna_study_whose_first_trial_failed_gets_its_report_on_every_run(tmp_path):
    """Trials 0 and 2 fail (a negative temperature), 1 scores; the same command again runs trials 3 (a
    score: now two settings for the heatmap, beside failed runs) and 4."""
    study = ["-m", "puzzle=queens", "optimizer=sa", "budget.evaluations=100", "hydra/sweeper=optuna"]
    study += ["hydra.sweeper.n_trials=3", "hydra.sweeper.n_jobs=1", "hydra.sweeper.sampler.seed=0"]
    study += [
        "optimizer.t0=interval(-0.5, 0.5)",
        "optimizer.alpha=interval(0.9, 0.99)",
        "hydra/launcher=basic",
    ]
    first = run_app(*study, f"hydra.sweep.dir={tmp_path}")
    assert "trial 0 failed" in first.stdout and "Trial 1:" in first.stdout  # a failure, then a score
    again = run_app(*study, f"hydra.sweep.dir={tmp_path}")  # continues the study
    for done in (first, again):
        assert "Traceback" not in done.stderr and "the sweep's report failed" not in done.stderr
        assert f"sweep report -> {tmp_path / 'report.md'}" in done.stdout
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert (runs["status"] == "ok").sum() >= 2 and (runs["status"] == "failed").sum() >= 2
    assert (tmp_path / "heatmap.png").is_file() and "## Failed runs" in (tmp_path / "report.md").read_text()


@pytest.mark.slow
def test_a_report_into_a_read_only_sweep_is_one_line(tmp_path, read_only):
    def fill(path: Path) -> None:
        for seed in range(2):
            trace = [(1, 5.0), (40, 2.0 + seed)]
            write_record(
                path / f"seed={seed}",
                record("queens", "sa", seed, trace),
                pd.DataFrame(trace, columns=["evaluations", "best"]).assign(seconds=0.1),
            )

    sweep = read_only(tmp_path / "sweep", fill)
    done = run_app(str(sweep), module="experiments.report")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: cannot write the report into {sweep}: ")
    assert lines[0].endswith("make that folder writable, or write the report elsewhere with --out DIR")
    elsewhere = run_app(str(sweep), "--out", str(tmp_path / "out"), module="experiments.report")
    assert elsewhere.returncode == 0 and (tmp_path / "out" / "report.md").is_file()


def test_a_sweep_whose_report_draws_no_pictures_writes_its_tables(tmp_path):
    """hydra.callbacks.report.pictures=false: the tables and report.md, no generic picture, and
    report.md says which were left out and by what setting."""
    from tests.experiments.test_bad_input import run_forked

    sweep = ["-m", "hydra/launcher=basic", "puzzle=queens", "optimizer=sa,two_opt", "seed=0,1"]
    sweep += [
        "budget.evaluations=300",
        "hydra.callbacks.report.pictures=false",
        f"hydra.sweep.dir={tmp_path}",
    ]
    proc = run_forked(sweep, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert len(pd.read_csv(tmp_path / "runs.csv")) == 4 and (tmp_path / "summary.csv").is_file()
    assert not list(tmp_path.glob("*.png"))
    report = (tmp_path / "report.md").read_text()
    for picture in ("final.png", "convergence.png", "ecdf.png"):
        assert f"- {picture}: hydra.callbacks.report.pictures=false" in report
