"""Chunked Slurm jobs: a sweep of `--runs` short runs (simulated annealing on the pentomino strip,
8,000 evaluations, about 0.1 s of search each) sent through hydra/launcher=slurm with one job per run
against `--runs-per-job` runs per job, interleaved in the same run. Goal: chunked >= 5x faster.

Each repeat is the whole sweep as a user runs it (submission, every job's Python start-up and numba
loading, the wait), without the end-of-sweep report, which is the same on both sides. Needs the
one-node test cluster: `bash .ci/slurm up` (as root).

    python -m benchmarks.bench_slurm_chunks [--runs 1000] [--runs-per-job 50] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import pandas as pd

from benchmarks import flags
from benchmarks.timing import compare, report

ROOT = Path(__file__).resolve().parents[1]


def sweep(runs: int, runs_per_job: int, partition: str) -> tuple[int, float]:
    """One whole sweep in a fresh process; the runs it recorded and the sum of their scores."""
    (ROOT / "results").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=ROOT / "results") as out:
        args = [
            "-m",
            "puzzle=pentomino",
            "optimizer=sa",
            f"seed=range({runs})",
            "budget.evaluations=8000",
            "budget.stop_at_optimum=false",
            "hydra/launcher=slurm",
            f"hydra.launcher.partition={partition}",
            "hydra.launcher.mem_gb=1",
            f"hydra.launcher.runs_per_job={runs_per_job}",
            "~hydra.callbacks.report",
            f"hydra.sweep.dir={out}",
        ]
        flags.run_app(args)
        rows = [pd.read_parquet(p) for p in Path(out).rglob("run.parquet")]
        return len(rows), float(sum(r["best"].iloc[0] for r in rows))


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each checked before anything runs (benchmarks/flags.py)."""
    parser = flags.Parser("bench_slurm_chunks", __doc__.splitlines()[0])
    parser.add_argument("--runs", type=flags.count, default=1000)
    parser.add_argument("--runs-per-job", type=flags.count, default=50)
    parser.add_argument("--repeats", type=flags.count, default=3)
    parser.add_argument("--partition", default="debug")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    jobs = -(-args.runs // args.runs_per_job)
    print(f"{os.cpu_count()} CPUs in the cluster; {args.runs} runs: {args.runs} jobs against {jobs} jobs")
    chunked = f"{args.runs_per_job} runs per job"
    timings = compare(
        {
            "one job per run": lambda: sweep(args.runs, 1, args.partition),
            chunked: lambda: sweep(args.runs, args.runs_per_job, args.partition),
        },
        repeats=args.repeats,
        warmup=0,
    )
    results = {name: t.result for name, t in timings.items()}
    assert len(set(results.values())) == 1 and results[chunked][0] == args.runs, (
        results
    )  # same runs, same scores
    report(timings, baseline="one job per run", targets={chunked: "goal >= 5x"})


if __name__ == "__main__":
    flags.run(main)
