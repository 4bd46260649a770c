"""A long run stopped and continued (issue 58, item 1): the app's command for an optimiser on a board, in
a temporary run folder, sent SIGINT at each of `--stops` (wall seconds since its first start) and run
again, the same command, until it completes; beside it, unless --no-baseline, the same seed's run
unbroken. Per seed: the wall seconds of every start in all, the final board's matched joins re-scored
from the record (benchmarks/eternity2_rescore.py), each continued start's one line, and the ratio of
the times. The targets (issue 58): at most --seconds + 20 s in all, and no worse than the unbroken
runs' median.

    python -m benchmarks.bench_resume portfolio --seconds 600 --stops 180,360 --seeds 0
    python -m benchmarks.bench_resume portfolio --seconds 600 --stops 180,360 --seeds 0,1,2
    python -m benchmarks.bench_resume breaks --seconds 20 --stops 6,12 --puzzle eternity2_like --set puzzle.n=10

Why a wall clock over every start: a continued run's own clock (its record's seconds) counts the
search alone, from where the stopped one left it; what a person or a cluster pays is every start's
Python, kernels loaded and record written as well.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import flags
from benchmarks.eternity2_rescore import rescored
from benchmarks.timing import ROOT

SLACK = 20.0  # seconds over the budget a stopped and continued run may take in all (issue 58)
STOP_WAIT = 120.0  # seconds a stopped start may take to write its record and exit
RESUMED = "resumed from checkpoint: "


@dataclass
class Start:
    """One start of the command: its exit code, wall seconds, the line a continued start says (empty:
    none), and whether it left a checkpoint."""

    code: int
    wall: float
    said: str
    checkpoint: bool


@dataclass
class Ended:
    """One seed's run: its starts, and the final record's matched joins (re-scored) and own seconds."""

    starts: list[Start] = field(default_factory=list)
    matched: int = 0
    seconds: float = 0.0

    @property
    def wall(self) -> float:
        """Wall seconds of every start in all."""
        return sum(start.wall for start in self.starts)


def command(args: argparse.Namespace, seed: int, folder: Path) -> list[str]:
    """The app's command line for this run (the same for every start)."""
    return [
        *(sys.executable, "-m", "experiments.run", f"puzzle={args.puzzle}", f"optimizer={args.optimizer}"),
        *(f"seed={seed}", f"budget.seconds={args.seconds:g}", *args.set),
        *("progress=false", f"hydra.run.dir={folder}"),
    ]


def one_start(argv: list[str], stop_after: float | None) -> tuple[subprocess.CompletedProcess[str], float]:
    """The command started once (a session of its own, as a terminal's job), sent SIGINT after
    `stop_after` seconds if it is still running; its output and wall seconds."""
    began = time.perf_counter()
    job = subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = job.communicate(timeout=None if stop_after is None else max(stop_after, 0.0))
    except subprocess.TimeoutExpired:
        os.killpg(job.pid, signal.SIGINT)
        out, err = job.communicate(timeout=STOP_WAIT)
    return subprocess.CompletedProcess(argv, job.returncode, out, err), time.perf_counter() - began


def run_until_complete(argv: list[str], folder: Path, stops: tuple[float, ...]) -> Ended:
    """Start the command, stop it at each of `stops` (seconds since the first start), start it again
    until it completes."""
    ended, first, left = Ended(), time.perf_counter(), list(stops)
    while True:
        stop = left.pop(0) if left else None
        done, wall = one_start(argv, None if stop is None else stop - (time.perf_counter() - first))
        said = next((line for line in done.stdout.splitlines() if line.startswith(RESUMED)), "")
        kept = (folder / "checkpoint.pkl").is_file()
        ended.starts.append(Start(done.returncode, wall, said, kept))
        if done.returncode == 0:
            break
        if done.returncode != 130 or len(ended.starts) > len(stops):
            why = (done.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
            flags.refuse(
                f"start {len(ended.starts)} exited {done.returncode}: {why}; the command: {argv[1:]}"
            )
    ended.matched, ended.seconds = final_score(folder)
    return ended


def final_score(folder: Path) -> tuple[int, float]:
    """The record's board re-scored (matched joins; AssertionError when the record's tally differs), and
    the record's own seconds."""
    import numpy as np
    import pandas as pd

    from experiments.build import build
    from experiments.reproduce import load_config
    from experiments.run import setup

    setup()
    row = pd.read_parquet(folder / "run.parquet").iloc[0]
    puzzle = build(load_config(folder).puzzle, "puzzle")
    genome = np.array(row["best_genome"].split(), dtype=np.int64)
    return rescored(puzzle, float(row["best"]), puzzle.decode(genome), str(folder)), float(row["seconds"])


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py)."""
    parser = flags.Parser("bench_resume", __doc__.splitlines()[0])
    parser.add_argument(
        "optimizer", help="an optimizer config: portfolio, breaks, plateau_lns, sa_compiled, ..."
    )
    parser.add_argument("--seconds", type=flags.seconds, default=600.0, help="the run's budget.seconds")
    parser.add_argument(
        "--stops",
        type=stop_times,
        default=(180.0, 360.0),
        help="comma-separated seconds: when SIGINT is sent",
    )
    parser.add_argument("--seeds", type=flags.wholes(0), default=(0,), help="comma-separated seeds")
    parser.add_argument("--puzzle", default="eternity2", help="a puzzle config (edge matching)")
    parser.add_argument(
        "--set", type=flags.setting, action="append", default=[], help="KEY=VALUE: an override of the command"
    )
    parser.add_argument("--no-baseline", action="store_true", help="no unbroken run beside each")
    args = parser.parse_args(argv)
    if args.stops[-1] >= args.seconds:
        parser.error(
            f"argument --stops: {args.stops[-1]:g} s is not within the run's --seconds {args.seconds:g}"
        )
    flags.check(parser, {"optimizer, --puzzle, --set": lambda: built(args)})
    return args


def stop_times(text: str) -> tuple[float, ...]:
    """Comma-separated seconds above 0, increasing: "180,360"."""
    try:
        times = tuple(flags.seconds(part.strip()) for part in text.split(","))
    except argparse.ArgumentTypeError as err:
        raise argparse.ArgumentTypeError(f"must be comma-separated seconds; {err}") from None
    if list(times) != sorted(set(times)):
        raise argparse.ArgumentTypeError(f"must be increasing seconds, got {text!r}")
    return times


def built(args: argparse.Namespace) -> None:
    """The board and the optimiser the command describes, built by the project's own checks; a puzzle
    that is no edge-matching board is refused (the score is re-counted from its joins)."""
    from core.errors import InputError
    from experiments import api
    from experiments.build import build

    cfg = api.config(
        puzzle=args.puzzle,
        optimizer=args.optimizer,
        overrides=[f"budget.seconds={args.seconds:g}", *args.set],
    )
    puzzle = build(cfg.puzzle, "puzzle")
    build(cfg.optimizer, "optimizer")
    if not hasattr(puzzle, "score_layout"):
        raise InputError(
            f"--puzzle {args.puzzle} is no edge-matching board; give eternity2 or eternity2_like"
        )


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    stops = ", ".join(f"{s:g}" for s in args.stops)
    print(
        f"{args.optimizer} on {args.puzzle}{''.join(' ' + s for s in args.set)}, budget.seconds={args.seconds:g}, "
        f"SIGINT at {stops} s of wall time, then the same command until the run completes; "
        f"target: at most {args.seconds + SLACK:g} s in all, no worse than the unbroken runs' median"
    )
    broken: dict[int, Ended] = {}
    whole: dict[int, Ended] = {}
    scratch = Path(tempfile.mkdtemp(prefix="bench-resume-"))
    try:
        for seed in args.seeds:  # each seed's two sides one after the other: a slow spell falls on both
            folder = scratch / f"seed{seed}-broken"
            broken[seed] = run_until_complete(command(args, seed, folder), folder, args.stops)
            if not args.no_baseline:
                folder = scratch / f"seed{seed}-whole"
                whole[seed] = run_until_complete(command(args, seed, folder), folder, ())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for seed, run in broken.items():
        print(
            f"seed {seed}, stopped and continued: {len(run.starts)} starts, {run.wall:.1f} s wall in all, "
            f"record {run.seconds:.1f} s, {run.matched} joins matched"
        )
        for k, start in enumerate(run.starts, 1):
            ended = "completed" if start.code == 0 else f"stopped (exit {start.code})"
            left = "" if start.code == 0 else ", a checkpoint left" if start.checkpoint else ", no checkpoint"
            print(
                f"  start {k}: {start.wall:.1f} s wall, {ended}{left}{'; ' + start.said if start.said else ''}"
            )
        if seed in whole:
            base = whole[seed]
            print(
                f"seed {seed}, unbroken: {base.wall:.1f} s wall, record {base.seconds:.1f} s, {base.matched} "
                f"joins matched; wall ratio {run.wall / base.wall:.3f} (stopped and continued / unbroken)"
            )
    walls = [run.wall for run in broken.values()]
    within = max(walls) <= args.seconds + SLACK
    print(
        f"most wall time in all: {max(walls):.1f} s (target <= {args.seconds + SLACK:g} s: {'met' if within else 'missed'})"
    )
    if whole:
        median = statistics.median(run.matched for run in whole.values())
        worst = min(run.matched for run in broken.values())
        print(
            f"worst stopped-and-continued final: {worst} joins matched; unbroken median {median:g} "
            f"(target >= the median: {'met' if worst >= median else 'missed'})"
        )


if __name__ == "__main__":
    flags.run(main)
