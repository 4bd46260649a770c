"""Racing over instances against running every instance: the ready tuning study
(`+experiment=tune_sa_eternity2_like`) run as a user runs it with `task.race=off` and with each racing
rule, `task.race=wilcoxon` (stops a trial worse than the best) and `task.race=elitist` (irace's
elitist race: stops ties too), each tuned setting then checked on held-out boards.

Target: a rule reaches a tuned setting as good on 20 held-out instances (median unmatched joins; a
one-sided Wilcoxon signed-rank test over the instances does not find it worse at 0.05) with at most
half the runs of the study without racing, over at least 5 study seeds. One set of studies per study
seed (seed k: `hydra.sweeper.sampler.seed=k`, `--study-seeds`, 5 by default). Why several: with one
seed the studies may pick the same trial (TPE's start-up draws are the same in all; they part only
once racing's stopped trials change what TPE learns), and a setting compared with itself is as good by
construction (p = 1). Each seed's line says whether the picks differ; the summary counts how often a
rule's pick was as good, in how many seeds the picks differed (the ones that could fail), and pools
the held-out boards of those seeds into one one-sided test with its p-value.
The held-out boards are instance seeds 100-119 (none used in tuning), run seed 7, at the study's budget.

    python -m benchmarks.bench_tuning [--study-seeds 5] [--races wilcoxon,elitist] [--smoke] [--race-p P]
        [--trials N]
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
from experiments.report import PICTURES_OFF  # the benchmark reads tables, never pictures

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


RACES = ("wilcoxon", "elitist")  # the racing rules, each against task.race=off


def tune(
    folder: Path, race: str, seed: int, smoke: bool, race_p: float | None, trials: int | None = None
) -> dict:
    """One whole study: its runs, wall time, tuned settings and budget."""
    start = time.perf_counter()
    app(
        "+experiment=tune_sa_eternity2_like",
        *["smoke=on"] * smoke,
        f"task.race={race}",
        *([f"task.race_p={race_p}"] * (race_p is not None and race != "off")),
        *([f"hydra.sweeper.n_trials={trials}"] * (trials is not None)),
        f"hydra.sweeper.sampler.seed={seed}",
        f"hydra.sweep.dir={folder}",
        PICTURES_OFF,
    )
    seconds = time.perf_counter() - start
    trials = pd.read_csv(folder / "trials.csv")
    best = yaml.safe_load((folder / "optimization_results.yaml").read_text())
    return {
        "pick": int(trials["trial"].iloc[0]),  # trials.csv: the best finished trial first
        "runs": int(trials["runs"].sum()),
        "pruned": int(trials["stopped"].str.startswith("pruned").sum()),
        "tied": int(trials["stopped"].str.startswith("stopped: tied").sum()),
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
        PICTURES_OFF,
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


def races(text: str) -> tuple[str, ...]:
    """A comma-separated list of racing rules, each one of RACES."""
    chosen = tuple(dict.fromkeys(r.strip() for r in text.split(",") if r.strip()))
    wrong = [r for r in chosen if r not in RACES]
    if not chosen or wrong:
        raise argparse.ArgumentTypeError(
            f"must be racing rules from {', '.join(RACES)}, comma-separated, got {text!r}"
        )
    return chosen


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
        help="sets of studies, sampler seeds 0, 1, ... (default 5; 1 with --smoke)",
    )
    parser.add_argument("--smoke", action="store_true", help="the smoke study (smoke=on)")
    parser.add_argument(
        "--race-p", type=probability, help="task.race_p of the raced studies (default: the study's)"
    )
    parser.add_argument(
        "--races", type=races, default=RACES, help=f"racing rules to compare (default {','.join(RACES)})"
    )
    parser.add_argument(
        "--trials", type=flags.count, help="hydra.sweeper.n_trials of every study (default: the study's)"
    )
    return parser.parse_args(argv)


def main() -> None:
    args = parse()
    seeds = args.study_seeds if args.study_seeds is not None else 1 if args.smoke else 5
    ratios: dict[str, list[float]] = {r: [] for r in args.races}
    good: dict[str, list[bool]] = {r: [] for r in args.races}
    differ: dict[str, list[bool]] = {r: [] for r in args.races}
    pooled: dict[str, list[pd.Series]] = {r: [] for r in args.races}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(seeds):
            studies = {
                race: tune(Path(tmp) / f"{race}{seed}", race, seed, args.smoke, args.race_p, args.trials)
                for race in ("off", *args.races)
            }
            off = studies["off"]
            boards = {"off": held_out(Path(tmp) / f"held_out_off{seed}", off)}
            for race in args.races:  # the same setting runs the same held-out runs: not run twice
                same = next((r for r in boards if studies[r]["params"] == studies[race]["params"]), None)
                boards[race] = (
                    boards[same] if same else held_out(Path(tmp) / f"held_out_{race}{seed}", studies[race])
                )
            for race, study in studies.items():
                b = boards[race]
                print(
                    f"seed {seed} race={race}: {study['runs']} runs ({study['pruned']} of {study['trials']} "
                    f"trials pruned as worse, {study['tied']} stopped as tied) in {fmt(study['seconds'])}; "
                    f"picked trial {study['pick']}, {study['params']} (tuning median {study['value']:g}); "
                    f"held-out median {b.median():g} (mean {b.mean():.2f}, min {b.min():g}, max {b.max():g})"
                )
            for race in args.races:
                raced = studies[race]
                same = raced["params"] == off["params"]
                worse = worse_p(boards[race], boards["off"])
                ratio = raced["runs"] / off["runs"]
                ratios[race].append(ratio)
                good[race].append(worse >= LEVEL)
                differ[race].append(not same)
                if not same:
                    pooled[race].append(boards[race] - boards["off"])
                pick = (
                    f"the same setting (trial {raced['pick']} in both): as good by construction, no test"
                    if same
                    else f"racing picked trial {raced['pick']}, the unraced study trial {off['pick']}"
                )
                print(
                    f"seed {seed} {race}: racing ran {raced['runs']} of {off['runs']} runs, {ratio:.2f}x; wall "
                    f"{raced['seconds'] / off['seconds']:.2f}x; {pick}; held-out median "
                    f"{boards[race].median():g} raced, {boards['off'].median():g} unraced; racing's pick "
                    "worse? one-sided Wilcoxon p = "
                    f"{worse:.3g} ({'as good' if worse >= LEVEL else 'WORSE'} at {LEVEL})"
                )
    for race in args.races:
        tested = [g for g, d in zip(good[race], differ[race]) if d]
        print(
            f"{race}: runs against every instance: {spread(ratios[race])} over {seeds} study seed(s); "
            f"target <= 0.5: {'met' if max(ratios[race]) <= 0.5 else 'missed'}"
        )
        print(
            f"{race} held-out: racing's pick as good in {sum(good[race])} of {seeds} study seeds; the picks "
            f"differed in {len(tested)} of {seeds} (the seeds that test it), and racing's was as good in "
            f"{sum(tested)} of those {len(tested)}"
        )
        if pooled[race]:
            diff = pd.concat(pooled[race], ignore_index=True)
            p = worse_p(diff, diff * 0)
            print(
                f"{race} held-out, pooled over the {len(pooled[race])} seed(s) whose picks differed "
                f"({len(diff)} boards): racing's pick worse? one-sided Wilcoxon p = {p:.3g} "
                f"({'as good' if p >= LEVEL else 'WORSE'} at {LEVEL}; target: as good over >= 5 seeds)"
            )
        else:
            print(f"{race} held-out, pooled: no test (the picks were the same in every seed)")


if __name__ == "__main__":
    flags.run(main)
