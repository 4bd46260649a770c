"""The commands of README.md and of the documentation's pages (docs/**/*.md) run (issue 22, item 3;
issue 32, item 2).

Every command README or a docs page shows (in a ```bash block, on an indented line, or as inline code)
is run here, shortened where it names a long study or benchmark, or checked against the one-line error
the page prints under it, or excluded with its reason. An edit that breaks a command fails here, and so
does a command this file does not know: add it to RUN (with what shortens it) or EXCLUDED (with why).
A command shown on several pages runs once, as the first page shows it (README first, then docs/ in
path order).

`python -m experiments.*` commands run in this process, as `python -m` runs them (a Python start
and the imports cost more than most shortened runs); benchmarks and commands run from another folder
(`cd ...`) run as subprocesses, in the background while the others run (both cores busy; under
pytest-xdist the workers share the tests instead). Every run writes under a temporary directory.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import logging
import os
import re
import runpy
import shlex
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd
import pytest
from hydra.core.global_hydra import GlobalHydra
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import ChoiceSweep, IntervalSweep, RangeSweep
from hydra.errors import HydraException

from experiments.overrides import FLAGS_WITH_VALUE
from experiments.overrides import options as choices
from experiments.schema import project_config_dirs
from tests import ROOT

README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]  # every page whose commands run here

HELD_OUT = (  # the tuned SA's check on held-out boards, which the queries below read
    "python -m experiments.run -m puzzle=eternity2_like optimizer=sa_compiled,sa_compiled_eternity2_like "
    "'puzzle.instance_seed=range(100,120)' seed=7 budget.evaluations=2000000 study=tuned_vs_default"
)
SMOKE = [
    "smoke=on"
]  # every +experiment: its quick version (smoke_study/<experiment>_on.yaml, in configs/ or its study's conf/)

# README command (as shown, comment dropped, whitespace collapsed) -> what shortens it. Appended to
# the command; a Hydra key the command already sets is replaced, a benchmark flag given again wins.
RUN: dict[str, list[str]] = {
    # One run
    "python -m experiments.run": [],
    "python -m experiments.run optimizer=sa seed=3": [],
    "python -m experiments.run puzzle=pentomino_free budget.evaluations=100000": ["budget.evaluations=2000"],
    "python -m experiments.run puzzle.width=10 optimizer=two_opt optimizer.strategy=best": [
        "budget.evaluations=2000"
    ],
    "python -m experiments.run puzzle=eternity optimizer=sa budget.seconds=30": ["budget.evaluations=2000"],
    "python -m experiments.run optimizer=sa --cfg job": [],
    "python -m experiments.pairing": [],
    "python -m experiments.schema": [],
    # Experiments: every study at its smoke size
    "python -m experiments.run +experiment=pentomino_ga_vs_2opt": SMOKE,
    "python -m experiments.run +experiment=packing_suite": SMOKE,
    "python -m experiments.run +experiment=colour_sweep": SMOKE,
    "python -m experiments.run +experiment=calendar date=2026-11-21": SMOKE,
    "python -m experiments.run +experiment=calendar": SMOKE,  # today's date
    "python -m experiments.run +experiment=calendar_weekday": SMOKE,
    "python -m experiments.run +experiment=calendar_weekday_all_dates task.limit=1": SMOKE,
    "python -m experiments.run +experiment=calendar_all_dates": SMOKE,
    "python -m experiments.run +experiment=calendar_weekday date=2026-11-21": SMOKE,
    "python -m experiments.run +experiment=pentomino_rectangles": SMOKE,
    "python -m experiments.run +experiment=galakub": SMOKE,
    "python -m experiments.run +experiment=tune_sa_eternity2_like": SMOKE,
    "python -m experiments.run +experiment=tune_sa_eternity2_like task.race=elitist": SMOKE,
    "python -m experiments.run +experiment=hardness_peak": SMOKE,
    "python -m experiments.run puzzle=queens task=exact": [],
    "python -m experiments.run task=exact puzzle=eternity2 puzzle.pieces_file=puzzles/data/eternity2/clue1.txt "
    "puzzle.starter=false task.limit=1000": [],
    "python -m experiments.run puzzle=eternity2 puzzle.pieces_file=puzzles/data/eternity2/clue2.txt "
    "puzzle.starter=false optimizer=backtrack": [],
    "python -m experiments.run puzzle=packing/free5 optimizer=sa_repack": ["budget.evaluations=2000"],
    # Sweeps, tuning, held-out check, your own folder, queries (over the runs here: the held-out check's
    # at least, run first on a pytest-xdist worker that has not run it)
    "python -m experiments.run -m optimizer=ga,two_opt,sa puzzle.width=6,8 seed='range(10)'": [
        "puzzle.width=6",
        "seed=0",
        "budget.evaluations=500",
    ],
    "python -m experiments.run -m optimizer=ga,sa,two_opt seed='range(5)' budget.evaluations=20000": [
        "seed=0",
        "budget.evaluations=500",
    ],
    "python -m experiments.run -m task=tune puzzle=eternity2_like puzzle.n=6 optimizer=sa_compiled "
    "budget.evaluations=200000 'task.instances=[1,2]' hydra/sweeper=optuna hydra.sweeper.n_trials=6 "
    "hydra.sweeper.sampler.seed=0 'optimizer.t_start=tag(log, interval(0.3, 3.0))' "
    "'optimizer.t_end=tag(log, interval(0.01, 0.3))' 'optimizer.period=tag(log, interval(10000, 1000000))'": [
        "hydra.sweeper.n_trials=2",
        "budget.evaluations=20000",
        "task.instances=[1]",
    ],
    HELD_OUT: ["puzzle.instance_seed=100", "budget.evaluations=20000"],
    "python -m experiments.run -m 'hydra.searchpath=[file://conf]' puzzle=hidden_order optimizer=walk,lahc "
    "'puzzle.instance_seed=1,2' seed='range(5)' budget.evaluations=2000": [
        "puzzle.instance_seed=1",
        "seed=0",
        "budget.evaluations=200",
    ],
    'python -m experiments.query "SELECT puzzle, optimizer, count(*) AS runs, min(best) AS best, '
    "median(best) AS median, arg_min(run_dir, best) AS best_run FROM runs WHERE status = 'ok' GROUP BY ALL "
    'ORDER BY puzzle, median"': [],
    'python -m experiments.query "SELECT r.optimizer, r.\\"optimizer.period\\" AS period, count(*) AS runs, '
    "median(t.best) AS best_by_500k, median(r.best) AS best_at_2M FROM runs r JOIN (SELECT run_dir, "
    "min(best) AS best FROM traces WHERE evaluations <= 500000 GROUP BY run_dir) t USING (run_dir) WHERE "
    "r.run_dir LIKE '%tuned_vs_default/%' GROUP BY ALL ORDER BY best_at_2M\"": [],
    # The puzzles: Eternity II and generated boards
    "python -m experiments.run puzzle=eternity2_like puzzle.n=8 optimizer=hybrid_vlns budget.seconds=60": [
        "budget.evaluations=20000"
    ],
    "python -m experiments.run puzzle=eternity2_like puzzle.n=6 puzzle.m=12 puzzle.frame_colours=3 "
    "puzzle.inner_colours=6 optimizer=sa_compiled": [],
    "python -m experiments.run puzzle=eternity2 optimizer=hybrid_vlns budget.seconds=60": [
        "budget.evaluations=20000"
    ],
    "python -m experiments.run puzzle=eternity2 optimizer=beam": [
        "optimizer.width=20",
        "optimizer.max_width=20",
    ],
    "python -m experiments.run puzzle=eternity2 optimizer=hybrid_vlns optimizer.chains=2 budget.seconds=600": [
        "budget.evaluations=20000"
    ],
    "python -m experiments.run puzzle=eternity2 optimizer=beam_refine budget.seconds=600": [
        "optimizer.width=50",
        "optimizer.max_width=500",
        "budget.seconds=null",
        "budget.evaluations=20000",
    ],
    "python -m experiments.run puzzle=eternity2 optimizer=plateau_lns budget.seconds=60": [
        "optimizer.width=50",
        "optimizer.max_width=500",
        "optimizer.chains=1",
        "budget.seconds=null",
        "budget.evaluations=50000",
    ],
    "python -m experiments.run puzzle=eternity2 optimizer=breaks budget.seconds=60": [
        "optimizer.max_nodes=2000000",
        "optimizer.restart_nodes=500000",
        "optimizer.finish_width=20",
        "budget.seconds=null",
        "budget.evaluations=1",
    ],
    "python -m experiments.run puzzle=eternity2 optimizer=portfolio budget.seconds=600": [
        "optimizer.breaks.max_nodes=400000",
        "optimizer.width=50",  # without a time limit the racing beam runs at its full width
        "optimizer.max_width=500",
        "optimizer.breaks.restart_nodes=100000",
        "optimizer.breaks.finish_width=20",
        "budget.seconds=null",
        "budget.evaluations=50000",
    ],
    # Resume a long run (the run itself, shortened; tests/experiments/test_checkpoint.py stops and resumes
    # such runs)
    "python -m experiments.run puzzle=eternity2_like puzzle.n=8 optimizer=sa budget.evaluations=2000000 "
    "hydra.run.dir=results/runs/long_sa": ["budget.evaluations=2000"],
    "python -m experiments.run puzzle=eternity2 optimizer=breaks budget.seconds=40 "
    "hydra.run.dir=results/runs/long_breaks": [
        *("optimizer.max_nodes=2000000", "optimizer.restart_nodes=500000", "optimizer.finish_width=20"),
        *("budget.seconds=null", "budget.evaluations=1"),
    ],
    # Extending
    "python -m experiments.run optimizer=lahc optimizer.history=200": [],
    "python -m experiments.run puzzle=queens puzzle.n=30 optimizer=lahc": [],
    # Benchmarks: each one's size flags
    "python -m benchmarks.bench_pentomino_decoder": ["--genomes", "20", "--passes", "1", "--repeats", "1"],
    "python -m benchmarks.bench_pentomino_time_to_optimum": [
        *("--seeds", "1", "--timed-seeds", "1", "--budget", "200", "--repeats", "1"),
    ],
    "python -m benchmarks.bench_pentomino_free": [
        *("--seeds", "1", "--timed-seeds", "1", "--budget", "200", "--jobs", "1", "--repeats", "1"),
    ],
    "python -m benchmarks.bench_edge_greedy": [
        *("--size", "5", "--colours", "4", "--sweep-sizes", "5", "--plain-sample", "2", "--jobs", "1"),
        *("--repeats", "1"),
    ],
    "python -m benchmarks.bench_edge_fitness": ["--genomes", "20", "--passes", "1", "--repeats", "1"],
    "python -m benchmarks.bench_exact_pentomino": ["--board", "3x20", "--repeats", "1"],
    "python -m benchmarks.bench_calendar_year": ["--dates", "3", "--cpsat-dates", "1", "--repeats", "1"],
    "python -m benchmarks.bench_galakub": ["--repeats", "1"],
    "python -m benchmarks.bench_interrupts": ["--repeats", "1", "--cells", "beam build"],
    "python -m benchmarks.bench_resume portfolio --seconds 600 --stops 180,360 --seeds 0,1,2": [
        *("--seconds", "8", "--stops", "3,6", "--puzzle", "eternity2_like", "--set", "puzzle.n=10"),
        *("--set", "optimizer.width=50", "--set", "optimizer.max_width=500", "--no-baseline"),
        *("--seeds", "0"),  # one seed of the three: the shortened command checks the path, not the spread
    ],
    "python -m benchmarks.bench_tuning": [
        "--smoke",
        "--races",
        "elitist",
        "--trials",
        "4",
    ],  # one raced study, two batches
    "python -m benchmarks.bench_hardness": ["--n", "5", "--smoke"],
    "python -m benchmarks.bench_launchers": ["--seeds", "1", "--evaluations", "100", "--repeats", "1"],
    "python -m benchmarks.bench_exact_edge speed": ["--nodes", "10000", "--repeats", "1"],
    "python -m benchmarks.bench_exact_edge tree": ["--nodes", "20000"],
    "python -m benchmarks.bench_exact_edge hardest": ["--instances", "1", "--seconds", "0.5"],
    "python -m benchmarks.bench_exact_edge hardest --seconds 600 --sides portfolio": [
        *("--instances", "1", "--seconds", "0.5"),
    ],
    "python -m benchmarks.bench_exact_edge clues": ["--seconds", "0.5"],
    "python -m benchmarks.bench_exact_edge none": ["--instances", "1"],
    "python -m experiments.run task=exact puzzle=eternity2_like puzzle.n=7": ["task.seconds=3"],
    "python -m benchmarks.bench_exact_edge census": ["--sizes", "4", "--repeats", "1", "--previous", "HEAD"],
    "python -m benchmarks.bench_exact_edge hedge": ["--instances", "1", "--nodes", "20000"],
    "python -m benchmarks.bench_eternity2 speed": ["--repeats", "1"],
    "python -m benchmarks.bench_eternity2 official": ["--seconds", "0.5", "--seeds", "1"],
    "python -m benchmarks.bench_eternity2 anytime": [
        *("--seconds", "2", "--seeds", "1", "--methods", "breaks"),
        *("--set", "restart_nodes=200000", "--set", "finish_width=20"),
    ],
    "python -m benchmarks.bench_eternity2 sweep": [
        *("--boards", "5,6", "--seconds", "1", "--seeds", "1", "--optimizers", "exact_first,breaks"),
    ],
    "python -m benchmarks.bench_eternity2 sweep --seconds 10 --optimizers exact_first,breaks,portfolio "
    "--set portfolio:threads=1 --set portfolio:chains=1": [
        *("--boards", "5,6", "--seconds", "1", "--seeds", "1"),
    ],
    "python -m benchmarks.bench_eternity2 generated": [
        *("--seconds", "0.5", "--seeds", "1", "--optimizers", "sa_compiled"),
    ],
    "python -m benchmarks.bench_eternity2 walk": ["--restarts", "1", "--repeats", "1"],
    "python -m benchmarks.bench_breaks_llvm": ["--placements", "100000", "--repeats", "1"],
    "python -m benchmarks.bench_eternity2 ladder": [*("--seconds", "3", "--floor", "400", "--no-baseline")],
    "python -m benchmarks.bench_eternity2 ladder --seconds 600 --threads 2 --plot ladder.png": [
        *("--seconds", "3", "--floor", "400", "--no-baseline"),
        *("--plot", os.path.join(tempfile.gettempdir(), "puzzlelab-test-ladder.png")),  # not in the checkout
    ],
    "python -m benchmarks.bench_pentomino_suite": [
        *("--moves", "1000", "--repeats", "1", "--seeds", "1", "--baseline-seeds", "1"),
        *("--evaluations", "1000", "--jobs", "1"),
    ],
    # the run behind README's targets: its success part (the moves part runs in the command above)
    "python -m benchmarks.bench_pentomino_suite --baseline-seeds 10 --jobs 1": [
        *("--skip", "moves", "--seeds", "1", "--baseline-seeds", "1", "--evaluations", "1000"),
    ],
}

# Commands whose shortened run takes more than a few seconds: run whole in the slow tier; the fast tier
# composes each (test_long_command_composes), so a renamed key or group still fails in minutes.
LONG: set[str] = {  # measured: more than 5 s each on a busy 2-core machine; the queries read HELD_OUT's runs
    "python -m experiments.run +experiment=pentomino_ga_vs_2opt",
    "python -m experiments.run +experiment=tune_sa_eternity2_like task.race=elitist",
    "python -m experiments.run +experiment=packing_suite",
    "python -m experiments.run +experiment=colour_sweep",
    "python -m experiments.run +experiment=calendar date=2026-11-21",
    "python -m experiments.run +experiment=calendar_all_dates",
    "python -m experiments.run +experiment=calendar_weekday date=2026-11-21",
    "python -m experiments.run +experiment=pentomino_rectangles",
    "python -m experiments.run +experiment=galakub",
    "python -m experiments.run puzzle=queens task=exact",
    "python -m experiments.run task=exact puzzle=eternity2 puzzle.pieces_file=puzzles/data/eternity2/clue1.txt puzzle.starter=false task.limit=1000",
    "python -m experiments.run +experiment=tune_sa_eternity2_like",
    "python -m experiments.run +experiment=hardness_peak",
    "python -m benchmarks.bench_pentomino_time_to_optimum",
    "python -m benchmarks.bench_edge_greedy",
    "python -m benchmarks.bench_calendar_year",
    "python -m benchmarks.bench_galakub",
    "python -m benchmarks.bench_launchers",
    "python -m benchmarks.bench_exact_edge speed",
    "python -m benchmarks.bench_exact_edge tree",
    "python -m benchmarks.bench_exact_edge hardest",
    "python -m benchmarks.bench_exact_edge clues",
    "python -m benchmarks.bench_exact_edge none",
    "python -m benchmarks.bench_exact_edge census",
    "python -m benchmarks.bench_exact_edge hedge",
    "python -m benchmarks.bench_eternity2 speed",
    "python -m benchmarks.bench_eternity2 official",
    "python -m benchmarks.bench_eternity2 generated",
    "python -m benchmarks.bench_eternity2 anytime",
    "python -m benchmarks.bench_eternity2 sweep",
    "python -m benchmarks.bench_eternity2 walk",
    "python -m benchmarks.bench_breaks_llvm",
    "python -m benchmarks.bench_eternity2 ladder",
    "python -m benchmarks.bench_eternity2 ladder --seconds 600 --threads 2 --plot ladder.png",
    "python -m benchmarks.bench_pentomino_suite",
    "python -m benchmarks.bench_interrupts",
    "python -m benchmarks.bench_resume portfolio --seconds 600 --stops 180,360 --seeds 0,1,2",
    "python -m experiments.run puzzle=eternity2 optimizer=breaks budget.seconds=40 hydra.run.dir=results/runs/long_breaks",
    "python -m benchmarks.bench_tuning",
    "python -m benchmarks.bench_hardness",
    # their kernels take 20 s or more to compile on a fresh clone, where test_matrix compiles them too
    "python -m experiments.run puzzle=eternity2 optimizer=beam",
    "python -m experiments.run puzzle=eternity2 optimizer=plateau_lns budget.seconds=60",
    "python -m experiments.run puzzle=queens puzzle.n=30 optimizer=lahc",
    "python -m experiments.run puzzle=eternity2 optimizer=breaks budget.seconds=60",
    "python -m experiments.run puzzle=eternity2 optimizer=portfolio budget.seconds=600",
    "python -m experiments.run +experiment=calendar",
    "python -m experiments.run +experiment=calendar_weekday",
    "python -m experiments.run +experiment=calendar_weekday_all_dates task.limit=1",
    "python -m benchmarks.bench_eternity2 sweep --seconds 10 --optimizers exact_first,breaks,portfolio --set portfolio:threads=1 --set portfolio:chains=1",
    "python -m benchmarks.bench_exact_edge hardest --seconds 600 --sides portfolio",
    "python -m experiments.run -m optimizer=ga,two_opt,sa puzzle.width=6,8 seed='range(10)'",
    "python -m experiments.run -m optimizer=ga,sa,two_opt seed='range(5)' budget.evaluations=20000",
    "python -m experiments.run -m task=tune puzzle=eternity2_like puzzle.n=6 optimizer=sa_compiled budget.evaluations=200000 'task.instances=[1,2]' hydra/sweeper=optuna hydra.sweeper.n_trials=6 hydra.sweeper.sampler.seed=0 'optimizer.t_start=tag(log, interval(0.3, 3.0))' 'optimizer.t_end=tag(log, interval(0.01, 0.3))' 'optimizer.period=tag(log, interval(10000, 1000000))'",
    "python -m experiments.run -m puzzle=eternity2_like optimizer=sa_compiled,sa_compiled_eternity2_like 'puzzle.instance_seed=range(100,120)' seed=7 budget.evaluations=2000000 study=tuned_vs_default",
    "python -m experiments.run -m 'hydra.searchpath=[file://conf]' puzzle=hidden_order optimizer=walk,lahc 'puzzle.instance_seed=1,2' seed='range(5)' budget.evaluations=2000",
    "python -m experiments.query \"SELECT puzzle, optimizer, count(*) AS runs, min(best) AS best, median(best) AS median, arg_min(run_dir, best) AS best_run FROM runs WHERE status = 'ok' GROUP BY ALL ORDER BY puzzle, median\"",
    'python -m experiments.query "SELECT r.optimizer, r.\\"optimizer.period\\" AS period, count(*) AS runs, median(t.best) AS best_by_500k, median(r.best) AS best_at_2M FROM runs r JOIN (SELECT run_dir, min(best) AS best FROM traces WHERE evaluations <= 500000 GROUP BY run_dir) t USING (run_dir) WHERE r.run_dir LIKE \'%tuned_vs_default/%\' GROUP BY ALL ORDER BY best_at_2M"',
}

# README command -> why it does not run here.
EXCLUDED: dict[str, str] = {
    "python -m benchmarks.bench_tuning --study-seeds 5 --races elitist": (
        "the logged racing benchmark, well over an hour on both cores; bench_tuning runs shortened "
        "(--smoke --races elitist) as its page's first command"
    ),
    "python -m experiments.run +experiment=random_floor smoke=on": (
        "docs/extending.md's example study, which is not in the repository: "
        "tests/docs/test_extending_page.py writes the page's study into a copy of studies/ and runs this "
        "command there"
    ),
    "python -m experiments.run +experiment=hardness_peak puzzle.n=8": (
        "the timed 8 x 8 part of the study, 10-20 minutes on both cores; the study runs here with smoke=on "
        "as its page's first command"
    ),
    "python -m experiments.run +experiment=hardness_peak smoke=on": (
        "the study's page's first command with smoke=on, which is how that one runs here (and "
        "tests/studies/hardness_peak/test_hardness_peak.py runs it)"
    ),
    "python -m experiments.run puzzle=eternity2_like puzzle.n=8 optimizer=backtrack budget.seconds=600": (
        "a 10-minute search on both cores; optimizer=backtrack runs from the command line in "
        "tests/puzzles/edge_matching/test_perfect_search.py (the 6 x 12 clue puzzle)"
    ),
    "python -m experiments.run task=exact puzzle=eternity2_like puzzle.n=8 task.seconds=3600": (
        "a 33-minute count on both cores; the same task on an edge-matching board runs as the README's "
        "exact edge matching command"
    ),
    "python -m experiments.run +experiment=tune_sa_eternity2_like hydra.sweeper.storage=journal hydra/launcher=slurm hydra.launcher.partition=debug": (
        "needs a Slurm cluster: tests/experiments/test_slurm.py runs a tuning study with a journal storage "
        "on the one-node Slurm, one trial's job cancelled and the study resumed"
    ),
    "python -m experiments.run -m puzzle=eternity2_like puzzle.n=8 optimizer=sa seed=0 budget.evaluations=1500000 hydra/launcher=local hydra.sweep.dir=/tmp/requeue_unbroken": (
        "a 25 s run on both cores, the unbroken twin of docs/slurm.md's requeued run: "
        "tests/experiments/test_slurm_requeue.py runs it (two seeds) and compares the requeued runs with it"
    ),
    "python -m experiments.run +experiment=tune_sa_eternity2_like smoke=on": (
        "the ready tuning study's smoke version, which is how RUN runs the toolbox's `+experiment="
        "tune_sa_eternity2_like` command here; tests/experiments/test_tuning_resume.py stops a raced study "
        "(kill -9, Ctrl-C) and runs it again"
    ),
    'python -m experiments.query "SQL"': 'a usage line: "SQL" stands for the reader\'s query (two real ones run)',
    "python -m experiments.run -m optimizer=ga,sa seed='range(3)' hydra/callbacks=mlflow": (
        "writes the MLflow store under results/: tests/experiments/test_mlflow_callback.py runs such a sweep "
        "into a temporary store and reads every run back"
    ),
}

# Commands not in RUN, excluded by what they are (pattern on the command, reason).
USAGE = "a usage line: <...> stands for the reader's own directory or choice; its module must exist"
RULES: list[tuple[str, str]] = [
    (
        r"pip install",
        "installs the project into a new virtualenv: CI's .ci/run does the same (by uv, by pip where uv cannot)",
    ),
    (r"^python -m pytest\b", "runs the tests: CI runs them (this file among them)"),
    (r"^(ruff|mypy|pre-commit)\b", "a check CI runs on every change (.ci/run)"),
    (r"^mkdocs build\b", "builds the documentation: CI's .ci/run does, before the tests"),
    (r"^mlflow ui\b", "a web server, up until stopped (full mlflow; CI installs mlflow-skinny)"),
    (r"<[^>]+>", USAGE),
    (
        r"hydra/launcher=slurm|bench_slurm_chunks|^bash \.ci/slurm",
        "needs the one-node Slurm cluster (.ci/slurm, as root): tests/experiments/test_slurm.py runs this path "
        "on it",
    ),
    (
        r"^(scancel|scontrol) ",
        "signals or requeues a running Slurm job: tests/experiments/test_slurm_requeue.py does so on the "
        "one-node cluster",
    ),
]


@dataclass(frozen=True)
class Command:
    """One command README or a docs page shows."""

    line: int  # where its page shows it first
    text: str  # as shown, comment dropped, whitespace collapsed: the key of RUN and EXCLUDED
    argv: tuple[str, ...]
    cwd: str = ""  # a folder the README's block changed into first (`cd examples/my_lab`)
    error: str | None = None  # the error line README prints under it (`$ python -m ...`)
    outputs: tuple[str, ...] = ()  # files README says it writes (a `# -> path` line after it)
    page: str = "README.md"  # the page that shows it first, from the repository's root

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def slug(self) -> str:
        """A folder name for its runs, unique over the pages."""
        return re.sub(r"\W", "_", self.page.removesuffix(".md")) + f"_L{self.line}"

    @property
    def id(self) -> str:
        return f"{self.where} {' '.join(self.argv[2:])[:70]}"


def shown(source: str) -> str:
    """A command as README shows it: its trailing comment dropped, whitespace collapsed."""
    source = re.sub(r"\\\n", " ", source)
    lines = [re.sub(r"(^|\s)#(\s.*)?$", "", row) for row in source.splitlines()]
    return " ".join(" ".join(lines).split())


def words(text: str) -> tuple[str, ...]:
    """A command's words as the shell splits them (a usage line's prose, e.g. `<the runs' dirs>`,
    by spaces)."""
    try:
        return tuple(shlex.split(text))
    except ValueError:
        return tuple(text.split())


def block_commands(rows: list[str], first: int, page: str = "README.md") -> list[Command]:
    """The commands of a ```bash block: continuation lines and multi-line quotes joined; a `cd`
    line sets the folder of the commands after it; a `# -> path` line names what the command before
    it writes."""
    found: list[Command] = []
    cwd, buffer, start = "", "", 0
    for k, row in enumerate(rows):
        if not buffer:
            if not row.strip():
                continue
            if row.strip().startswith("# ->") and found:
                path = row.strip().removeprefix("# ->").strip()
                found[-1] = replace(found[-1], outputs=(*found[-1].outputs, path))
                continue
            if row.strip().startswith("#"):
                continue
            start = first + k
        buffer = f"{buffer}\n{row}" if buffer else row
        if buffer.endswith("\\"):
            continue
        try:
            argv = shlex.split(re.sub(r"\\\n", " ", buffer), comments=True)
        except ValueError:  # a quote still open: the command goes on
            continue
        if argv[:1] == ["cd"]:
            cwd = argv[1]
        else:
            found.append(Command(start, shown(buffer), tuple(argv), cwd, page=page))
        buffer = ""
    assert not buffer, f"{page}:{start}: a command that never ends: {buffer!r}"
    return found


def readme_commands(text: str, page: str = "README.md") -> list[Command]:
    """Every command a page shows, in order, each once (at its first line)."""
    lines = text.splitlines()
    found: list[Command] = []
    fence: tuple[str, int, int, list[str]] | None = None  # language, first line, indent, rows
    prose = []
    for k, row in enumerate(lines, 1):
        opening = re.match(r"^(\s*)```(\w*)\s*$", row)
        if opening and fence is None:
            fence = (opening.group(2), k + 1, len(opening.group(1)), [])
        elif opening and fence is not None:
            if fence[0] in ("bash", "sh", "shell", "console"):
                found += block_commands(fence[3], fence[1], page)
            fence = None
        elif fence is not None:
            fence[3].append(row[fence[2] :] if row[: fence[2]].isspace() else row)
        else:
            prose.append((k, row))
            command = re.match(r"^ {4,}(\$ )?(python3? -m .*)$", row)
            if command:
                error = lines[k].strip() if command.group(1) else None
                found.append(
                    Command(k, shown(command.group(2)), words(command.group(2)), "", error, page=page)
                )
    joined = "\n".join(row for _, row in prose)
    numbers = [k for k, _ in prose]
    for span in re.finditer(r"`(python3? -m [^`]+)`", joined):
        line = numbers[joined.count("\n", 0, span.start())]
        found.append(Command(line, shown(span.group(1)), words(span.group(1)), page=page))
    unique: dict[str, Command] = {}
    for command in sorted(found, key=lambda c: c.line):
        unique.setdefault(command.text, command)
    return list(unique.values())


def rule_for(command: Command) -> str | None:
    """Why a command is excluded by what it is, if it is (never one RUN names: that one runs)."""
    if command.text in RUN:
        return None
    return next((why for pattern, why in RULES if re.search(pattern, command.text)), None)


def all_commands(pages: Sequence[Path] = PAGES) -> list[Command]:
    """Every command the pages show, each once: where the first page that shows it does."""
    unique: dict[str, Command] = {}
    for page in pages:
        for command in readme_commands(page.read_text(), page.relative_to(ROOT).as_posix()):
            unique.setdefault(command.text, command)
    return list(unique.values())


COMMANDS = all_commands()
TO_RUN = [c for c in COMMANDS if c.error is None and c.text in RUN]
ERRORS = [c for c in COMMANDS if c.error is not None]


def key(token: str) -> str | None:
    """The Hydra key (or group) an override sets; None for a flag or a positional argument."""
    if token.startswith("-") or "=" not in token:
        return None
    try:
        found: str = OverridesParser.create().parse_override(token).key_or_group
    except HydraException:  # not an override (a query's SQL)
        return None
    return found


def shortened(argv: tuple[str, ...], extra: list[str]) -> list[str]:
    """The command with its shortening: a key given again replaces the command's own."""
    replaced = {key(t) for t in extra} - {None}
    return [t for t in argv if key(t) not in replaced] + extra


def flags_first(args: list[str]) -> list[str]:
    """Hydra's flags (-m, --cfg job) before the overrides: its argparse reads the overrides as one list."""
    flags = {i for i, a in enumerate(args) if a.startswith("-")}
    flags |= {i + 1 for i in flags if args[i] in FLAGS_WITH_VALUE}
    return [a for i, a in enumerate(args) if i in flags] + [a for i, a in enumerate(args) if i not in flags]


def matches(expected: str, actual: str) -> bool:
    """README's error line against the program's: equal, or where README ends a list with ", ...",
    the items it shows appear in the program's list in the same order."""
    if not expected.endswith(", ..."):
        return expected == actual
    wanted, given = expected.removesuffix(", ...").split(", "), iter(actual.split(", "))
    return all(item in given for item in wanted)


@dataclass
class Outcome:
    """What one command did."""

    code: int | str | None
    out: str
    err: str
    dirs: list[Path] = field(default_factory=list)  # where it wrote
    warned: list[str] = field(default_factory=list)  # warnings (a failed Hydra callback is one)

    @property
    def last_line(self) -> str:
        lines = [row for row in (self.err or self.out).strip().splitlines() if row.strip()]
        return lines[-1].strip() if lines else ""


def as_main(module: str):
    """The module run as `python -m` runs it (as __main__, so Hydra finds its configs beside it)."""
    return lambda: runpy.run_module(module, run_name="__main__", alter_sys=True)


def run_in_process(entry, argv: list[str]) -> Outcome:
    """An entry point called here with `argv` (sys.argv[1:]): its exit, output and warnings. The
    logging Hydra sets up for a job is undone after it, for the tests that run next."""
    out, err = io.StringIO(), io.StringIO()
    code: int | str | None = 0
    saved, handlers, level = sys.argv, logging.root.handlers[:], logging.root.level
    GlobalHydra.instance().clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            sys.argv = ["python", *argv]
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                entry()
        except SystemExit as exit_:
            code = exit_.code
            if isinstance(code, str):
                err.write(code + "\n")
        finally:
            sys.argv = saved
            logging.root.handlers[:], logging.root.level = handlers, level
            GlobalHydra.instance().clear()
    return Outcome(code, out.getvalue(), err.getvalue(), warned=[str(w.message) for w in caught])


def run_subprocess(argv: list[str], cwd: Path) -> Outcome:
    """A command in a fresh Python, this checkout's code; benchmarks write no run log."""
    env = {**os.environ, "PYTHONPATH": f"{cwd}{os.pathsep}{ROOT}", "BENCH_LOG_DIR": "off"}
    python = [sys.executable, *argv[1:]] if argv[0] in ("python", "python3") else argv
    done = subprocess.run(python, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    return Outcome(done.returncode, done.stdout, done.stderr)


def in_subprocess(command: Command) -> bool:
    """Does the command run in a fresh Python (a benchmark, a command from another folder)?"""
    return bool(command.cwd) or not command.argv[2].startswith("experiments.")


class Lab:
    """Runs README's commands into one temporary directory, each once, in README's order where one
    reads what others wrote (the queries read the runs above them). The `background` commands (fresh
    Pythons) start at once, one at a time, beside those run in this process: both cores busy."""

    def __init__(self, root: Path, background: Sequence[Command] = ()):
        self.root = root
        self.outcomes: dict[str, Outcome] = {}
        self.pool = ThreadPoolExecutor(max_workers=1)
        self.started: dict[str, Future[Outcome]] = {
            c.text: self.pool.submit(self._run, c) for c in background
        }

    def run(self, command: Command) -> Outcome:
        if command.text in self.started:
            return self.started[command.text].result()
        if command.text not in self.outcomes:
            self.outcomes[command.text] = self._run(command)
        return self.outcomes[command.text]

    def _run(self, command: Command) -> Outcome:
        argv = shortened(command.argv, RUN.get(command.text, []))
        module = argv[2] if argv[1:2] == ["-m"] else ""
        slug = command.slug
        if module == "experiments.run":
            runs, sweeps = self.root / "runs" / slug, self.root / "sweeps" / "${study}" / slug
            argv += [f"hydra.run.dir={runs}", f"hydra.sweep.dir={sweeps}", "hydra/launcher=basic"]
            argv = argv[:3] + flags_first(argv[3:])
        if command.cwd:
            folder = self.root / "folders" / slug
            shutil.copytree(ROOT / command.cwd, folder, ignore=shutil.ignore_patterns("__pycache__"))
            outcome = run_subprocess(argv, folder)
        elif module == "experiments.run":
            outcome = run_in_process(as_main("experiments.run"), argv[3:])
        elif module == "experiments.query":
            self.run(next(c for c in COMMANDS if c.text == HELD_OUT))  # what README's queries read
            outcome = run_in_process(as_main(module), [*argv[3:], "--root", str(self.root)])
        elif module.startswith("experiments."):
            outcome = run_in_process(as_main(module), argv[3:])
        else:
            outcome = run_subprocess(argv, ROOT)
        if module == "experiments.run":
            outcome.dirs = [self.root / "runs" / slug, *(self.root / "sweeps").glob(f"*/{slug}")]
        return outcome


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory):
    """The commands' lab; the selected tests' subprocess commands start in the background at once
    (not under pytest-xdist, whose workers each run a share of the tests)."""
    chosen = {
        item.callspec.params["command"].text
        for item in request.session.items
        if "command" in getattr(getattr(item, "callspec", None), "params", {})
    }
    xdist = "PYTEST_XDIST_WORKER" in os.environ
    background = [c for c in TO_RUN if c.text in chosen and in_subprocess(c) and not xdist]
    lab = Lab(tmp_path_factory.mktemp("readme"), background)
    yield lab
    lab.pool.shutdown(cancel_futures=True)


def test_every_readme_command_is_known():
    """Each command README and the docs pages show runs here (RUN), is excluded with a reason (EXCLUDED
    or a rule), or is an error example with its line; and every entry of RUN and EXCLUDED is still
    shown on a page."""
    assert len(COMMANDS) >= 50, f"found only {len(COMMANDS)} commands: are the pages' layouts parsed?"
    unknown = [
        f"{c.where}: {c.text}"
        for c in COMMANDS
        if c.error is None and rule_for(c) is None and c.text not in RUN and c.text not in EXCLUDED
    ]
    assert not unknown, "commands this test does not know (add to RUN or EXCLUDED):\n" + "\n".join(unknown)
    texts = {c.text for c in COMMANDS}
    stale = [text for text in (*RUN, *EXCLUDED) if text not in texts]
    assert not stale, "entries for commands no page shows any more:\n" + "\n".join(stale)


def test_usage_lines_name_modules_that_exist():
    """A usage line (`python -m experiments.report <sweep dir>`) cannot run as shown, but its module
    must exist (the tests of report, reproduce and the export run them on real sweeps)."""
    usage = [c for c in COMMANDS if rule_for(c) == USAGE or c.text in EXCLUDED]
    assert usage
    for command in usage:
        module = command.argv[2]
        assert importlib.util.find_spec(module) is not None, f"{command.where}: no module {module}"


@pytest.mark.parametrize("command", ERRORS, ids=[c.id for c in ERRORS])
def test_error_example_ends_with_the_line_readme_shows(lab, command):
    outcome = lab.run(command)
    assert outcome.code not in (0, None), f"{command.where}: {command.text} did not fail"
    assert command.error is not None
    assert matches(command.error, outcome.last_line), (
        f"{command.where}: the page shows\n  {command.error}\nthe program says\n  {outcome.last_line}"
    )
    assert len(outcome.err.strip().splitlines()) == 1, f"more than the one line:\n{outcome.err}"


def test_smoke_without_a_study_is_one_line():
    outcome = run_in_process(as_main("experiments.run"), ["smoke=on"])
    assert outcome.code not in (0, None)
    assert (
        outcome.err.strip()
        == "error: smoke=on shrinks a study: add one, e.g. +experiment=colour_sweep smoke=on"
    )


def first_values(argv: Sequence[str]) -> list[str]:
    """The overrides of a command with each sweep at its first value (a search interval dropped): one
    job of its sweep."""
    flags = {i for i, a in enumerate(argv) if a.startswith("-")}
    flags |= {i + 1 for i in flags if argv[i] in FLAGS_WITH_VALUE}
    chosen = []
    for override in OverridesParser.create().parse_overrides(
        [a for i, a in enumerate(argv) if i not in flags]
    ):
        value = override.value()
        if isinstance(value, ChoiceSweep):
            value = value.list[0]
        elif isinstance(value, RangeSweep):
            value = value.start
        elif isinstance(value, IntervalSweep):
            continue
        text = override.get_value_element_as_str() if value is override.value() else str(value)
        chosen.append(
            f"{override.get_key_element()}={text}" if not override.is_delete() else override.input_line
        )
    return chosen


@pytest.mark.parametrize("command", [c for c in TO_RUN if c.text in LONG], ids=lambda c: c.id)
def test_long_command_composes(compose_config, command):
    """A command the slow tier runs whole: its config composes as the app composes it (one job of a
    sweep), or its benchmark imports and reads its flags."""
    argv = shortened(command.argv, RUN.get(command.text, []))
    if argv[2] not in ("experiments.run", "experiments.query"):
        outcome = run_in_process(as_main(argv[2]), ["--help"])
        assert outcome.code in (0, None) and "usage:" in outcome.out, outcome.err[-2000:]
    elif argv[2] == "experiments.query":  # its SQL runs in tests/experiments/test_query.py
        assert importlib.util.find_spec(argv[2]) is not None
    elif command.cwd:  # a user's own folder: tests/experiments/test_bring_your_own.py composes its configs
        assert first_values(argv[3:])
    else:
        cfg = compose_config(*first_values(argv[3:]))
        assert cfg.seed is not None and "puzzle" in cfg


@pytest.mark.parametrize(
    "command",
    [pytest.param(c, marks=pytest.mark.slow if c.text in LONG else ()) for c in TO_RUN],
    ids=[c.id for c in TO_RUN],
)
def test_readme_command_runs(lab, command):
    """It exits 0; Hydra's end-of-sweep callbacks (the report) did not fail, which Hydra only warns
    about; every run it recorded is ok; and it writes what README says it writes."""
    outcome = lab.run(command)
    where = f"{command.where}: {command.text}"
    assert outcome.code in (0, None), f"{where}\nexit {outcome.code}:\n{outcome.err[-3000:]}"
    failed_callbacks = [w for w in outcome.warned if "Callback" in w and "raised" in w]
    assert not failed_callbacks, f"{where}\n" + "\n".join(failed_callbacks)
    if command.argv[2:3] == ("experiments.run",) and "--cfg" not in command.argv:
        records = [p for d in outcome.dirs for p in d.rglob("run.parquet")]
        assert records, f"{where}\nwrote no run record in {outcome.dirs}"
        runs = pd.concat([pd.read_parquet(p, columns=["status"]) for p in records])
        assert (runs["status"] == "ok").all(), f"{where}\n{len(runs)} runs: {runs['status'].value_counts()}"
        for output in command.outputs:
            name = Path(output).name
            assert any(next(d.rglob(name), None) for d in outcome.dirs), f"{where}\nwrote no {name}"
    if "--cfg" in command.argv:
        assert "optimizer:" in outcome.out and "_target_:" in outcome.out, outcome.out[-2000:]
    if command.argv[2:3] == ("experiments.query",):
        assert outcome.out.strip() and "Empty DataFrame" not in outcome.out, (
            f"{where}\nno rows:\n{outcome.out}"
        )


@pytest.mark.parametrize("study", choices("experiment"))
def test_every_study_has_a_smoke_version(compose_config, study):
    """smoke=on composes for every study (configs/experiment/ and each studies/<name>/conf/), names it
    <study>_smoke (so its results are never taken for the study's) and comes from its own file (a study
    without one would run at full size)."""
    full, smoke = compose_config(f"+experiment={study}"), compose_config(f"+experiment={study}", "smoke=on")
    assert full.smoke is False and smoke.smoke is True
    assert smoke.study == f"{full.study}_smoke"
    assert any((d / "smoke_study" / f"{study}_on.yaml").is_file() for d in project_config_dirs())


def test_shortening_replaces_a_key_and_keeps_the_rest():
    assert shortened(("python", "-m", "experiments.run", "seed='x'", "budget.seconds=1"), ["seed=0"]) == [
        "python",
        "-m",
        "experiments.run",
        "budget.seconds=1",
        "seed=0",
    ]
    assert key("+experiment=galakub") == "experiment" and key("hydra/launcher=basic") == "hydra/launcher"
    assert key("--repeats") is None
