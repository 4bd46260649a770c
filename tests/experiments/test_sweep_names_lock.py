"""Sweep folders (issue 44): one sweep per folder (a lock with its pid and host, refused in one line
while its process lives, taken over once it is gone, released however the sweep ends); short readable
names the same command always finds again; results/ pinned by PUZZLELAB_RESULTS; --help lists only
the groups a user chooses from."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

from experiments.run import sweep_name
from experiments.schema import CONFIG_DIR, HIDDEN_GROUPS, HYDRA_GROUPS, project_config_dirs, setup
from experiments.sweep_lock import LOCK
from tests import ROOT
from tests.experiments.test_sweep_outcome import app

TINY = ["-m", "hydra/launcher=basic", "puzzle=queens", "optimizer=sa", "seed=0", "budget.evaluations=50"]


def dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(done.stdout)


@pytest.mark.slow
def test_a_sweep_folder_held_by_a_live_sweep_is_refused_in_one_line(tmp_path):
    (tmp_path / LOCK).write_text(f"{os.getpid()} {socket.gethostname()}\n")  # this test: alive
    done = app(*TINY, f"hydra.sweep.dir={tmp_path}")
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [
        f"error: the sweep folder {tmp_path} is in use by another sweep (pid {os.getpid()}); wait for it, "
        f"sweep into another folder with hydra.sweep.dir=..., or delete {tmp_path / LOCK} if that process "
        "is no sweep of this folder"
    ]
    assert not list(tmp_path.rglob("run.parquet"))
    assert (tmp_path / LOCK).read_text() == f"{os.getpid()} {socket.gethostname()}\n"  # still theirs


@pytest.mark.slow
def test_a_stale_lock_is_taken_over_under_the_pinned_results_folder_and_released(tmp_path):
    """PUZZLELAB_RESULTS, not the current folder, holds results/; the sweep's folder is its readable
    name; a lock left by a dead process is taken over with a note, and gone when the sweep ends."""
    pinned, elsewhere = tmp_path / "pinned", tmp_path / "shell"
    elsewhere.mkdir()
    sweep = pinned / "sweeps/demo/optimizer=sa,puzzle=queens,evaluations=50,seed=0"
    sweep.mkdir(parents=True)
    (sweep / LOCK).write_text(f"{dead_pid()} {socket.gethostname()}\n")
    done = app(*TINY, "study=demo", cwd=elsewhere, env={**os.environ, "PUZZLELAB_RESULTS": str(pinned)})
    assert done.returncode == 0, done.stderr
    assert "note: took over the stale lock of pid" in done.stdout
    assert len(list(sweep.rglob("run.parquet"))) == 1 and (sweep / "report.md").is_file()
    assert not (sweep / LOCK).exists() and not list(elsewhere.iterdir())


@pytest.mark.slow
def test_an_interrupted_sweep_releases_its_lock(tmp_path):
    slow = [*TINY[:4], "seed=0,1", "budget.seconds=60", "budget.stop_at_optimum=false"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "experiments.run", *slow, f"hydra.sweep.dir={tmp_path}"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 120
    while not list(tmp_path.rglob("config.yaml")) and time.time() < deadline:  # a run has started
        time.sleep(0.05)
    assert (tmp_path / LOCK).read_text().split() == [str(proc.pid), socket.gethostname()]
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert not (tmp_path / LOCK).exists()


def test_sweep_names_are_short_readable_and_stable():
    assert sweep_name([]) == "default"
    assert (
        sweep_name(["+experiment=colour_sweep", "smoke=on", "hydra/launcher=basic", "study=x"]) == "default"
    )
    # groups first, then settings without their group's prefix, the seed last
    given = ["seed=range(3)", "budget.evaluations=200", "optimizer=ga,sa", "puzzle.width=6,7"]
    assert sweep_name(given) == "optimizer=ga,sa,evaluations=200,width=6,7,seed=range(3)"
    assert sweep_name(given[::-1]) == sweep_name(given)
    # a prefix stays where dropping it would mislead: two keys alike, or a top-level name
    assert sweep_name(["budget.seconds=2", "task.seconds=3"]) == "budget.seconds=2,task.seconds=3"
    assert sweep_name(["puzzle.seed=1,2"]) == "puzzle.seed=1,2"
    assert sweep_name(["seed=0,1"]) != sweep_name(["seed=0,1,2"])


def test_a_long_sweep_name_keeps_its_first_settings_and_a_hash_of_them_all():
    given = [
        "optimizer=ga,sa,two_opt,lahc",
        "puzzle=pentomino,pentomino_free",
        "optimizer.pop_size=10,20,50",
        "budget.evaluations=1000,10000",
        "puzzle.pieces_file=/a/long/path/to/pieces.txt",
        "seed=range(30)",
    ]
    name = sweep_name(given)
    assert re.fullmatch(
        r"optimizer=ga,sa,two_opt,lahc,puzzle=pentomino,pentomino_free,\+4_more_[0-9a-f]{8}", name
    )
    assert name == sweep_name(given[::-1])  # the same command, the same folder
    assert name != sweep_name([*given[:-1], "seed=range(31)"])  # a change past the cut still tells
    assert len(sweep_name(["seed=" + ",".join(map(str, range(100)))])) <= 80
    assert "/" not in sweep_name(["puzzle.pieces_file=/a/b.txt"])


@pytest.mark.slow
def test_help_lists_the_groups_a_user_chooses_from():
    done = app("--help")
    assert done.returncode == 0, done.stderr
    groups = done.stdout.split("== Configuration groups ==")[1].split("== Config ==")[0]
    listed = {line.split(":")[0] for line in groups.splitlines() if ": " in line}
    folders = {
        str(d.relative_to(root)) for root in project_config_dirs() for d in root.rglob("*") if d.is_dir()
    }
    hidden = {f for f in folders if f.split("/")[0] in HIDDEN_GROUPS or f.startswith("hydra")}
    assert listed == folders - hidden | set(HYDRA_GROUPS)
    assert {"puzzle", "optimizer", "task", "budget", "experiment", "smoke", "hydra/launcher"} <= listed
    assert "optimizer: backtrack, beam," in groups and "schema" not in groups and "smoke_study" not in groups


def test_results_go_where_puzzlelab_results_says(monkeypatch):
    setup()
    GlobalHydra.instance().clear()
    with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
        monkeypatch.delenv("PUZZLELAB_RESULTS", raising=False)
        cfg = compose("config", return_hydra_config=True)
        assert cfg.hydra.run.dir.startswith("results/runs/")
        monkeypatch.setenv("PUZZLELAB_RESULTS", "/data/lab")
        assert cfg.hydra.run.dir.startswith("/data/lab/runs/")
        assert cfg.hydra.sweep.dir == "/data/lab/sweeps/adhoc/default"
        cfg = compose("config", overrides=["hydra/callbacks=mlflow"], return_hydra_config=True)
        assert cfg.hydra.callbacks.mlflow.tracking_uri == "sqlite:////data/lab/mlflow/mlflow.db"
    GlobalHydra.instance().clear()
