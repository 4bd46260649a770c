"""Pre-emption on Slurm (issue 58, item 2): a job of hydra/launcher=slurm warned with submitit's signal
(USR2: a scheduler's pre-emption, or Slurm `signal_delay_s` before the time limit) stops its run at a
step boundary, which writes checkpoint.pkl, and only then requeues itself; a job Slurm requeues itself
(`scontrol requeue`: SIGTERM) stops its run the same way. Either way the requeued job continues the run
from its checkpoint and ends with the record of an unbroken run.

The Chunk tests run anywhere (signals sent to this process, a stand-in for submitit's handler). The
cluster test starts a one-node Slurm (`bash .ci/slurm up`, as root, the `cluster` fixture): skipped where
it cannot, unless PUZZLELAB_SLURM=required (as .ci/run sets it), when that fails.
"""

import os
import re
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from core import interrupt
from experiments.cluster import wait_for
from hydra_plugins.puzzlelab_launcher.slurm_launcher import Chunk
from tests import ROOT
from tests.experiments.test_sweeps import app, finished

BUDGET = 1_500_000  # about 30 s of SA on an 8 x 8 board on this machine: long enough to stop mid-run
RUNS = [
    "-m",
    "puzzle=eternity2_like",
    "puzzle.n=8",
    "optimizer=sa",
    "seed=0,1",
    f"budget.evaluations={BUDGET}",
]
SLURM = [
    "hydra/launcher=slurm",
    "hydra.launcher.partition=debug",
    "hydra.launcher.mem_gb=1",
    "hydra.launcher.poll_s=0.5",
]
SAME = ["best", "evaluations", "best_genome", "stop_reason"]


# --- the job's side, without a cluster -------------------------------------------------------------


class Runs:
    """A stand-in launcher: each call is a run; `signal_at` sends the job's signal during that run,
    `stopped` makes that run end as a stopped run does in a sweep (KeyboardInterrupt, after its record)."""

    def __init__(self, signal_at: int | None = None, stopped: bool = False, signum: int = signal.SIGUSR2):
        self.signal_at, self.stopped, self.signum, self.ran = signal_at, stopped, signum, []

    def __call__(self, name: str) -> str:
        self.ran.append(name)
        if len(self.ran) - 1 == self.signal_at:
            os.kill(os.getpid(), self.signum)
            time.sleep(0.05)  # the Python handler runs here
            if self.stopped:
                assert interrupt.requested()  # the run's search was asked to stop
                raise KeyboardInterrupt
        return f"{name} done"


@pytest.fixture
def submitit_handler():
    """submitit's USR2 handler, as it is when a job's callable starts: records the requeue and exits."""
    requeues = []

    def requeue(signum, frame):
        requeues.append(signum)
        raise SystemExit(-1)  # as submitit's: `scontrol requeue`, then exit without a result

    before = {s: signal.getsignal(s) for s in (signal.SIGUSR2, signal.SIGTERM)}
    signal.signal(signal.SIGUSR2, requeue)
    interrupt.clear()
    yield requeues
    for s, handler in before.items():
        signal.signal(s, handler)
    interrupt.clear()


def test_a_job_whose_runs_all_finish_is_not_requeued(submitit_handler):
    runs = Runs(signal_at=1)  # the signal comes during the last run, which ends by its budget
    assert Chunk(runs)([("a",), ("b",)]) == ["a done", "b done"]
    assert submitit_handler == []
    os.kill(os.getpid(), signal.SIGUSR2)  # after the runs: the job is writing its result; no requeue
    time.sleep(0.05)
    assert submitit_handler == []


def test_a_warned_job_requeues_after_its_run_stops_and_starts_no_other(submitit_handler):
    runs = Runs(signal_at=0, stopped=True)
    with pytest.raises(SystemExit):
        Chunk(runs)([("a",), ("b",)])
    assert runs.ran == ["a"]  # stopped at a step boundary (checkpoint written), then requeued
    assert submitit_handler == [signal.SIGUSR2]


def test_a_warned_job_whose_run_finished_requeues_for_the_runs_left(submitit_handler):
    runs = Runs(signal_at=0)  # the first run ends by its budget after the signal; the second is left
    with pytest.raises(SystemExit):
        Chunk(runs)([("a",), ("b",)])
    assert runs.ran == ["a"] and submitit_handler == [signal.SIGUSR2]


def test_a_terminated_job_ends_without_a_result_and_without_asking_for_a_requeue(submitit_handler):
    def stopped(name):  # SIGTERM (scancel, or Slurm requeueing the job itself): the run stops
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Chunk(stopped)([("a",)])
    assert submitit_handler == []


def test_the_requeued_job_runs_the_same_runs(submitit_handler):
    chunk = Chunk(Runs())
    again = chunk.checkpoint([("a",), ("b",)])
    assert again.function is chunk and again.args == ([("a",), ("b",)],)


def test_the_sweep_says_when_a_job_it_saw_running_waits_again():
    seen = iter([{"7": "PENDING"}, {"7": "RUNNING"}, {"7": "PENDING"}, {"7": "RUNNING"}, {"7": "RUNNING"}])
    polls, requeued = [], []

    def finished(i):
        polls.append(i)
        return len(polls) >= 5

    states = wait_for(["7"], finished, poll=0, ask=lambda: next(seen), requeued=requeued.append)
    assert states == ["COMPLETED"] and requeued == [0]  # the first PENDING is not a requeue


def test_the_sweep_says_when_a_job_runs_again_from_a_later_start_between_two_polls():
    starts = ["RUNNING 13:08:40", "COMPLETING 13:08:52", "RUNNING 13:08:58", "RUNNING 13:08:58", "COMPLETED"]
    seen = iter([{"7": state} for state in starts])
    polls, requeued = [], []

    def finished(i):
        polls.append(i)
        return len(polls) >= 5

    wait_for(["7"], finished, poll=0, ask=lambda: next(seen), requeued=requeued.append)
    assert requeued == [0]  # its wait fell between two polls (no PENDING seen): said once, at the later start


# --- on the one-node cluster -----------------------------------------------------------------------


def wait_until(condition, seconds: float = 300) -> None:
    deadline = time.time() + seconds
    while not condition():
        assert time.time() < deadline, "timed out"
        time.sleep(0.2)


def job_state(job: str) -> str:
    out = subprocess.run(["squeue", "-h", "-j", job, "-o", "%T"], capture_output=True, text=True)
    return out.stdout.strip()


def start_now(job: str) -> None:
    """Slurm holds a requeued job for about 2 minutes (BeginTime); let it start at once, to keep the
    test short (a real sweep just waits)."""
    wait_until(lambda: job_state(job) == "PENDING", 120)
    subprocess.run(["scontrol", "update", f"JobId={job}", "StartTime=now"], capture_output=True, check=False)


@pytest.mark.slow
@pytest.mark.xdist_group("slurm")
def test_jobs_stopped_mid_run_requeue_and_end_with_the_unbroken_records(cluster, tmp_path):
    """Run 0's job is pre-empted with submitit's signal (`scancel --signal=USR2`), run 1's is requeued by
    Slurm itself (`scontrol requeue`); both continue from their checkpoints."""
    sweep, local = tmp_path / "slurm", tmp_path / "joblib"
    proc = subprocess.Popen(
        [sys.executable, "-m", "experiments.run", *RUNS, *SLURM, f"hydra.sweep.dir={sweep}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    runs = [next(sweep.glob(f"*/seed={s}"), None) for s in (0, 1)]

    def searching() -> bool:  # both runs have started (config written) and searched a few seconds
        runs[:] = [next(sweep.glob(f"*/seed={s}"), None) for s in (0, 1)]
        return all(r is not None and (r / "config.yaml").is_file() for r in runs)

    wait_until(searching)
    time.sleep(8)
    array = next(p.name for p in (sweep / ".submitit").iterdir() if re.fullmatch(r"\d+_\d+", p.name))
    array = array.split("_")[0]
    jobs = [f"{array}_0", f"{array}_1"]  # seed=0, seed=1 (the sweep's order)
    warned = subprocess.run(["scancel", "--signal=USR2", jobs[0]], capture_output=True, text=True)
    assert warned.returncode == 0, warned.stderr
    requeued = subprocess.run(["scontrol", "requeue", jobs[1]], capture_output=True, text=True)
    assert requeued.returncode == 0, requeued.stderr
    for job in jobs:
        start_now(job)
    out, err = proc.communicate(timeout=600)

    assert proc.returncode == 0, err[-3000:]
    assert "missing" not in err
    for job in jobs:
        assert f"requeued: Slurm job {job} " in out
    logs = [(sweep / ".submitit" / job / f"{job}_0_log.out").read_text() for job in jobs]
    assert f"Requeued job {jobs[0]}" in logs[0]  # submitit's requeue, after the run stopped
    for log, run in zip(logs, runs):
        stopped = re.search(r"after ([\d,]+) evaluations, [\d.]+ s \(interrupted\)", log)
        resumed = re.search(r"resumed from checkpoint: ([\d,]+) evaluations", log)
        assert stopped and resumed, log
        assert stopped.group(1) == resumed.group(1)  # continued where it stopped, not from an older save
        assert 0 < int(resumed.group(1).replace(",", "")) < BUDGET
        assert not (run / "checkpoint.pkl").exists()  # the run is complete: nothing left to continue

    unbroken = app(*RUNS, "hydra/launcher=local", f"hydra.sweep.dir={local}")
    assert unbroken.returncode == 0, unbroken.stderr
    got = pd.read_csv(sweep / "runs.csv").set_index("seed").sort_index()
    expected = pd.read_csv(local / "runs.csv").set_index("seed").sort_index()
    pd.testing.assert_frame_equal(got[SAME], expected[SAME])
    assert (got["evaluations"] == BUDGET).all()
    for run in runs:
        twin = local / run.relative_to(sweep)
        columns = ["evaluations", "best"]
        pd.testing.assert_frame_equal(
            pd.read_parquet(run / "trace.parquet")[columns], pd.read_parquet(twin / "trace.parquet")[columns]
        )
    assert len(finished(sweep)) == 2
