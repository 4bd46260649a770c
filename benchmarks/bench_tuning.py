"""Racing over instances against running every instance: the ready tuning study
(`+experiment=tune_sa_eternity2_like`) run twice as a user runs it, `task.race=off` and
`task.race=wilcoxon`, each tuned setting then checked on held-out boards.

Target: racing reaches a tuned setting as good on 20 held-out instances (median unmatched joins; a
one-sided Wilcoxon signed-rank test over the instances finds it not worse at 0.05) with at most half
the runs of the study without racing. Each repeat is a pair of studies with one sampler seed (repeat
k: `hydra.sweeper.sampler.seed=k`); the held-out boards are instance seeds 100-119 (none used in
tuning), run seed 7, at the study's budget.

    python -m benchmarks.bench_tuning [--repeats 1] [--smoke] [--race-p P]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml
from scipy.stats import wilcoxon

from benchmarks.timing import fmt  # importing it logs this run (benchmarks/log/)

ROOT = Path(__file__).resolve().parents[1]
HELD_OUT = "range(100,120)"


def app(*args: str) -> None:
    """One command of the app, from the command line; the benchmark stops on a failure."""
    proc = subprocess.run(
        [sys.executable, "-m", "experiments.run", *args], cwd=ROOT, capture_output=True, text=True
    )
    if proc.returncode != 0:
        sys.exit(f"failed (exit {proc.returncode}): {' '.join(args)}\n{proc.stderr.strip()[-2000:]}")


def tune(folder: Path, race: str, seed: int, smoke: bool, race_p: float | None) -> dict:
    """One whole study: its runs, wall time, tuned settings and budget."""
    start = time.perf_counter()
    app(
        "+experiment=tune_sa_eternity2_like",
        *["smoke=on"] * smoke,
        f"task.race={race}",
        *([f"task.race_p={race_p}"] * (race_p is not None and race != "off")),
        f"hydra.sweeper.sampler.seed={seed}",
        f"hydra.sweep.dir={folder}",
    )
    seconds = time.perf_counter() - start
    trials = pd.read_csv(folder / "trials.csv")
    best = yaml.safe_load((folder / "optimization_results.yaml").read_text())
    return {
        "runs": int(trials["runs"].sum()),
        "pruned": int((trials["stopped"] != "all runs").sum()),
        "trials": len(trials),
        "seconds": seconds,
        "params": best["best_params"],
        "value": best["best_value"],
        "evaluations": int(trials["budget.evaluations"].iloc[0]),
    }


def held_out(folder: Path, study: dict) -> pd.Series:
    """The tuned setting's best (unmatched joins) on each held-out board."""
    settings = [f"{k}={v}" for k, v in study["params"].items()]
    app(
        "-m",
        "puzzle=eternity2_like",
        "optimizer=sa_compiled",
        *settings,
        f"puzzle.instance_seed={HELD_OUT}",
        "seed=7",
        f"budget.evaluations={study['evaluations']}",
        "hydra/launcher=local",
        f"hydra.sweep.dir={folder}",
    )
    runs = pd.read_csv(folder / "runs.csv")
    return runs.set_index("puzzle.instance_seed")["best"].sort_index()


def spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.3g} (min {min(values):.3g}, max {max(values):.3g})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1, help="pairs of studies, sampler seeds 0, 1, ...")
    parser.add_argument("--smoke", action="store_true", help="the smoke study (smoke=on)")
    parser.add_argument("--race-p", type=float, help="task.race_p of the raced study (default: the study's)")
    args = parser.parse_args()
    ratios, verdicts = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.repeats):
            studies, boards = {}, {}
            for race in ("off", "wilcoxon"):
                studies[race] = tune(Path(tmp) / f"{race}{seed}", race, seed, args.smoke, args.race_p)
                boards[race] = held_out(Path(tmp) / f"held_out_{race}{seed}", studies[race])
            off, raced = studies["off"], studies["wilcoxon"]
            diff = (boards["wilcoxon"] - boards["off"]).to_numpy()
            worse = wilcoxon(diff, alternative="greater", zero_method="zsplit").pvalue if diff.any() else 1.0
            ratio = raced["runs"] / off["runs"]
            ratios.append(ratio)
            verdicts.append(worse >= 0.05)
            for race, study in studies.items():
                b = boards[race]
                print(
                    f"seed {seed} race={race}: {study['runs']} runs ({study['pruned']} of {study['trials']} "
                    f"trials pruned) in {fmt(study['seconds'])}; tuned {study['params']} (tuning median "
                    f"{study['value']:g}); held-out median {b.median():g} (mean {b.mean():.2f}, min {b.min():g}, "
                    f"max {b.max():g})"
                )
            print(
                f"seed {seed}: racing ran {raced['runs']} of {off['runs']} runs, {ratio:.2f}x; wall "
                f"{raced['seconds'] / off['seconds']:.2f}x; held-out, racing's setting worse? one-sided "
                f"Wilcoxon p = {worse:.3g} ({'not worse' if worse >= 0.05 else 'WORSE'} at 0.05)"
            )
    print(
        f"racing's runs against every instance: {spread(ratios)} over {args.repeats} pair(s); target <= 0.5: "
        f"{'met' if max(ratios) <= 0.5 else 'missed'}; held-out not worse in {sum(verdicts)} of {len(verdicts)}"
    )


if __name__ == "__main__":
    main()
