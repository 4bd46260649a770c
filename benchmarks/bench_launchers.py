"""Sweep throughput: 60 short runs (about 1.5 s each) with Hydra's joblib launcher (all cores) against the same sweep
on the basic launcher (one run after another), measured in the same run. Target: >= 1.7x on 2 cores.

    python -m benchmarks.bench_launchers [--seeds 20] [--evaluations 100000]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def sweep_seconds(launcher: str, seeds: int, evaluations: int) -> float:
    """Wall time of one whole sweep (Hydra start-up and the end-of-sweep report included)."""
    with tempfile.TemporaryDirectory() as out:
        args = [sys.executable, "-m", "experiments.run", "-m", f"hydra/launcher={launcher}",
                "optimizer=ga,sa,two_opt", f"seed=range({seeds})", f"budget.evaluations={evaluations}",
                "budget.stop_at_optimum=false", "puzzle=pentomino_free", f"hydra.sweep.dir={out}"]
        start = time.perf_counter()
        subprocess.run(args, cwd=ROOT, check=True, capture_output=True)
        elapsed = time.perf_counter() - start
        runs = len(list(Path(out).rglob("run.parquet")))
    print(f"{launcher:8s}: {runs} runs in {elapsed:6.1f} s", flush=True)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--evaluations", type=int, default=100_000)
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; {3 * args.seeds} runs of {args.evaluations:,} evaluations each")
    basic = sweep_seconds("basic", args.seeds, args.evaluations)
    joblib = sweep_seconds("local", args.seeds, args.evaluations)
    print(f"speed-up, joblib over basic: {basic / joblib:.2f}x (target >= 1.7x on 2 cores)")


if __name__ == "__main__":
    main()
