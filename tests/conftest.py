"""Shared fixtures: configs composed in-process, as the app composes them."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

from experiments.run import setup
from experiments.schema import CONFIG_DIR
from puzzles.calendar import Calendar
from puzzles.edge_matching.solvers.perfect_search import generated
from tests import ROOT


def heard() -> None:
    """Ctrl-C heard again where a run in this process left it ignored (core.interrupt.ends_quietly does,
    so that its exit prints no second traceback). Why: an ignored signal is inherited, so every later
    subprocess of this pytest worker would ignore the Ctrl-C a signal test sends it and run on."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def ctrl_c_heard():
    """Before each test (a module's or the session's fixture may have ended a run) and after it."""
    heard()
    yield
    heard()


@pytest.fixture(autouse=True, scope="session")
def walk_cache(tmp_path_factory):
    """Generated walks (and the app runs' the tests start, which inherit it) go to one folder per test
    session, not the user's cache."""
    folder = tmp_path_factory.getbasetemp() / "walks"
    os.environ[generated.CACHE_ENV] = str(folder)
    return folder


@pytest.fixture(scope="session")
def compose_config():
    """compose(overrides) -> the config the app would run, schemas and resolvers registered."""
    setup()

    def composed(*overrides: str):
        GlobalHydra.instance().clear()
        with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
            return compose("config", overrides=list(overrides))

    return composed


@pytest.fixture(scope="session")
def classic():
    """The classic calendar board (seed 000), built once for every test that needs it."""
    return Calendar("classic")


@pytest.fixture(scope="session")
def weekday():
    """The weekday calendar board (seed 004), built once for every test that needs it."""
    return Calendar("weekday")


OUTSIDE = [
    "hydra.searchpath=[file://conf]",
    "puzzle=hidden_order",
    "optimizer=walk,lahc",
    "puzzle.instance_seed=1,2",
    "seed=0,1",
    "budget.evaluations=400",
    "budget.stop_at_optimum=false",
    "hydra/launcher=basic",
]


def outside_app(folder, *args: str) -> subprocess.CompletedProcess:
    """The app run from a user's own folder (its modules importable from there), this checkout's code."""
    env = {**os.environ, "PYTHONPATH": f"{folder}{os.pathsep}{ROOT}"}
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=folder, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="session")
def outside_sweep(tmp_path_factory):
    """A sweep of a user's own puzzle and optimiser (examples/my_lab copied outside the repository)
    beside a built-in optimiser: its directory, once for every test that reads it."""
    lab = tmp_path_factory.mktemp("outside") / "my_lab"
    shutil.copytree(ROOT / "examples" / "my_lab", lab)
    proc = outside_app(lab, "experiments.run", "-m", *OUTSIDE, "hydra.sweep.dir=sweep")
    assert proc.returncode == 0, proc.stderr
    return lab / "sweep"


@pytest.fixture
def read_only():
    """make(path, fill=None): `path` holding what `fill(path)` writes, then read-only (as root, whom modes
    do not stop: a tmpfs mounted there and remounted read-only); undone after the test."""
    mounted: list[Path] = []
    locked: list[Path] = []

    def make(path: Path, fill=None) -> Path:
        path.mkdir(parents=True, exist_ok=True)
        if os.geteuid() != 0:
            if fill is not None:
                fill(path)
            path.chmod(stat.S_IRUSR | stat.S_IXUSR)
            locked.append(path)
            return path
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(path)], capture_output=True
        )
        if done.returncode != 0:
            pytest.skip(f"cannot make a read-only folder as root here: {done.stderr.decode().strip()}")
        mounted.append(path)
        if fill is not None:
            fill(path)
        subprocess.run(["mount", "-o", "remount,ro", str(path)], check=True)
        return path

    yield make
    for path in mounted:
        subprocess.run(["umount", str(path)], check=True)
    for path in locked:
        path.chmod(stat.S_IRWXU)


def slurm_script(command: str) -> subprocess.CompletedProcess:
    """`bash .ci/slurm <command>`: the one-node test cluster's up, down or status."""
    return subprocess.run(
        ["bash", str(ROOT / ".ci" / "slurm"), command], capture_output=True, text=True, timeout=900
    )


@pytest.fixture(scope="session")
def slurm_cluster():
    """A one-node Slurm, up for the whole session (started here if it was not running, stopped at the
    end only then), or a skip saying why not; under PUZZLELAB_SLURM=required (.ci/run) a failure.
    The cluster tests share one xdist group (`cluster`), so one worker starts and stops it."""
    up = slurm_script("up")
    if up.returncode != 0:
        message = f"no Slurm cluster: {up.stderr.strip()}"
        if os.environ.get("PUZZLELAB_SLURM") == "required":
            pytest.fail(message)
        pytest.skip(message)
    yield
    if "started" in up.stdout:
        down = slurm_script("down")
        assert down.returncode == 0, down.stderr


@pytest.fixture
def cluster(request):
    """The cluster, for a test of the xdist group that keeps its users on one worker. Under --dist
    loadgroup a grouped test's id ends in `@<group>`; pytest 9.2 drops the id xdist 3.8 sets, so the
    group splits and two workers would start and stop one cluster: a failure saying so, not a race."""
    if getattr(request.config.option, "loadgroup", False) and "@" not in request.node.nodeid:
        pytest.fail(
            f"--dist loadgroup is not grouping the cluster tests under pytest {pytest.__version__}: "
            "install the test extra's pytest (pip install -e '.[test]')"
        )
    request.getfixturevalue("slurm_cluster")
