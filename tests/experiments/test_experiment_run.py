"""The Hydra app end to end: a run's record, a tiny multirun's aggregate table, one-line errors."""

import subprocess
import sys

import pandas as pd
import pytest
import yaml

from experiments.schema import CONFIG_DIR
from tests import ROOT


def run_app(*overrides: str, module: str = "experiments.run") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", module, *overrides], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_one_run_writes_its_record(tmp_path):
    proc = run_app(
        "optimizer=sa",
        "seed=3",
        "budget.evaluations=3000",
        "budget.stop_at_optimum=false",
        f"hydra.run.dir={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr
    row = pd.read_parquet(tmp_path / "run.parquet").iloc[0]
    assert row["optimizer"] == "sa" and row["seed"] == 3 and row["evaluations"] == 3000
    assert row["puzzle.width"] == 6 and row["optimizer.alpha"] == 0.999
    assert row["best"] == row["score.gaps"] >= 12
    trace = pd.read_parquet(tmp_path / "trace.parquet")
    assert list(trace.columns) == ["evaluations", "seconds", "best"]
    assert trace["best"].is_monotonic_decreasing and trace["best"].iloc[-1] == row["best"]
    assert pd.read_csv(tmp_path / "run.csv")["best"].iloc[0] == row["best"]
    config = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert config["seed"] == 3 and config["optimizer"]["_target_"] == "heuristics.sa.SimulatedAnnealing"
    assert (tmp_path / "best.png").stat().st_size > 0
    assert "sa | seed 3: best" in proc.stdout


@pytest.mark.slow
def test_tiny_multirun_writes_the_aggregate_table(tmp_path):
    proc = run_app(
        "-m",
        "optimizer=ga,two_opt",
        "seed=0,1",
        "budget.evaluations=400",
        "budget.stop_at_optimum=false",
        f"hydra.sweep.dir={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr
    runs_dir = tmp_path / "budget.evaluations=400,budget.stop_at_optimum=False,optimizer=ga"
    assert (runs_dir / "seed=1" / "run.parquet").is_file()
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert sorted(summary["optimizer"]) == ["ga", "two_opt"]
    assert (summary["n"] == 2).all() and (summary["min"] >= 12).all()
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert len(runs) == 4 and set(runs["evaluations"]) == {400}
    for name in ("convergence.png", "final.png", "traces.parquet"):
        assert (tmp_path / name).is_file()


OPTIMIZERS = ", ".join(
    sorted(p.stem for p in (CONFIG_DIR / "optimizer").glob("*.yaml"))
)  # every config, named


@pytest.mark.slow
@pytest.mark.parametrize(
    "overrides, line",
    [
        (["budget.evaluations=-5"], "error: budget.evaluations must be positive, got -5"),
        (
            ["puzzle.width=3"],
            (
                "error: the strip (width 3) is narrower than piece 1 (I, 5 wide); "
                "use puzzle.width >= 5 or puzzle.orientations=free"
            ),
        ),
        (["seed=-1"], "error: seed must be a whole number >= 0, got -1; e.g. seed=3"),
        (
            ["optimizer.crossover=uniform"],
            "error: optimizer.crossover must be one of ['ordered', 'pmx'], got 'uniform'",
        ),
        (
            ["puzzle.orientations=sometimes"],
            "error: puzzle.orientations must be 'fixed' or 'free', got 'sometimes'",
        ),
    ],
)
def test_bad_input_ends_with_one_clear_line(tmp_path, overrides, line):
    """The whole line a user reads, and nothing else on stderr."""
    proc = run_app(*overrides, f"hydra.run.dir={tmp_path}", f"hydra.sweep.dir={tmp_path}")
    assert proc.returncode == 2
    assert proc.stderr.strip() == line
    assert "Traceback" not in proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    "overrides, line",
    [
        (
            ["optimizer=simulated_annealing"],
            f"error: unknown optimizer 'simulated_annealing'; choose one of: {OPTIMIZERS}",
        ),
        (
            ["-m", "optimizer=ga,simulated_annealing"],
            f"error: unknown optimizer 'simulated_annealing'; choose one of: {OPTIMIZERS}",
        ),
        (
            ["puzzle.widht=7"],
            (
                "error: puzzle has no setting 'widht'; it takes: width, orientations, pieces, copies, "
                "tie_break, repack (prefix a new key with + to add it)"
            ),
        ),
        (
            ["sede=3"],
            (
                "error: the config has no setting 'sede'; it takes: budget, puzzle, optimizer, task, seed, "
                "progress, study, resume, choices (prefix a new key with + to add it)"
            ),
        ),
        (["puzzle.width=six"], "error: puzzle.width must be a whole number, got 'six'"),
    ],
)
def test_a_typo_or_wrong_type_fails_when_the_config_is_composed(tmp_path, overrides, line):
    """The command line is checked before Hydra runs it: the whole line a user reads, saying what is
    wrong and what to type instead, and nothing else on stderr."""
    proc = run_app(*overrides, f"hydra.run.dir={tmp_path}", f"hydra.sweep.dir={tmp_path}")
    assert proc.returncode == 1
    assert proc.stderr.strip() == line
    assert "Traceback" not in proc.stderr + proc.stdout


@pytest.mark.slow
def test_malformed_piece_file_ends_with_one_clear_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 I\n##x##\n")
    proc = run_app(f"puzzle.pieces={bad}", f"hydra.run.dir={tmp_path / 'run'}")
    assert proc.returncode == 2
    assert (
        proc.stderr.strip()
        == f"error: {bad}:2: piece 1 uses 'x'; draw cells with '#' and empty space with '.'"
    )
