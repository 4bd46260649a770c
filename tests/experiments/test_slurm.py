"""The cluster path for real: a sweep through hydra/launcher=slurm on a one-node Slurm (.ci/slurm),
part of it cancelled with scancel, then re-run into the same directory.

Needs root and a Debian machine (the cluster is installed and started by `.ci/slurm up`); skipped
elsewhere, unless PUZZLELAB_SLURM=required (as .ci/run sets it), when not having a cluster fails.
The daemons this test started are stopped at its end."""

import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from experiments.records import is_complete, read_row
from tests import ROOT
from tests.experiments.test_sweeps import app, finished

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("slurm")]  # the one-node cluster: longer checks

RUNS = [
    "-m",
    "puzzle=pentomino",
    "optimizer=sa,two_opt",
    "seed=0,1,2",
    "budget.evaluations=3000",
    "budget.stop_at_optimum=false",
]
SLURM = [
    "hydra/launcher=slurm",
    "hydra.launcher.partition=debug",
    "hydra.launcher.mem_gb=1",
    "hydra.launcher.runs_per_job=2",  # 6 runs in 3 jobs
    "hydra.launcher.array_parallelism=1",  # one job at a time, so the last is still waiting when cancelled
    "hydra.launcher.poll_s=0.5",
]
SAME = ["best", "evaluations", "best_genome", "stop_reason"]


def wait_until(condition, seconds: float = 300) -> None:
    deadline = time.time() + seconds
    while not condition():
        assert time.time() < deadline, "timed out"
        time.sleep(0.1)


def test_a_cancelled_slurm_sweep_resumes_to_the_joblib_results(cluster, tmp_path):
    sweep, local = tmp_path / "slurm", tmp_path / "joblib"
    proc = subprocess.Popen(
        [sys.executable, "-m", "experiments.run", *RUNS, *SLURM, f"hydra.sweep.dir={sweep}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_until(lambda: len(finished(sweep)) >= 1)  # the first job is running
    array = next(p.name for p in (sweep / ".submitit").iterdir() if re.fullmatch(r"\d+_\d+", p.name))
    array = array.split("_")[0]  # the job array's id, from a job folder such as 17_0
    cancel = subprocess.run(["scancel", f"{array}_2"], capture_output=True, text=True)
    assert cancel.returncode == 0, cancel.stderr
    out, err = proc.communicate(timeout=300)  # ends: the launcher does not wait for a cancelled job

    assert proc.returncode == 0, err
    assert f"missing: 1 of 3 Slurm jobs ended without finishing ({array}_2 " in err
    done = finished(sweep)
    assert len(done) == 4
    first = {d: (d / "run.parquet").stat().st_mtime_ns for d in done}

    again = app(*RUNS, *SLURM, f"hydra.sweep.dir={sweep}")
    assert again.returncode == 0, again.stderr
    assert "missing" not in again.stderr
    assert len(finished(sweep)) == 6 and all(is_complete(d) for d in finished(sweep))
    assert {d: (d / "run.parquet").stat().st_mtime_ns for d in done} == first  # finished runs not re-run
    runs = pd.read_csv(sweep / "runs.csv")
    assert len(runs) == 6 and not runs.duplicated(["optimizer", "seed"]).any()

    joblib = app(*RUNS, "hydra/launcher=local", f"hydra.sweep.dir={local}")
    assert joblib.returncode == 0, joblib.stderr
    expected = pd.read_csv(local / "runs.csv").set_index(["optimizer", "seed"]).sort_index()
    pd.testing.assert_frame_equal(runs.set_index(["optimizer", "seed"]).sort_index()[SAME], expected[SAME])


TUNING = [
    "-m",
    "task=tune",
    "puzzle=eternity2_like",
    "puzzle.n=4",
    "optimizer=sa_compiled",
    "budget.evaluations=5000000",
    "budget.stop_at_optimum=false",  # a run of ~0.5 s, not one that stops at its optimum in a millisecond:
    # a trial's job (8 runs) is still running when the test cancels it
    "task.instances=[1,2]",
    "task.seeds=[0,1,2,3]",
    "hydra/sweeper=optuna",
    "hydra.sweeper.n_trials=4",
    "hydra.sweeper.n_jobs=2",  # two trials at once, each a Slurm job
    "hydra.sweeper.sampler.seed=0",
    "hydra.sweeper.storage=journal",  # the journal file in the sweep folder: what jobs on many nodes share
    "optimizer.t_start=tag(log, interval(0.3, 3.0))",
    "optimizer.t_end=tag(log, interval(0.01, 0.3))",
    "hydra/launcher=slurm",
    "hydra.launcher.partition=debug",
    "hydra.launcher.mem_gb=1",
    "hydra.launcher.poll_s=0.5",
]


def inner_runs(sweep: Path) -> dict[Path, int]:
    """The tuning runs recorded (one instance, one seed each), with their record's time."""
    return {d: (d / "run.parquet").stat().st_mtime_ns for d in finished(sweep) if d.name.startswith("seed=")}


def settled(run_dir: Path) -> bool:
    """A run the cancel stopped mid-way keeps its best so far, recorded as interrupted (or a record
    cut off by the kill): the trial runs it again, as tune's skip rule says; any other is kept."""
    return is_complete(run_dir) and read_row(run_dir).get("stop_reason") != "interrupted"


def test_a_tuning_study_on_slurm_survives_a_cancelled_trial_and_runs_no_trial_twice(cluster, tmp_path):
    import optuna

    sweep = tmp_path / "tune"
    proc = subprocess.Popen(
        [sys.executable, "-m", "experiments.run", *TUNING, f"hydra.sweep.dir={sweep}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    # both trials of the first batch have recorded a run: cancel trial 1's job mid-way
    wait_until(lambda: len({d.parents[1] for d in inner_runs(sweep)}) >= 2)
    array = next(p.name for p in (sweep / ".submitit").iterdir() if re.fullmatch(r"\d+_\d+", p.name))
    cancel = subprocess.run(["scancel", f"{array.split('_')[0]}_1"], capture_output=True, text=True)
    assert cancel.returncode == 0, cancel.stderr
    out, _ = proc.communicate(timeout=600)
    assert "trial 1: its job ended without finishing; left running in the study" in out, out[-3000:]
    before = {d: t for d, t in inner_runs(sweep).items() if settled(d)}

    again = app(*TUNING, f"hydra.sweep.dir={sweep}")
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "3 of 4 trials complete, 1 to run (1 left running by a stopped sweep, run again)" in again.stdout
    study = optuna.load_study(
        study_name=None,
        storage=optuna.storages.JournalStorage(
            optuna.storages.journal.JournalFileBackend(str(sweep / "optuna.journal"))
        ),
    )
    assert [t.number for t in study.trials] == [0, 1, 2, 3]  # distinct numbers, no trial asked twice
    assert all(t.state.name in ("COMPLETE", "PRUNED") for t in study.trials)
    trials = pd.read_csv(sweep / "trials.csv")
    assert sorted(trials["trial"]) == [0, 1, 2, 3]
    after = inner_runs(sweep)
    assert all(after[d] == t for d, t in before.items())  # a run finished before the cancel is not run again
    assert len(after) == trials["runs"].sum()  # every run belongs to exactly one trial's count
