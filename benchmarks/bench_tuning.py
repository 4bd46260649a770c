"""Racing over instances against running every instance: the ready tuning study
(`+experiment=tune_sa_eternity2_like`) run twice as a user runs it, `task.race=off` and
`task.race=wilcoxon`, each tuned setting then checked on held-out boards.

Target: racing reaches a tuned setting as good on 20 held-out instances (median unmatched joins; a
one-sided Wilcoxon signed-rank test over the instances does not find it worse at 0.05) with at most
half the runs of the study without racing. One pair of studies per study seed (seed k:
`hydra.sweeper.sampler.seed=k`, `--study-seeds`, 3 by default). Why several: with one seed both studies
may pick the same trial (TPE's start-up draws are the same in both; they part only once racing's
pruned trials change what TPE learns), and a setting compared with itself is as good by construction
(p = 1). Each seed's line says whether the picks differ; the summary counts how often racing's pick
was as good, and in how many of those seeds the picks differed, which are the ones that could fail.
The held-out boards are instance seeds 100-119 (none used in tuning), run seed 7, at the study's budget.

    python -m benchmarks.bench_tuning [--study-seeds 3] [--smoke] [--race-p P]
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml
from scipy.stats import wilcoxon

from benchmarks import flags
from benchmarks.timing import fmt  # importing it logs this run (benchmarks/log/)

ROOT = Path(__file__).resolve().parents[1]
HELD_OUT = "range(100,120)"
LEVEL = 0.05  # racing's pick is worse when the one-sided Wilcoxon p is below this


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
        "pick": int(trials["trial"].iloc[0]),  # trials.csv: the best finished trial first
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


def worse_p(raced: pd.Series, unraced: pd.Series) -> float:
    """One-sided Wilcoxon signed-rank p that racing's pick is worse (more unmatched joins) on the same
    boards; 1 when every board ties (the same setting always does)."""
    diff = (raced - unraced).to_numpy()
    return float(wilcoxon(diff, alternative="greater", zero_method="zsplit").pvalue) if diff.any() else 1.0


def probability(text: str) -> float:
    """A p-value threshold: above 0, below 1."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be a number between 0 and 1 (e.g. 0.1), got {text!r}")
    return value


def parse(argv=None) -> argparse.Namespace:
    parser = flags.Parser("bench_tuning", __doc__.splitlines()[0])
    parser.add_argument(
        "--study-seeds",
        "--repeats",
        type=flags.count,
        help="pairs of studies, sampler seeds 0, 1, ... (default 3; 1 with --smoke)",
    )
    parser.add_argument("--smoke", action="store_true", help="the smoke study (smoke=on)")
    parser.add_argument(
        "--race-p", type=probability, help="task.race_p of the raced study (default: the study's)"
    )
    return parser.parse_args(argv)


def main() -> None:
    args = parse()
    seeds = args.study_seeds if args.study_seeds is not None else 1 if args.smoke else 3
    ratios, good, differ = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(seeds):
            studies, boards = {}, {}
            for race in ("off", "wilcoxon"):
                studies[race] = tune(Path(tmp) / f"{race}{seed}", race, seed, args.smoke, args.race_p)
            off, raced = studies["off"], studies["wilcoxon"]
            same = raced["params"] == off["params"]
            boards["off"] = held_out(Path(tmp) / f"held_out_off{seed}", off)
            # the same setting runs the same held-out runs: not run twice
            boards["wilcoxon"] = (
                boards["off"] if same else held_out(Path(tmp) / f"held_out_race{seed}", raced)
            )
            worse = worse_p(boards["wilcoxon"], boards["off"])
            ratio = raced["runs"] / off["runs"]
            ratios.append(ratio)
            good.append(worse >= LEVEL)
            differ.append(not same)
            for race, study in studies.items():
                b = boards[race]
                print(
                    f"seed {seed} race={race}: {study['runs']} runs ({study['pruned']} of {study['trials']} "
                    f"trials pruned) in {fmt(study['seconds'])}; picked trial {study['pick']}, "
                    f"{study['params']} (tuning median {study['value']:g}); held-out median {b.median():g} "
                    f"(mean {b.mean():.2f}, min {b.min():g}, max {b.max():g})"
                )
            pick = (
                f"the same setting (trial {raced['pick']} in both): as good by construction, no test"
                if same
                else f"racing picked trial {raced['pick']}, the unraced study trial {off['pick']}"
            )
            print(
                f"seed {seed}: racing ran {raced['runs']} of {off['runs']} runs, {ratio:.2f}x; wall "
                f"{raced['seconds'] / off['seconds']:.2f}x; {pick}; held-out median "
                f"{boards['wilcoxon'].median():g} raced, {boards['off'].median():g} unraced; racing's pick "
                "worse? one-sided Wilcoxon p = "
                f"{worse:.3g} ({'as good' if worse >= LEVEL else 'WORSE'} at {LEVEL})"
            )
    tested = [g for g, d in zip(good, differ) if d]
    print(
        f"racing's runs against every instance: {spread(ratios)} over {seeds} study seed(s); target <= 0.5: "
        f"{'met' if max(ratios) <= 0.5 else 'missed'}"
    )
    print(
        f"held-out: racing's pick as good in {sum(good)} of {seeds} study seeds; the picks differed in "
        f"{len(tested)} of {seeds} (the seeds that test it), and racing's was as good in {sum(tested)} of "
        f"those {len(tested)}"
    )


if __name__ == "__main__":
    flags.run(main)
