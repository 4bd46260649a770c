"""Sweep throughput: one sweep (GA, SA and 2-opt on the free pentomino strip, `--seeds` seeds each) with
Hydra's joblib launcher (all cores) against the same sweep on the basic launcher (one run after
another), interleaved in the same run. Target: joblib >= 1.7x faster on 2 cores.

Each repeat is a whole sweep as a user runs it (Python and Hydra start-up and the end-of-sweep
report included). `--seeds` and `--evaluations` shrink a repeat.

    python -m benchmarks.bench_launchers [--seeds 10] [--evaluations 50000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from benchmarks import flags
from benchmarks.timing import compare, report


def sweep(launcher: str, seeds: int, evaluations: int) -> int:
    """Run one whole sweep in a fresh process; the number of runs it wrote."""
    with tempfile.TemporaryDirectory() as out:
        args = [
            "-m",
            f"hydra/launcher={launcher}",
            "optimizer=ga,sa,two_opt",
            f"seed=range({seeds})",
            f"budget.evaluations={evaluations}",
            "budget.stop_at_optimum=false",
            "puzzle=pentomino_free",
            f"hydra.sweep.dir={out}",
        ]
        flags.run_app(args)
        return len(list(Path(out).rglob("run.parquet")))


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py)."""
    parser = flags.Parser("bench_launchers", __doc__.splitlines()[0])
    parser.add_argument("--seeds", type=flags.count, default=10)
    parser.add_argument("--evaluations", type=flags.count, default=50_000)
    parser.add_argument("--repeats", type=flags.count, default=5)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    print(
        f"{os.cpu_count()} cores; a sweep is {3 * args.seeds} runs of {args.evaluations:,} evaluations each"
    )
    timings = compare(
        {
            "basic launcher": lambda: sweep("basic", args.seeds, args.evaluations),
            "joblib launcher": lambda: sweep("local", args.seeds, args.evaluations),
        },
        repeats=args.repeats,
        warmup=0,
    )
    assert {t.result for t in timings.values()} == {3 * args.seeds}, {k: t.result for k, t in timings.items()}
    report(timings, baseline="basic launcher", targets={"joblib launcher": "target >= 1.7x on 2 cores"})


if __name__ == "__main__":
    flags.run(main)
