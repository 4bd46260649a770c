"""Task `tune`: one tuning trial, the optimiser's settings scored over several instances and seeds.

The project's Optuna sweeper (`hydra/sweeper=optuna`, hydra_plugins/puzzlelab_sweeper) proposes
settings and launches one job per trial; the job returns one number to minimise (None: the trial
failed). Here that job runs the optimiser on every (instance, seed) pair, each an ordinary run record
in `<trial dir>/<instance key>=<i>/seed=<s>/` (so resume, report, reproduce and query work on tuning
runs as on any other), and returns a statistic of their bests: the median (or mean), or the ERT to
the puzzle's known optimum. With racing (`task.race=wilcoxon`, the default) the pairs run in a
shuffled order and each run is reported to the study's pruner, which stops a setting clearly worse
than the best so far (experiments/racing.py); trials.csv says for each trial how many runs it had and
why it stopped. A finished run is read back, not run again (an interrupted one is), and the study is
kept in the sweep directory (optuna.db), so the same command again continues it. A finished run whose
saved config is not this trial's (a folder in which another study, with another budget say, tried the
same setting) is kept and the trial refused in one line: its runs would mix with this study's. At the
end of the sweep the sweeper (and then experiments/callbacks.py) `write_tuned` turns Optuna's best
trial (optimization_results.yaml) into an optimizer YAML, and trials.csv lists the study's trials.

    python -m experiments.run +experiment=tune_sa_eternity2_like
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import MissingMandatoryValue

from core import interrupt
from core.errors import InputError
from experiments.build import config_columns
from experiments.racing import open_race, run_value, study_name
from experiments.records import CONFIG, atomic_write, is_complete, read_row, write_config, write_table
from experiments.stats import ert
from experiments.tasks import Task
from experiments.tasks.optimise import Optimise

TRIAL, TRIALS = "trial.parquet", "trials.parquet"
STATISTICS = ("median", "mean", "ert")


def score(rows: list[dict[str, Any]], statistic: str) -> float:
    """The trial's objective over its runs: median or mean best, or ERT (inf when no run succeeds)."""
    if any(row.get("status") != "ok" for row in rows):
        raise InputError("a run of this trial failed; see its run.csv")
    bests = [float(row["best"]) for row in rows]
    if statistic == "median":
        return float(statistics.median(bests))
    if statistic == "mean":
        return float(np.mean(bests))
    if any(row.get("success") is None for row in rows):
        raise InputError("task.statistic=ert needs a puzzle with a known optimum; use median or mean")
    success = np.array([bool(row["success"]) for row in rows])
    used = [row["evals_to_optimum"] if ok else row["evaluations"] for row, ok in zip(rows, success)]
    return ert(np.array(used, dtype=float), success)


def trial_number() -> int | None:
    """The sweep's job number, which is Optuna's trial number (None outside a Hydra sweep, and in a
    single run, whose job has no number: `hydra.job.num` is missing)."""
    try:
        number: int = HydraConfig.get().job.num
    except (ValueError, MissingMandatoryValue):
        return None
    return number


class Tune(Task):
    """Run the configured optimiser on every instance and seed; the trial's objective is `statistic`.

    Args:
        instances: values of `puzzle.<instance_key>` to run on (None: the configured puzzle only).
        seeds: run seeds, each on every instance.
        instance_key: the puzzle setting that picks an instance.
        statistic: "median" or "mean" of the final bests, or "ert" (evaluations to the known optimum).
        race: "wilcoxon" runs the pairs one at a time in a shuffled order (the trial number seeds it)
            and stops a trial the pruner finds worse than the best so far (experiments/racing.py);
            "elitist" stops it too when it is tied with the best (irace's elitist race); "off" runs
            every pair.
        race_p: the pruner's p-value threshold (one-sided Wilcoxon signed-rank test).
        race_after: runs a trial makes before its first test (at least 2); null: the rule's own, 2
            for wilcoxon, 4 for elitist (a test at each run from it on; irace's firstTest is 5).
        race_ties: elitist: tests in a row that eliminate no one before a trial not ahead of the best
            stops as tied (irace's elitistLimit, 2).
        race_survivors: elitist: trials that ran every pair the study needs before any trial stops as
            tied (irace's minNbSurvival, 2 + log2 of the settings searched: 3 for three).
    """

    races = True  # declared: its jobs report to the study the sweeper keeps (experiments/racing.py)
    tuning = True  # its sweep ends by writing the best trial's settings (experiments/callbacks.py)

    def __init__(
        self,
        instances: list[int] | None = None,
        seeds: tuple[int, ...] = (0,),
        instance_key: str = "instance_seed",
        statistic: str = "median",
        race: str = "wilcoxon",
        race_p: float = 0.1,
        race_after: int | None = None,
        race_ties: int = 2,
        race_survivors: int = 3,
    ):
        if statistic not in STATISTICS:
            raise InputError(f"task.statistic must be one of {', '.join(STATISTICS)}, got {statistic!r}")
        if not seeds:
            raise InputError("task.seeds is empty: give at least one run seed, e.g. task.seeds=[0,1]")
        self.instances, self.seeds = instances, list(seeds)
        self.instance_key, self.statistic = instance_key, statistic
        self.race, self.race_p, self.race_after = race, race_p, race_after
        self.race_ties, self.race_survivors = race_ties, race_survivors

    def runs(self, cfg: DictConfig, run_dir: Path) -> list[tuple[DictConfig, Path]]:
        """Each inner run's config (the optimise task, one instance, one seed) and directory."""
        out = []
        for instance in [None] if self.instances is None else self.instances:
            for seed in self.seeds:
                inner = DictConfig(OmegaConf.to_container(cfg, resolve=True))
                inner.task = {"_target_": f"{Optimise.__module__}.Optimise"}
                inner.choices.task, inner.seed = "optimise", seed
                where = run_dir / f"seed={seed}"
                if instance is not None:
                    if self.instance_key not in inner.puzzle:
                        raise InputError(
                            f"the puzzle has no setting {self.instance_key!r} (task.instance_key)"
                        )
                    inner.puzzle[self.instance_key] = instance
                    where = run_dir / f"{self.instance_key}={instance}" / f"seed={seed}"
                out.append((inner, where))
        return out

    def __call__(self, cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
        pairs = self.runs(cfg, run_dir)
        race = open_race(
            self.race, self.race_p, self.race_after, len(pairs), self.race_ties, self.race_survivors
        )
        order = list(range(len(pairs)))
        if race is not None:  # a fixed order would tune to the first instances (Optuna's advice)
            order = [int(i) for i in np.random.default_rng(trial_number()).permutation(len(pairs))]
        rows, stopped, cut = [], "all runs", False
        for step in order:
            if interrupt.requested():  # Ctrl-C: the runs so far; the trial is recorded as interrupted
                break
            inner, where = pairs[step]
            if is_complete(where) and read_row(where).get("stop_reason") != "interrupted":
                check_same(inner, where)
                print(f"skip (already complete): {where}")
            else:
                write_config(inner, where)
                Optimise()(inner, where)
            rows.append(read_row(where))
            if rows[-1].get("stop_reason") == "interrupted":  # its best so far is no run's result: not
                cut = True  # reported (a trial run again keeps a step's first report); run again then
                break
            if race is not None and rows[-1].get("status") == "ok":
                why = race.report(run_value(rows[-1], self.statistic), step, len(rows))
                if why is not None:
                    stopped = why
                    break
        if not rows:  # interrupted before its first run: nothing to record; the sweep runs it again
            raise KeyboardInterrupt
        value = score(rows, self.statistic)
        trial = {
            "trial": trial_number(),
            "study": study_name(),  # trials.csv keeps the sweep's study only (write_tuned)
            "optimizer": rows[0]["optimizer"],
            **config_columns(cfg, ("optimizer", "budget")),
            "statistic": self.statistic,
            "objective": value,
            "runs": len(rows),
            "runs_planned": len(pairs),
            "stopped": stopped,
            "median_best": float(statistics.median(float(r["best"]) for r in rows)),
        }
        if cut or interrupt.requested():
            trial["stop_reason"] = "interrupted"
            trial["stopped"] = "interrupted"
        write_table(pd.DataFrame([trial]), run_dir / TRIAL)
        print(
            f"trial {run_dir}: {self.statistic} over {len(rows)} of {len(pairs)} runs = {value:g} ({stopped})"
        )
        return trial


def check_same(inner: DictConfig, where: Path) -> None:
    """A finished run is this trial's only when its saved config is the one composed now; else it is
    kept and the trial refused (one line), rather than its result passed off as this setting's."""
    from experiments.run import changed_keys

    changed = changed_keys(where / CONFIG, inner) if (where / CONFIG).is_file() else []
    if changed:
        more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        raise InputError(
            f"{where} holds a finished run with other settings ({', '.join(changed[:3])}{more}), another "
            "study's in this sweep folder: it is kept, and this trial not scored on it; tune into another "
            "folder with hydra.sweep.dir=..."
        )


def write_tuned(sweep_dir: Path, base: str, task: DictConfig) -> Path | None:
    """After an Optuna sweep: every trial of its study in `trials.csv`, and the best settings as an
    optimizer YAML (`configs/optimizer/<base>_tuned.yaml` in the sweep directory), ready to use."""
    results = sweep_dir / "optimization_results.yaml"
    trials = [pd.read_parquet(p).assign(trial_dir=str(p.parent)) for p in sorted(sweep_dir.rglob(TRIAL))]
    if not results.is_file() or not trials:
        return None
    found = OmegaConf.load(results)
    assert isinstance(found, DictConfig)
    table = pd.concat(trials, ignore_index=True)
    if found.get("study_name") and "study" in table:  # another study's trials in this folder: not these
        table = table[table["study"].isna() | (table["study"] == found.study_name)]
    if "stopped" in table:  # a raced trial's objective is over fewer runs: finished trials come first
        table = table.assign(finished=table["stopped"].fillna("all runs") == "all runs")
        table = table.sort_values(["finished", "objective", "trial"], ascending=[False, True, True])
        table = table.drop(columns="finished")
    else:
        table = table.sort_values(["objective", "trial"])  # Optuna's best first
    write_table(table, sweep_dir / TRIALS)
    settings = {
        k.removeprefix("optimizer."): v for k, v in found.best_params.items() if k.startswith("optimizer.")
    }
    over = (
        f"puzzle.{task.instance_key} in {list(task.instances)}, " if task.get("instances") is not None else ""
    )
    header = [
        f"# {base} tuned by Optuna (hydra/sweeper=optuna), best of {len(table)} trials in {sweep_dir}:",
        f"# {task.statistic} best over {over}seeds {list(task.seeds)} = {found.best_value:g}.",
        f"# Use it: copy this file to configs/optimizer/ and run optimizer={base}_tuned, or add",
        f"# hydra.searchpath=[file://{(sweep_dir / 'configs').resolve()}] optimizer={base}_tuned.",
    ]
    body = OmegaConf.to_yaml(OmegaConf.create({"defaults": [base, "_self_"], **settings}))
    path = sweep_dir / "configs" / "optimizer" / f"{base}_tuned.yaml"
    atomic_write(path, lambda tmp: tmp.write_text("\n".join(header) + "\n" + body))
    return path
