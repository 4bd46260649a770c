"""Outside results in a sweep's report (issue 25, part 4): `python -m experiments.report <sweep dir>
--outside results.csv` puts published scores or another framework's runs beside the sweep's runs, in
the runs table, the summary, the pairwise tests, the ranking and the critical-difference diagram,
marked as outside everywhere; bad input ends with one line naming the problem."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from experiments.records import write_record
from experiments.report import PICTURES_OFF, main
from tests import ROOT
from tests.experiments.test_experiment_run import run_app

# the slow tier (--dist loadgroup) runs this file on one worker: its fixtures, built once
pytestmark = pytest.mark.xdist_group("outside")

EXAMPLE = ROOT / "examples" / "outside_pentomino.csv"
PACKING = {
    "packing/free6": 0,
    "packing/free7": 3,
    "packing/fixed6": 12,
    "packing/fixed7": 10,
    "packing/free8": 4,
}


def sweep(out: Path, *overrides: str) -> Path:
    """A sweep whose own report writes its tables only: the tests read the pictures of the reports they
    write themselves (`report`)."""
    proc = run_app(*overrides, PICTURES_OFF, f"hydra.sweep.dir={out}")
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def pentomino_study(tmp_path_factory):
    """The study the example CSV is for, at its smoke size: 5 optimisers on 2 puzzles, 1 seed."""
    return sweep(tmp_path_factory.mktemp("study"), "+experiment=pentomino_ga_vs_2opt", "smoke=on")


@pytest.fixture(scope="module")
def packing(tmp_path_factory):
    """Five instances (the fewest the ranking takes), two optimisers, one seed each."""
    return sweep(
        tmp_path_factory.mktemp("packing"),
        "-m",
        f"puzzle={','.join(PACKING)}",
        "optimizer=two_opt,sa",
        "seed=0",
        "budget.evaluations=200",
        "budget.stop_at_optimum=false",
    )


@pytest.fixture(scope="module")
def edge(tmp_path_factory):
    """A puzzle whose instances are told apart by an instance key (puzzle.instance_seed 1 and 2)."""
    return sweep(
        tmp_path_factory.mktemp("edge"),
        "-m",
        "puzzle=edge_matching",
        "puzzle.instance_seed=1,2",
        "optimizer=sa,two_opt",
        "seed=0",
        "budget.evaluations=200",
        "hydra/launcher=basic",
    )


def write_csv(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def report(sweep_dir: Path, out: Path, *csvs: Path) -> Path:
    main([str(sweep_dir), "--out", str(out), *(a for csv in csvs for a in ("--outside", str(csv)))])
    return out


@pytest.mark.slow
def test_the_example_joins_the_pentomino_study(pentomino_study, tmp_path):
    out = report(pentomino_study, tmp_path, EXAMPLE)
    runs = pd.read_csv(out / "runs.csv")
    assert runs["source"].value_counts().to_dict() == {"puzzlelab": 10, "outside": 8}
    outside = runs[runs["source"] == "outside"]
    assert set(outside["optimizer"]) == {"example_tabu (outside)", "example_published (outside)"}
    assert (runs.loc[runs["source"] == "puzzlelab", "optimizer"].str.endswith("(outside)")).sum() == 0
    # each row took its instance's settings from the sweep's runs of it
    free = outside[outside["puzzle"] == "pentomino_free"]
    assert set(free["puzzle.orientations"]) == {"free"} and set(free["known_optimum"]) == {0}
    assert sorted(free["best"]) == [6, 6, 6, 12]
    fixed = outside[outside["puzzle"] == "pentomino"]
    assert set(fixed["puzzle.orientations"]) == {"fixed"} and fixed["success"].all()
    assert outside["run_dir"].iloc[0] == f"{EXAMPLE}:2"

    summary = pd.read_csv(out / "summary.csv").set_index(["puzzle", "optimizer"])
    assert len(summary) == 14
    tabu = summary.loc[("pentomino", "example_tabu (outside)")]
    assert tabu["n"] == 3 and tabu["success_rate"] == 1 and tabu["median_evals_to_optimum"] == 650
    assert tabu["ert_evaluations"] == pytest.approx((650 + 910 + 480) / 3)
    published = summary.loc[("pentomino", "example_published (outside)")]
    assert published["success_rate"] == 1 and pd.isna(published["ert_evaluations"])  # no evaluations given
    assert summary.loc[("pentomino_free", "example_tabu (outside)"), "median"] == 6

    tests = pd.read_csv(out / "comparisons.csv")
    # 7 methods per puzzle: 21 pairs a metric, but a success without evaluations sits out of the
    # evaluations metric (example_published on pentomino: 6 pairs fewer); the example does not say what
    # its evaluations count (no evaluation_kind), which does not hold it back
    assert len(tests) == 21 + 21 + 21 + 15
    timing = tests[(tests["puzzle"] == "pentomino") & (tests["metric"] == "evaluations_to_optimum")]
    assert not (timing[["a", "b"]] == "example_published (outside)").any().any()
    assert ((tests["a"] == "example_tabu (outside)") | (tests["b"] == "example_tabu (outside)")).sum() == 23
    assert "example_tabu (outside)" in (out / "report.md").read_text()
    # no traces: drawn from the sweep's runs only, and left out of the IOHprofiler export
    assert (out / "convergence.png").is_file() and (out / "ecdf.png").is_file()
    assert sorted(p.name for p in (out / "iohprofiler").iterdir()) == [
        "ga",
        "sa",
        "two_opt",
        "vcopt_opt2",
        "vcopt_tspga",
    ]


@pytest.mark.slow
def test_outside_method_joins_the_ranking_and_the_cd_diagram(packing, tmp_path):
    """Two files (the option repeats), `run` for `seed`, the instance left blank or named: a reference
    at every instance's known optimum ranks first everywhere; its evaluations count fitness calls, as
    the sweep's do (evaluation_kind), so it is tested on evaluations to the optimum too."""
    rows = [
        f"{p},{p if k % 2 else ''},ref,{run},{opt},1000,fitness"
        for k, (p, opt) in enumerate(PACKING.items())
        for run in (1, 2)
    ]
    head = "puzzle,instance,method,run,score,evaluations,evaluation_kind\n"
    first = write_csv(tmp_path / "a.csv", head + "\n".join(rows[:6]) + "\n")
    second = write_csv(tmp_path / "b.csv", head + "\n".join(rows[6:]) + "\n")
    out = report(packing, tmp_path / "report", first, second)
    runs = pd.read_csv(out / "runs.csv")
    assert runs["source"].value_counts().to_dict() == {"puzzlelab": 10, "outside": 10}
    summary = pd.read_csv(out / "summary.csv")
    ref = summary[summary["optimizer"] == "ref (outside)"]
    assert len(summary) == 15 and len(ref) == 5 and (ref["n"] == 2).all() and (ref["success_rate"] == 1).all()
    ranking = pd.read_csv(out / "ranking.csv").set_index("optimizer")["meanrank"]
    assert sorted(ranking.index) == ["ref (outside)", "sa", "two_opt"]
    assert ranking["ref (outside)"] == 1.0
    assert (out / "cd_diagram.png").stat().st_size > 0
    assert "Friedman test over 5 instances" in (out / "report.md").read_text()
    tests = pd.read_csv(out / "comparisons.csv")
    assert len(tests) == 5 * 2 * 3  # instances x metrics x pairs of 3 methods
    assert ((tests["a"] == "ref (outside)") | (tests["b"] == "ref (outside)")).sum() == 20


@pytest.mark.slow
def test_rows_pair_up_on_the_instance_key(edge, tmp_path, capsys):
    """`instance` is the instance key's value (2.0 reads as 2): one run per instance pairs up with
    the sweep's runs, so the test is Wilcoxon's; a method missing an instance is noted."""
    csv = write_csv(
        tmp_path / "ref.csv",
        "puzzle,instance,method,seed,score\nedge_matching,1,ref,0,100\nedge_matching,2.0,ref,0,90\n"
        "edge_matching,1,half,0,300\n",
    )
    out = report(edge, tmp_path / "report", csv)
    runs = pd.read_csv(out / "runs.csv")
    ref = runs[runs["optimizer"] == "ref (outside)"].set_index("puzzle.instance_seed")["best"]
    assert ref.to_dict() == {1: 100, 2: 90}
    tests = pd.read_csv(out / "comparisons.csv")
    pair = tests[(tests["metric"] == "best") & (tests["a"] == "ref (outside)") & (tests["b"] == "sa")]
    assert pair[["test", "n"]].values.tolist() == [["wilcoxon", 2]]
    assert "note: half (outside) covers 1 of the sweep's 2 instances" in capsys.readouterr().err


BAD = [
    (
        "puzzle,instance,method,seed\nedge_matching,1,m,0\n",
        "{csv}: no column 'score'; the columns are: puzzle, "
        "instance, method, seed (or run), score, and optionally evaluations, seconds, evaluation_kind",
    ),
    (
        "puzzle,instance,method,score\nedge_matching,1,m,5\n",
        "{csv}: no column 'seed' or 'run' (which run a row "
        "is); the columns are: puzzle, instance, method, seed (or run), score, and optionally evaluations, "
        "seconds, evaluation_kind",
    ),
    (
        "puzzle,instance,method,seed,score\nedge_matching,1,m,0,5\n\nedge_matching,2,m,0,five\n",
        "{csv} line 4: score 'five' is not a number; accepted: a number, the final best as the puzzle "
        "scores it (lower is better)",
    ),
    (
        "puzzle,instance,method,seed,score\nedge_matchin,1,m,0,5\n",
        "{csv} line 2: puzzle 'edge_matchin' is not in the sweep (its puzzles: edge_matching)",
    ),
    (
        "puzzle,instance,method,seed,score\nedge_matching,3,m,0,5\n",
        "{csv} line 2: puzzle 'edge_matching' has no instance '3' in the sweep (its instances: 1, 2)",
    ),
    (
        "puzzle,instance,method,seed,score\nedge_matching,1,m,0,5\nedge_matching,1,m,0,6\n",
        "{csv} line 3: repeats {csv} line 2 (m, edge_matching instance 1, seed 0)",
    ),
    (
        "puzzle,instance,method,seed,score\nedge_matching,1,m,0.5,5\n",
        "{csv} line 2: seed '0.5' is not a whole number; accepted: a whole number",
    ),
    (
        "puzzle,instance,method,seed,score,seconds\nedge_matching,1,m,0,5,soon\n",
        "{csv} line 2: seconds 'soon' is not a number; accepted: a number >= 0 (the seconds the run "
        "spent), or blank",
    ),
    (
        "puzzle,instance,method,seed,score\nedge_matching,1,m,0,5,7\n",
        "{csv} line 2: 6 fields where the header has 5",
    ),
    ("puzzle,instance,method,seed,score\nedge_matching,1,,0,5\n", "{csv} line 2: no method"),
    ("puzzle,instance,method,seed,score\n", "{csv}: no rows under the header"),
    # what the sweep knows (issue 31): nothing beats an instance's known optimum, nothing spends less than 0
    (
        "puzzle,instance,method,seed,score\nedge_matching,1,m,0,5\nedge_matching,2,m,0,-1\n",
        "{csv} line 3: score -1 is below what edge_matching instance 2 allows (its known optimum is 0); "
        "accepted: a score >= 0, as the puzzle scores it (lower is better)",
    ),
    (
        "puzzle,instance,method,seed,score,evaluations\nedge_matching,1,m,0,5,-25\n",
        "{csv} line 2: evaluations '-25' is negative; accepted: a number >= 0 (the evaluations the run "
        "spent), or blank",
    ),
    (
        "puzzle,instance,method,seed,score,evaluations\nedge_matching,1,m,0,5,inf\n",
        "{csv} line 2: evaluations 'inf' is not a finite number; accepted: a number >= 0 (the evaluations "
        "the run spent), or blank",
    ),
    (
        "puzzle,instance,method,seed,score,seconds\nedge_matching,1,m,0,5,NaN\n",
        "{csv} line 2: seconds 'NaN' is not a number; accepted: a number >= 0 (the seconds the run spent), "
        "or blank",
    ),
    (
        "puzzle,instance,method,seed,score,seconds\nedge_matching,1,m,0,5,-0.5\n",
        "{csv} line 2: seconds '-0.5' is negative; accepted: a number >= 0 (the seconds the run spent), "
        "or blank",
    ),
    (
        "puzzle,instance,method,seed,score,evaluations,evaluation_kind\nedge_matching,1,m,0,5,9,fitnes\n",
        "{csv} line 2: evaluation_kind 'fitnes' is not one puzzlelab counts; accepted: construction, fitness, "
        "priced move, priced placement, or blank",
    ),
    (
        "puzzle,instance,method,seed,score\nedge_matching,1,m,0,-inf\n",
        "{csv} line 2: score '-inf' is not a finite number; accepted: a number, the final best as the "
        "puzzle scores it (lower is better)",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("text, line", BAD, ids=[line.split(": ", 1)[1][:40] for _, line in BAD])
def test_bad_input_ends_with_one_line(edge, tmp_path, text, line):
    csv = write_csv(tmp_path / "results.csv", text)
    with pytest.raises(SystemExit) as exit_:
        report(edge, tmp_path / "report", csv)
    assert str(exit_.value) == "error: " + line.format(csv=csv)
    assert not (tmp_path / "report").exists()  # nothing written


@pytest.mark.slow
def test_a_missing_file_is_one_line(edge, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        report(edge, tmp_path / "report", tmp_path / "nowhere.csv")
    assert str(exit_.value) == f"error: outside results: no such file: {tmp_path / 'nowhere.csv'}"


@pytest.mark.slow
def test_without_outside_results_the_tables_are_unchanged(edge, tmp_path):
    out = report(edge, tmp_path)
    runs = pd.read_csv(out / "runs.csv")
    assert "source" not in runs and len(runs) == 4


@pytest.mark.slow
def test_no_score_below_a_lower_bound_an_exact_record_proved(edge, tmp_path):
    """An exact record of the same board (task exact on edge matching: columns optimum, lower_bound) in
    the sweep bounds what an outside row may claim on that instance, and only on that one."""
    sweep_dir = tmp_path / "sweep"
    shutil.copytree(edge, sweep_dir)
    records = [pd.read_parquet(f).iloc[0] for f in sorted(edge.rglob("run.parquet"))]
    one = next(r for r in records if r["puzzle.instance_seed"] == 1)
    puzzle = {c: one[c] for c in one.index if c.startswith("puzzle.")}
    row = {"task": "exact", "seed": 0, "puzzle": "edge_matching", "status": "ok", **puzzle}
    exact_dir = sweep_dir / "task=exact" / "seed=0"
    write_record(exact_dir, {**row, "optimum": None, "lower_bound": 7, "proved": "optimum at least 7"})
    csv = write_csv(tmp_path / "results.csv", "puzzle,instance,method,seed,score\nedge_matching,1,m,0,6\n")
    with pytest.raises(SystemExit) as exit_:
        report(sweep_dir, tmp_path / "report", csv)
    assert str(exit_.value) == (
        f"error: {csv} line 2: score 6 is below what edge_matching instance 1 allows (the exact record "
        f"{exact_dir.resolve()} proved its lower bound 7); accepted: a score >= 7, as the puzzle scores it "
        "(lower is better)"
    )
    fine = write_csv(
        tmp_path / "fine.csv",
        "puzzle,instance,method,seed,score\nedge_matching,1,m,0,7\nedge_matching,2,m,0,6\n",
    )
    out = report(sweep_dir, tmp_path / "fine", fine)
    outside = pd.read_csv(out / "runs.csv").query("source == 'outside'")
    assert sorted(outside["best"]) == [6, 7]


def test_a_count_is_never_below_zero(tmp_path):
    """Without a known optimum (the official Eternity II set), a score that counts (unmatched edges)
    is still never negative."""
    run = run_app(
        "puzzle=eternity2", "optimizer=sa", "budget.evaluations=200", f"hydra.run.dir={tmp_path / 'run'}"
    )
    assert run.returncode == 0, run.stderr
    assert pd.isna(pd.read_parquet(tmp_path / "run" / "run.parquet")["known_optimum"].iloc[0])
    csv = write_csv(tmp_path / "results.csv", "puzzle,instance,method,seed,score\neternity2,,m,0,-2\n")
    proc = run_app(
        str(tmp_path / "run"),
        "--out",
        str(tmp_path / "report"),
        "--outside",
        str(csv),
        module="experiments.report",
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        f"error: {csv} line 2: score -2 is below what eternity2 instance eternity2 allows (its score counts "
        "unmatched edges, never below 0); accepted: a score >= 0, as the puzzle scores it (lower is better)"
    )
