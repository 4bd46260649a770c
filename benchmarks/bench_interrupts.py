"""How fast Ctrl-C stops a run (issue 44, target: within 2 s): each cell of the interrupt matrix
(tests/experiments/test_interrupts.py: each optimiser and task in each phase, with and without a time
budget), signalled once, timed from the signal to the process's exit with its record written.

The target is absolute (a person waiting at a terminal), so there is no baseline side to divide by:
each cell prints its median with min and max over the repeats, and the worst median against 2 s.

    python -m benchmarks.bench_interrupts [--repeats 3] [--wait 8] [--cells "breaks build,exact count"]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from benchmarks import flags
from benchmarks.timing import Timing, report
from tests.experiments.test_interrupts import CELLS, NO_TIME, interrupt, load_kernels, started

TARGET = 2.0


def latency(settings: list[str], timed: bool, wait: float) -> float:
    """Seconds from one SIGINT to the exit of a run signalled `wait` seconds after it started."""
    exact = "task=exact" in settings
    board = [] if any(s.startswith("puzzle=") for s in settings) else ["puzzle=eternity2"]
    budget = ("task.seconds=600" if exact else "budget.seconds=600") if timed else ("" if exact else NO_TIME)
    folder = Path(tempfile.mkdtemp(prefix="bench-interrupt-"))
    try:
        run = started([*board, *settings, *([budget] if budget else [])], folder)
        time.sleep(wait)
        if run.poll() is not None:
            raise RuntimeError(f"{settings} ended before it was signalled")
        took = interrupt(run, 1)
        run.communicate()
        if run.returncode != 130 or not (folder / "run.parquet").is_file():
            raise RuntimeError(
                f"{settings}: exit {run.returncode}, record written: {(folder / 'run.parquet').is_file()}"
            )
        return took
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py)."""
    parser = flags.Parser("bench_interrupts", __doc__.splitlines()[0])
    parser.add_argument("--repeats", type=flags.count, default=3)
    parser.add_argument(
        "--cells",
        type=flags.names(CELLS, "cells"),
        default=",".join(CELLS),
        help="comma-separated cell names",
    )
    parser.add_argument(
        "--wait", type=flags.seconds, default=8.0, help="seconds from the start to the signal"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    cells = [c.strip() for c in args.cells.split(",")]
    for cell in cells:  # kernels compiled or loaded outside the clock
        load_kernels(CELLS[cell][0])
    seconds: dict[str, list[float]] = {}
    for _ in range(args.repeats):  # interleaved: a slow spell of the machine falls on every cell alike
        for cell in cells:
            for timed in (True, False):
                name = f"{cell}, {'budget.seconds' if timed else 'no time budget'}"
                seconds.setdefault(name, []).append(latency(CELLS[cell][0], timed, args.wait))
    timings = {name: Timing(tuple(s), None) for name, s in seconds.items()}
    print(f"stop latency, SIGINT to exit with the record written; target < {TARGET:g} s")
    report(timings, targets=dict.fromkeys(timings, f"target < {TARGET:g} s"))
    worst = max(timings, key=lambda name: timings[name].median)
    print(
        f"worst median: {worst}: {timings[worst].median:.2f} s = {timings[worst].median / TARGET:.2f} x the target"
    )


if __name__ == "__main__":
    flags.run(main)
