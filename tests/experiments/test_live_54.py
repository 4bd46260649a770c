"""Issue 54: timing columns declared by the table that holds them (reproduce never compares a clock),
what one evaluation means for a constructive solver, numba's compiles said and left off the budget's
clock, a live line that keeps its own console line and never shows more time left than before, a
pentomino piece file with a BOM, the hardness study's solver named, and the quick start's real line.

Runs go through the app's entry point (`python -m experiments.run` in a forked child, as
tests/experiments/test_bad_input.py runs it) or its task (`run_task` on a composed config, as
tests/experiments/test_matrix.py).
"""

from __future__ import annotations

import io
import re
import time
from pathlib import Path
from unittest.mock import ANY

import numba
import numpy as np
import pandas as pd
import pytest

from core import progress
from core.space import Budget
from experiments import live
from experiments.live import LiveLine, compiling, steps
from experiments.records import TRACE_COLUMNS, TRACE_TIMING, RunRecord, declared_timing, write_config
from experiments.reproduce import main as reproduce_main
from experiments.run import run_task
from experiments.tasks import exact
from experiments.tasks.optimise import summary_line
from puzzles.pieces import read_pieces
from studies.colour_sweep import table as colour_sweep
from studies.hardness_peak import table as hardness_peak
from tests import ROOT
from tests.experiments.test_bad_input import needs_fork, run_forked

HARDNESS = [
    "task=hardness_peak",
    "puzzle=eternity2_like",
    "puzzle.n=5",
    "task.colours=[2,4]",
    "task.max_nodes=2000",
    "task.count_nodes=2000",
]

# A column whose name says it holds a clock (wall or CPU seconds, a time, threads, a busy share).
CLOCK = re.compile(r"(^|_)(seconds?|secs?|time|times|clock|elapsed|wall|cpu|threads?|busy|duration)(_|$)")
SETTINGS = ("puzzle.", "optimizer.", "budget.", "task.")  # what the user chose: compared on purpose


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def reproduced(run_dir: Path, capsys) -> tuple[int, str]:
    """Exit status and stdout of `python -m experiments.reproduce <run_dir>`, in-process."""
    capsys.readouterr()
    try:
        reproduce_main([str(run_dir)])
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    return code, capsys.readouterr().out


def undeclared_clocks(folder: Path) -> dict[str, list[str]]:
    """Every table under `folder` whose clock-named columns are not all declared (or that declares
    nothing at all), with the columns."""
    found = {}
    for path in sorted(folder.rglob("*.parquet")):
        declared = declared_timing(path)
        clocks = [c for c in pd.read_parquet(path).columns if CLOCK.search(c) and not c.startswith(SETTINGS)]
        missing = clocks if declared is None else [c for c in clocks if c not in declared]
        if declared is None or missing:
            found[str(path.relative_to(folder))] = missing
    return found


@pytest.fixture(scope="module")
def hardness_run(tmp_path_factory) -> tuple[Path, str]:
    """`python -m experiments.run task=hardness_peak ...` once (a forked child, stderr to a file): its
    run directory, in a folder of runs of its own, and its stderr."""
    folder = tmp_path_factory.mktemp("hardness")
    run_dir = folder / "runs" / "one"
    proc = run_forked([*HARDNESS, f"hydra.run.dir={run_dir}"], folder)
    assert proc.returncode == 0, proc.stderr
    return run_dir, proc.stderr


# ----------------------------------------------------------------------------- 1: timing columns


@needs_fork
def test_a_hardness_peak_run_reproduces_and_its_log_has_no_redraws(hardness_run, capsys):
    """It said NOT reproduced for every hardness run: probe_seconds and count_seconds were compared."""
    run_dir, stderr = hardness_run
    assert "\r" not in stderr  # stderr is a file here: lines, never a terminal's redraws
    assert declared_timing(run_dir / "hardness_peak.csv") == {"probe_seconds", "seconds", "count_seconds"}
    table = pd.read_parquet(run_dir / "hardness_peak.parquet")
    table["count_seconds"] += 1000.0  # another machine's clock: not a difference
    table.to_parquet(run_dir / "hardness_peak.parquet", index=False)
    code, out = reproduced(run_dir, capsys)
    assert code == 0, out
    assert out.startswith(f"reproduced: {run_dir} (") and "hardness_peak.parquet" in out


def test_the_columns_each_task_lists_that_hold_clocks_are_its_declared_timing():
    """The tables' own column lists, checked without a run: a clock named in one is declared."""
    tables = {
        "hardness_peak": (hardness_peak.COLUMNS, hardness_peak.TIMING),
        "colour_sweep": (colour_sweep.COLUMNS, colour_sweep.TIMING),
        "trace": (TRACE_COLUMNS, TRACE_TIMING),
        "run": (RunRecord.columns("what", "outcome", "timing"), RunRecord.columns("timing")),
    }
    for name, (columns, timing) in tables.items():
        clocks = {c for c in columns if CLOCK.search(c)}
        assert clocks == set(timing), name
    assert {"seconds", "cpu_seconds"} <= set(exact.TIMING)  # every case's row gets both (Exact.table)
    assert not [c for c in ("stop_reason", "nodes_walked", "evaluations", "best") if CLOCK.search(c)]


@pytest.mark.slow
def test_every_table_every_task_writes_declares_its_clocks(compose_config, tmp_path, capsys):
    """Each task run once, small; every Parquet file it leaves names each clock column it holds."""
    runs = {
        "optimise": ["puzzle=queens", "puzzle.n=8", "optimizer=lahc", "budget.evaluations=300"],
        "exact cases": ["task=exact", "puzzle=queens", "puzzle.n=6"],
        "exact board": ["task=exact", "puzzle=edge_matching", "puzzle.n=3", "puzzle.colours=3"],
        "colour sweep": [
            "task=colour_sweep",
            "puzzle=edge_matching",
            "puzzle.n=5",
            "optimizer=greedy",
            "task.colours=[2,3]",
        ],
        "hardness": HARDNESS,
        "tune": [
            "task=tune",
            "puzzle=queens",
            "puzzle.n=8",
            "optimizer=lahc",
            "budget.evaluations=200",
            "task.seeds=[0,1]",
            "task.race=off",
        ],
    }
    for name, overrides in runs.items():
        cfg = compose_config(*overrides, "progress=false")
        write_config(cfg, tmp_path / name)  # as the app does: reproduce re-runs it from there
        run_task(cfg, tmp_path / name)
    assert len(list(tmp_path.rglob("*.parquet"))) >= 12
    assert undeclared_clocks(tmp_path) == {}
    for name in runs.keys() - {"tune"}:  # a trial's runs are run records of their own
        assert reproduced(tmp_path / name, capsys) == (0, ANY), name
    inner = sorted((tmp_path / "tune").glob("seed=*"))
    assert len(inner) == 2 and all(reproduced(run, capsys) == (0, ANY) for run in inner)


# ----------------------------------------------------------------------------- 2: one board


@needs_fork
def test_a_constructive_solver_says_its_budget_is_one_board_and_how_time_bounds_it(tmp_path):
    """`budget.evaluations=1` said "1 evaluations", then built for 17-36 s. (backtrack, not beam: a
    forked child must not start OpenMP threads, which beam's kernels use, after its parent has.)"""
    run_dir = tmp_path / "run"
    argv = ["puzzle=eternity2_like", "puzzle.n=4", "optimizer=backtrack", "budget.evaluations=1"]
    proc = run_forked([*argv, f"hydra.run.dir={run_dir}"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert (
        "budget for optimizer=backtrack: a constructive solver builds one board, its 1 evaluation, with no "
        "time limit: its settings fix the work, the same board on any machine; set budget.seconds to bound "
        "it (with no budget set: its default, 300 s)"
    ) in lines
    assert re.search(r"\| backtrack \| seed 0: .* after 1 evaluation, [\d.]+ s \(", lines[-1]), lines[-1]
    row = pd.read_parquet(run_dir / "run.parquet").iloc[0]
    assert row["evaluations"] == 1 and pd.isna(row["budget.seconds"])  # the run asked for, unchanged
    timed = run_forked([*argv, "budget.seconds=5", f"hydra.run.dir={tmp_path / 'timed'}"], tmp_path)
    said = (
        "budget for optimizer=backtrack: a constructive solver builds one board, its 1 evaluation, within 5 s"
    )
    assert said in timed.stdout.splitlines(), timed.stdout


def test_the_summary_line_counts_evaluations_in_words():
    row = {"puzzle": "p", "optimizer": "o", "seed": 0, "best": 3.0, "seconds": 0.5, "stop_reason": "x"}
    assert "after 1 evaluation, 0.50 s" in summary_line({**row, "evaluations": 1}, Path("d"))
    assert "after 2,343 evaluations, 0.50 s" in summary_line({**row, "evaluations": 2343}, Path("d"))


# ----------------------------------------------------------------------------- 3: numba's compiles


def fresh_kernel():
    """A numba function no cache holds: its first call compiles (a fraction of a second)."""

    @numba.njit(cache=False)
    def fresh_issue_54(values):
        total = 0.0
        for v in values:
            total += np.sqrt(v) * 2.0
        return total

    return fresh_issue_54


def test_a_compile_inside_a_run_is_said_and_left_off_the_budgets_clock():
    stream = io.StringIO()  # a log file
    kernel = fresh_kernel()
    with LiveLine("sa seed 0", Budget(seconds=30), stream=stream) as line:
        clock0, wall0 = line.clock(), time.perf_counter()
        kernel(np.arange(5.0))
        clock, wall = line.clock() - clock0, time.perf_counter() - wall0
        compiled = line.compiles.seconds()
    assert "sa seed 0: compiling test_live_54.fresh_issue_54 (once; cached after)\n" in stream.getvalue()
    assert compiled > 0.01 and abs((wall - clock) - compiled) < 0.01  # the budget's clock stood still


def test_a_warm_up_that_compiles_says_so_and_one_that_loads_its_cache_is_silent():
    stream, kernel = io.StringIO(), fresh_kernel()
    with compiling(stream=stream):
        kernel(np.arange(3.0))
    said = stream.getvalue().splitlines()
    assert said[0] == "compiling numba kernels, test_live_54.fresh_issue_54 first (once; cached after) ..."
    assert re.fullmatch(r"compiled in \d+\.\d s", said[1]) and len(said) == 2
    with compiling(stream=stream):
        kernel(np.arange(4.0))  # compiled now: nothing to say
    assert stream.getvalue().splitlines() == said


# ----------------------------------------------------------------------------- 4: the live line


def times_left(shown: str) -> list[int]:
    return [int(m) * 60 + int(s) for m, s in re.findall(r"<(\d\d):(\d\d);", shown)]


def test_a_bar_keeps_its_own_line_and_its_time_left_never_goes_up(monkeypatch):
    """A solver's note and the run's summary each start a line of their own (the bar cleared first),
    and the time left only falls, a compile pausing it."""
    term = Terminal()
    monkeypatch.setattr("sys.stdout", term)
    monkeypatch.setattr("sys.stderr", term)
    kernel = fresh_kernel()
    with LiveLine("portfolio seed 0", Budget(seconds=5), stream=term):
        time.sleep(0.7)
        print("breaks: 2 restarts, best 26 unmatched joins")  # a solver's note, as breaks prints it
        kernel(np.arange(3.0))
        progress.report(10, 4, "node")
        time.sleep(0.7)
    print("summary line")
    shown = term.getvalue()
    before_note = shown[: shown.index("breaks: 2 restarts")]
    before_summary = shown[: shown.index("summary line")]
    assert before_note.endswith("\r") and before_summary.endswith("\r")  # cleared: the line starts afresh
    assert shown.count("portfolio seed 0:") >= 3 and "best 4" in shown
    left = times_left(shown)
    assert len(left) >= 3 and left == sorted(left, reverse=True) and left[0] == 5


def test_a_tasks_steps_in_a_log_file_are_plain_lines(monkeypatch):
    monkeypatch.setattr(live, "LOG_EVERY", 0.0)
    stream = io.StringIO()
    assert list(steps([2, 3, 4], "hardness n=5 instance 0", stream=stream, unit="board")) == [2, 3, 4]
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue() and lines[-1].startswith("hardness n=5 instance 0: 2 of 3 boards, ")
    quiet = io.StringIO()
    assert list(steps([1], "x", enabled=False, stream=quiet)) == [1] and quiet.getvalue() == ""


# ----------------------------------------------------------------------------- 5: a BOM


def test_a_pentomino_piece_file_with_a_bom_is_read_as_without(tmp_path, compose_config):
    bundled = (ROOT / "puzzles" / "data" / "pentominoes.txt").read_bytes()
    path = tmp_path / "pieces.txt"
    path.write_bytes(b"\xef\xbb\xbf" + bundled)  # what Notepad saves as "UTF-8"
    pieces, plain = read_pieces(path), read_pieces("pentominoes")
    assert [(p.id, p.name, p.cells.tolist()) for p in pieces] == [
        (p.id, p.name, p.cells.tolist()) for p in plain
    ]
    cfg = compose_config(f"puzzle.pieces={path}", "budget.evaluations=300", "progress=false")
    row = run_task(cfg, tmp_path / "run")
    assert row["status"] == "ok" and row["evaluations"] == 300


# ----------------------------------------------------------------------------- 6: the solver named


@needs_fork
def test_the_hardness_report_names_the_search_not_nan(hardness_run, capsys):
    """report.md's summary table read the run's missing optimizer as `nan`."""
    from experiments.report import main as report_main

    run_dir, _ = hardness_run
    assert pd.read_parquet(run_dir / "run.parquet").iloc[0]["optimizer"] == "perfect_search"
    report_main([str(run_dir.parent)])
    text = (run_dir.parent / "report.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| eternity2_like"))
    assert "perfect_search" in row and "nan" not in row


# ----------------------------------------------------------------------------- 7: the quick start


def shape(line: str) -> str:
    """A summary line with what changes from run to run masked: the seconds and the run's folder."""
    line = re.sub(r", \d+\.\d\d s \(", ", <s> s (", line)
    return re.sub(r" -> /\S*/results/runs/\d{4}-\d\d-\d\d/\d\d-\d\d-\d\d_adhoc$", " -> <run dir>", line)


@needs_fork
def test_the_quick_starts_line_is_the_apps(tmp_path, monkeypatch):
    monkeypatch.setenv("PUZZLELAB_RESULTS", str(tmp_path / "results"))
    proc = run_forked([], tmp_path)  # `python -m experiments.run`, nothing else
    assert proc.returncode == 0, proc.stderr
    real = shape(proc.stdout.splitlines()[-1])
    assert real.endswith(" -> <run dir>") and "<s> s (target)" in real, real
    for page in ("README.md", "docs/getting-started.md"):
        shown = [line.strip() for line in (ROOT / page).read_text().splitlines() if " | ga | seed 0:" in line]
        assert [shape(line) for line in shown] == [real], page
