"""What a researcher cannot see unless the app shows it (issue 31): failed sweeps exit non-zero with a
summary, resume re-runs failed and interrupted runs and refuses changed configs, a seconds budget runs
that long, Ctrl-C keeps the best so far, read-only folders and out-of-range numbers are one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from experiments.report import PICTURES_OFF
from experiments.run import sweep_name
from tests import ROOT

PIECES = "# order: left top right bottom\n# size: 2 x 2\n0 0 1 1\n1 0 0 1\n0 1 1 0\n1 1 0 0\n"
NO_PICTURES = PICTURES_OFF  # tables only: pictures are tested elsewhere


def app(*args: str, cwd: Path = ROOT, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "experiments.run", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        **kwargs,
    )


@pytest.mark.slow
def test_a_failed_run_fails_the_sweep_and_runs_again_once_its_cause_is_fixed(tmp_path):
    pieces = tmp_path / "board.txt"
    sweep = [
        "-m",
        "hydra/launcher=basic",
        "puzzle=eternity2",
        "puzzle.starter=false",
        "optimizer=sa",
        f"puzzle.pieces_file={ROOT / 'puzzles/data/eternity2/clue1.txt'},{pieces}",
        "budget.evaluations=200",
        NO_PICTURES,
        f"hydra.sweep.dir={tmp_path / 'sweep'}",
    ]
    first = app(*sweep)
    assert first.returncode == 1, first.stderr
    assert "1 of 2 runs failed or were refused:" in first.stderr
    assert (
        f"1 x InputError: piece file '{pieces}' not found" in first.stderr and "Traceback" not in first.stderr
    )
    assert (tmp_path / "sweep" / "report.md").is_file()
    kept = next(p for p in (tmp_path / "sweep").rglob("run.parquet") if "clue1" in str(p))
    stamp = kept.stat().st_mtime_ns

    pieces.write_text(PIECES)  # the cause fixed: the same command runs only the failed run again
    second = app(*sweep)
    assert second.returncode == 0, second.stderr
    assert second.stdout.count("skip (already complete)") == 1
    assert second.stdout.count("failed before, run again") == 1
    assert kept.stat().st_mtime_ns == stamp
    runs = pd.read_csv(tmp_path / "sweep" / "runs.csv")
    assert list(runs["status"]) == ["ok", "ok"]


@pytest.mark.slow
def test_a_changed_config_is_refused_naming_its_keys_and_runs_again_on_request(tmp_path):
    sweep = ["-m", "hydra/launcher=basic", "puzzle=queens", "optimizer=sa", "seed=0,1", NO_PICTURES]
    sweep += ["budget.evaluations=300", "budget.stop_at_optimum=false", f"hydra.sweep.dir={tmp_path}"]
    assert app(*sweep).returncode == 0
    saved = next(tmp_path.rglob("seed=0")) / "config.yaml"
    saved.write_text(saved.read_text().replace("t0: 5.0", "t0: 7.0"))  # as a YAML edited since

    refused = app(*sweep)
    assert refused.returncode == 1
    assert "optimizer.t0 (7.0 -> 5.0); run it again with resume.rerun_changed=true" in refused.stderr
    assert refused.stdout.count("skip (already complete)") == 1

    again = app(*sweep, "resume.rerun_changed=true")
    assert again.returncode == 0, again.stderr
    assert "config changed, run again" in again.stdout
    assert "t0: 5.0" in saved.read_text()


@pytest.mark.slow
def test_a_missing_trace_makes_a_record_incomplete(tmp_path):
    sweep = ["-m", "hydra/launcher=basic", "puzzle=queens", "optimizer=sa", "seed=0,1", NO_PICTURES]
    sweep += ["budget.evaluations=300", "budget.stop_at_optimum=false", f"hydra.sweep.dir={tmp_path}"]
    assert app(*sweep).returncode == 0
    (next(tmp_path.rglob("seed=1")) / "trace.parquet").unlink()
    again = app(*sweep)
    assert again.returncode == 0, again.stderr
    assert "trace.parquet is missing" in again.stderr
    assert again.stdout.count("skip (already complete)") == 1
    assert (next(tmp_path.rglob("seed=1")) / "trace.parquet").is_file()


@pytest.mark.slow
def test_running_the_same_command_again_resumes_its_sweep(tmp_path):
    """No hydra.sweep.dir given: the folder is named by the command, in whichever process a job runs."""
    sweep = ["-m", "puzzle=queens", "optimizer=sa,two_opt", "seed=0", "budget.evaluations=200", "study=demo"]
    sweep += [NO_PICTURES]  # a Hydra setting: not in the folder's name
    first = app(*sweep, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    folder = tmp_path / "results/sweeps/demo/optimizer=sa,two_opt,puzzle=queens,evaluations=200,seed=0"
    assert len(list(folder.rglob("run.parquet"))) == 2 and (folder / "report.md").is_file()
    again = app(*sweep, cwd=tmp_path)
    assert again.returncode == 0 and again.stdout.count("skip (already complete)") == 2


def test_the_same_command_finds_the_same_sweep_folder():
    assert sweep_name([]) == "default"
    assert (
        sweep_name(["+experiment=colour_sweep", "smoke=on", "hydra.launcher.n_jobs=2", "study=x"])
        == "default"
    )
    assert sweep_name(["seed=0,1", "optimizer=ga,sa"]) == sweep_name(["optimizer=ga,sa", "seed=0,1"])
    assert sweep_name(["seed=0,1"]) != sweep_name(["seed=0,1,2"])
    long = [f"puzzle.pieces_file=/a/very/long/path/number/{k}.txt" for k in range(5)]
    assert len(sweep_name(long)) <= 80 and "/" not in sweep_name(long)


@pytest.mark.slow
def test_a_seconds_budget_alone_is_the_budget_and_says_so(tmp_path):
    done = app("puzzle=queens", "optimizer=sa", "budget.seconds=2", "budget.stop_at_optimum=false",
               f"hydra.run.dir={tmp_path}")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "budget: 2 s"
    row = pd.read_parquet(tmp_path / "run.parquet").iloc[0]
    assert row["stop_reason"] == "seconds" and row["seconds"] >= 2  # not the default's 20,000 evaluations
    assert "evaluations: null" in (tmp_path / "config.yaml").read_text()  # no cap beside the seconds
    default = app(
        "puzzle=queens", "optimizer=sa", "budget.stop_at_optimum=false", f"hydra.run.dir={tmp_path}/d"
    )
    assert default.stdout.splitlines()[0].startswith("budget: 20,000 evaluations (the default")
    assert "evaluations: 20000" in (tmp_path / "d" / "config.yaml").read_text()  # re-runs as it ran


@pytest.mark.slow
@pytest.mark.parametrize(
    "sig, solver",
    [
        (signal.SIGINT, ["optimizer=sa_compiled"]),  # a compiled search in chunks: the objective's check
        (signal.SIGTERM, ["optimizer=sa_compiled"]),
        (signal.SIGINT, ["optimizer=beam", "optimizer.width=200000"]),  # one compiled call: its stop flag
    ],
)
def test_an_interrupt_keeps_the_best_so_far(tmp_path, sig, solver):
    run = subprocess.Popen(
        [sys.executable, "-m", "experiments.run", "puzzle=eternity", *solver, "budget.seconds=120",
         "progress=false", f"hydra.run.dir={tmp_path}"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert run.stdout is not None
    assert run.stdout.readline().startswith("budget: 120 s")  # composed; the search starts
    time.sleep(6)
    run.send_signal(sig)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert "Traceback" not in err and f"interrupted: the best so far is recorded in {tmp_path}" in err
    row = pd.read_parquet(tmp_path / "run.parquet").iloc[0]
    assert row["stop_reason"] == "interrupted" and row["seconds"] < 60 and row["best"] < 480
    assert (tmp_path / "best.png").is_file() and (tmp_path / "best_board.txt").is_file()


@pytest.mark.slow
@pytest.mark.parametrize(
    "override, says",
    [
        ("seed=18446744073709551616", "seed must be at most 2^63 - 1 (what a record stores)"),
        ("budget.evaluations=9223372036854775808", "budget.evaluations must be at most 2^63 - 1"),
        ("budget.seconds=inf", "budget.seconds must be finite, got inf"),
    ],
)
def test_numbers_a_record_cannot_store_are_refused_before_any_work(tmp_path, override, says):
    done = app("puzzle=queens", override, f"hydra.run.dir={tmp_path}")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [f"error: {done.stderr.strip()[7:]}"]
    assert says in done.stderr
    assert not (tmp_path / "run.parquet").exists()


@pytest.mark.slow
def test_a_read_only_run_folder_is_one_line(tmp_path, read_only):
    done = app("puzzle=queens", f"hydra.run.dir={read_only(tmp_path / 'run')}")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f"error: cannot write to {tmp_path / 'run'}")


@pytest.mark.slow
def test_an_unwritable_run_folder_fails_that_run_and_the_sweep_goes_on(tmp_path, read_only):
    blocked = read_only(tmp_path / "budget.evaluations=300,optimizer=sa,puzzle=queens" / "seed=1")
    sweep = ["-m", "hydra/launcher=basic", "puzzle=queens", "optimizer=sa", "seed=0,1,2"]
    done = app(*sweep, "budget.evaluations=300", NO_PICTURES, f"hydra.sweep.dir={tmp_path}")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"1 x cannot write to {blocked}" in done.stderr
    assert len(pd.read_csv(tmp_path / "runs.csv")) == 2 and (tmp_path / "report.md").is_file()


@pytest.mark.slow
def test_records_take_the_users_umask(tmp_path):
    done = app("puzzle=queens", "budget.evaluations=100", f"hydra.run.dir={tmp_path}")
    assert done.returncode == 0, done.stderr
    for name in ("run.parquet", "run.csv", "trace.parquet", "config.yaml", "best.png"):
        mode = (tmp_path / name).stat().st_mode & 0o777
        assert mode == 0o666 & ~current_umask(), (name, oct(mode))


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def children(pid: int) -> set[int]:
    done = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return {int(p) for p in done.stdout.split()}


def alive(pids: set[int]) -> set[int]:
    return {p for p in pids if Path(f"/proc/{p}").exists() and "Z" not in status(p)}


def status(pid: int) -> str:
    try:
        return next(
            line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("State")
        )
    except (OSError, StopIteration):
        return "Z"


@pytest.mark.slow
def test_no_worker_outlives_a_killed_sweep(tmp_path):
    sweep = subprocess.Popen(
        [sys.executable, "-m", "experiments.run", "-m", "puzzle=queens", "optimizer=sa", "seed=0,1",
         "budget.seconds=120", "budget.stop_at_optimum=false", "hydra.launcher.n_jobs=2",
         f"hydra.sweep.dir={tmp_path}"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    deadline = time.time() + 120
    while len(list(tmp_path.rglob("config.yaml"))) < 2 and time.time() < deadline:
        time.sleep(0.2)
    time.sleep(6)  # both workers are in their searches
    workers = children(sweep.pid)
    assert workers, "the sweep started no workers"
    sweep.kill()  # kill -9: nothing of the sweep's process runs again
    sweep.wait()
    deadline = time.time() + 10
    while alive(workers) and time.time() < deadline:
        time.sleep(0.2)
    left = alive(workers)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"workers alive 10 s after the sweep was killed: {left}"
    stopped = [pd.read_parquet(p).iloc[0]["stop_reason"] for p in tmp_path.rglob("run.parquet")]
    assert stopped == ["interrupted", "interrupted"]  # each kept its best so far


def test_a_report_that_fails_fails_the_sweep_in_one_line(tmp_path, monkeypatch, capsys):
    """Hydra turns a callback's exception into a warning: the sweep's summary catches it itself, so a
    report bug shows in the exit code and one line, not as a clean sweep without its report."""
    from experiments import callbacks, gather, report

    runs = pd.DataFrame({"run_dir": [str(tmp_path / "a")], "status": ["ok"], "error": [""]})
    monkeypatch.setattr(gather, "gather_runs", lambda dirs: runs)

    def broken(dirs, **settings):
        raise KeyError("n")

    monkeypatch.setattr(report, "report", broken)
    assert callbacks.summarise_sweep(tmp_path) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "error: the sweep's report failed (KeyError: 'n'); its runs are kept, and "
        f"python -m experiments.report {tmp_path} writes it again"
    ]
