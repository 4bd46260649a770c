"""Tuning with hydra/sweeper=optuna (hydra_plugins/puzzlelab_sweeper, Optuna's ask/tell): a trial runs
the optimiser over instances and seeds (ordinary run records), returns their median best; the best
trial becomes an optimizer YAML; the same command again continues the study with its trial numbers; a
study made with other settings is refused; a cut journal is cut back, other damage is one line; a stop
while the sweep writes its end keeps trials.csv and the tuned YAML."""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import optuna
import pandas as pd
import pytest
import yaml
from hydra.errors import HydraException  # the plugin's SweeperError is one (see test_optuna_sweeper.py)
from omegaconf import OmegaConf

from core.errors import InputError
from experiments.build import build
from experiments.optuna_study import IDENTITY, identity_of, open_study
from experiments.tasks.tune import check_same, score, write_tuned
from tests import ROOT
from tests.experiments.test_bad_input import assert_one_line
from tests.experiments.test_experiment_run import run_app

TUNE = [
    "-m",
    "task=tune",
    "puzzle=eternity2_like",
    "puzzle.n=4",
    "optimizer=sa_compiled",
    "budget.evaluations=3000",
    "task.instances=[1,2]",
    "task.seeds=[0]",
    "hydra/sweeper=optuna",
    "hydra.sweeper.n_jobs=2",
    "hydra.sweeper.sampler.seed=0",
    "optimizer.t_start=tag(log, interval(0.3, 3.0))",
    "optimizer.t_end=tag(log, interval(0.01, 0.3))",
    "hydra/launcher=basic",
    "hydra.callbacks.report.pictures=false",  # the report's tables; its pictures are tested elsewhere
]


def trials_of(sweep_dir: Path) -> list[optuna.trial.FrozenTrial]:
    return optuna.load_study(study_name=None, storage=f"sqlite:///{sweep_dir}/optuna.db").get_trials()


@pytest.mark.slow
def test_a_tuning_sweep_scores_trials_writes_the_best_optimizer_and_resumes(tmp_path, compose_config):
    first = run_app(*TUNE, "hydra.sweeper.n_trials=3", f"hydra.sweep.dir={tmp_path}")
    assert first.returncode == 0, first.stderr
    trials = pd.read_csv(tmp_path / "trials.csv")
    assert len(trials) == 3 and sorted(trials["trial"]) == [0, 1, 2]  # a job's number is its trial's
    assert trials["objective"].is_monotonic_increasing
    for _, trial in trials.iterrows():  # each trial's objective is the median of its own run records
        runs = [pd.read_parquet(p).iloc[0] for p in sorted(Path(trial["trial_dir"]).rglob("run.parquet"))]
        assert len(runs) == 2 and {r["puzzle.instance_seed"] for r in runs} == {1, 2}
        assert all(r["optimizer.t_start"] == trial["optimizer.t_start"] for r in runs)
        assert trial["objective"] == statistics.median(r["best"] for r in runs)
    best = yaml.safe_load((tmp_path / "optimization_results.yaml").read_text())
    assert set(best) == {"name", "study_name", "best_params", "best_value"} and best["name"] == "optuna"
    assert best["best_value"] == trials["objective"].iloc[0]
    assert best["best_params"]["optimizer.t_start"] == trials["optimizer.t_start"].iloc[0]
    # the study is in the sweep folder, each trial told with its objective
    study = trials_of(tmp_path)
    assert [(t.number, t.state.name) for t in study] == [(0, "COMPLETE"), (1, "COMPLETE"), (2, "COMPLETE")]
    assert sorted(t.value for t in study) == sorted(trials["objective"])
    # the tuned optimizer YAML is ready to use: it composes on the search path and builds the tuned SA
    cfg = compose_config(f"hydra.searchpath=[file://{tmp_path / 'configs'}]", "optimizer=sa_compiled_tuned")
    tuned = build(cfg.optimizer, "optimizer")
    assert tuned.params["t_start"] == best["best_params"]["optimizer.t_start"]
    assert tuned.params["t_end"] == best["best_params"]["optimizer.t_end"]
    runs = pd.read_csv(tmp_path / "runs.csv")  # the report gathers the tuning runs as any others
    assert len(runs) == 6 and set(runs["task"]) == {"optimise"} and (runs["status"] == "ok").all()
    # the same command again: its 3 trials are complete, so it runs none and keeps the best
    again = run_app(*TUNE, "hydra.sweeper.n_trials=3", f"hydra.sweep.dir={tmp_path}")
    assert again.returncode == 0, again.stderr
    assert "3 of 3 trials complete, 0 to run" in again.stdout and "Launching" not in again.stdout
    assert yaml.safe_load((tmp_path / "optimization_results.yaml").read_text()) == best


@pytest.mark.slow
def test_a_resumed_study_continues_its_trial_numbers_and_runs_a_stopped_sweeps_trial_again(tmp_path):
    first = run_app(*TUNE, "hydra.sweeper.n_trials=2", f"hydra.sweep.dir={tmp_path}")
    assert first.returncode == 0, first.stderr
    # a sweep stopped while trial 2 ran (Ctrl-C, a killed process) leaves it RUNNING in the study
    study = optuna.load_study(study_name=None, storage=f"sqlite:///{tmp_path}/optuna.db")
    space = {
        "optimizer.t_start": optuna.distributions.FloatDistribution(0.3, 3.0, log=True),
        "optimizer.t_end": optuna.distributions.FloatDistribution(0.01, 0.3, log=True),
    }
    stopped = study.ask(space)
    assert stopped.number == 2
    more = run_app(*TUNE, "hydra.sweeper.n_trials=4", f"hydra.sweep.dir={tmp_path}")
    assert more.returncode == 0, more.stderr
    assert "2 of 4 trials complete, 2 to run (1 left running by a stopped sweep, run again)" in more.stdout
    trials = trials_of(tmp_path)
    assert [(t.number, t.state.name) for t in trials] == [(n, "COMPLETE") for n in range(4)]
    assert trials[2].params == stopped.params  # the stopped trial, run again with its own settings
    table = pd.read_csv(tmp_path / "trials.csv")
    assert sorted(table["trial"]) == [0, 1, 2, 3]
    row = table.set_index("trial").loc[2]
    assert row["optimizer.t_start"] == stopped.params["optimizer.t_start"]
    # the resumed sampler proposes new settings, not the first run's again (each trial's seed is its own)
    assert trials[3].params not in [t.params for t in trials[:3]]


def test_failed_trials_are_told_to_optuna_as_fail_and_the_sweep_goes_on(tmp_path):
    proc = run_app(
        "-m",
        "puzzle=eternity2_like",
        "puzzle.n=4",
        "optimizer=sa_compiled",
        "budget.evaluations=1000",
        "hydra/sweeper=optuna",
        "hydra.sweeper.n_trials=2",
        "hydra.sweeper.n_jobs=1",
        "optimizer.t_start=interval(-2.0, -1.0)",  # a negative temperature: every run fails
        "hydra/launcher=basic",
        f"hydra.sweep.dir={tmp_path}",
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr  # failed runs: the sweep exits non-zero
    assert [t.state.name for t in trials_of(tmp_path)] == ["FAIL", "FAIL"]
    assert "trial 1 failed" in proc.stdout and not (tmp_path / "optimization_results.yaml").exists()


@pytest.mark.slow
def test_tuned_settings_that_cannot_be_written_fail_the_sweep_in_one_line(tmp_path):
    (tmp_path / "configs").write_text("a file where the tuned optimizer's folder goes")
    proc = run_app(*TUNE, "hydra.sweeper.n_trials=1", "hydra.sweeper.n_jobs=1", f"hydra.sweep.dir={tmp_path}")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("error: the tuned settings could not be written (") and "optuna.db" in last
    assert len(trials_of(tmp_path)) == 1 and (tmp_path / "trials.csv").is_file()  # the trial is kept


@pytest.mark.slow
def test_a_bad_sampler_name_is_one_line(tmp_path):
    proc = run_app(*TUNE, "hydra.sweeper.sampler.name=tpee", f"hydra.sweep.dir={tmp_path}")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        "error: hydra.sweeper.sampler.name=tpee is not a sampler here; use one of "
        "tpe, cmaes, random, grid, gp"
    )


def test_trial_statistics():
    rows = [
        {"status": "ok", "best": 4.0, "success": False, "evaluations": 100, "evals_to_optimum": None},
        {"status": "ok", "best": 0.0, "success": True, "evaluations": 30, "evals_to_optimum": 30},
        {"status": "ok", "best": 1.0, "success": False, "evaluations": 100, "evals_to_optimum": None},
    ]
    assert score(rows, "median") == 1.0 and score(rows, "mean") == pytest.approx(5 / 3)
    assert score(rows, "ert") == 230.0  # (100 + 30 + 100) evaluations over one success
    with pytest.raises(InputError, match="failed"):
        score([*rows, {"status": "failed"}], "median")


def test_the_ready_tuning_experiment_composes(compose_config):
    cfg = compose_config("+experiment=tune_sa_eternity2_like")
    assert cfg.task._target_ == "experiments.tasks.tune.Tune" and cfg.puzzle.n == 8
    assert cfg.optimizer._target_ == "heuristics.compiled.CompiledSA"
    assert list(cfg.task.instances) == list(range(1, 11)) and cfg.task.race == "wilcoxon"


RACE = [  # four cooling settings on a grid; two keep the search hot to the end and lose
    "-m",
    "task=tune",
    "puzzle=eternity2_like",
    "puzzle.n=5",
    "optimizer=sa_compiled",
    "budget.evaluations=5000",
    "task.instances=[1,2,3,4]",
    "task.seeds=[0,1]",
    "hydra/sweeper=optuna",
    "hydra.sweeper.n_trials=4",
    "hydra.sweeper.n_jobs=1",
    "hydra.sweeper.sampler.name=grid",
    "hydra.sweeper.sampler.seed=1",
    "optimizer.t_start=100",
    "optimizer.t_end=choice(0.05, 40.0, 60.0, 90.0)",
    "hydra/launcher=basic",
    "hydra.callbacks.report.pictures=false",  # the report's tables; its pictures are tested elsewhere
]


def test_racing_stops_a_worse_setting_early_and_says_why(tmp_path):
    proc = run_app(*RACE, f"hydra.sweep.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    trials = pd.read_csv(tmp_path / "trials.csv").set_index("trial")
    study = {t.number: t for t in trials_of(tmp_path)}
    pruned = trials[trials["stopped"] != "all runs"]
    assert len(pruned) >= 1 and (trials["runs_planned"] == 8).all()
    for number, trial in trials.iterrows():
        runs = [pd.read_parquet(p).iloc[0] for p in Path(trial["trial_dir"]).rglob("seed=*/run.parquet")]
        assert len(runs) == trial["runs"]  # the runs it had, each a run record
        assert trial["objective"] == statistics.median(r["best"] for r in runs)
        stored = study[number]
        assert len(stored.intermediate_values) == trial["runs"]  # every run reported to the pruner
        assert sorted(stored.intermediate_values.values()) == sorted(r["best"] for r in runs)
        if number in pruned.index:
            assert stored.state.name == "PRUNED" and trial["runs"] < 8
            rival = int(trial["stopped"].split("worse than trial ")[1].split()[0])
            assert trial["stopped"].startswith(f"pruned after {trial['runs']} of 8 runs: worse than trial")
            assert study[rival].state.name == "COMPLETE" and rival < number  # told before this one ran
        else:
            assert stored.state.name == "COMPLETE" and trial["runs"] == 8 and trial["stopped"] == "all runs"
    # finished trials first in trials.csv; the tuned setting is the best of those
    table = pd.read_csv(tmp_path / "trials.csv")
    finished = table["stopped"] == "all runs"
    assert (
        finished.iloc[: finished.sum()].all()
        and table["objective"].iloc[0] == trials["objective"][finished.values].min()
    )
    best = yaml.safe_load((tmp_path / "optimization_results.yaml").read_text())
    assert best["best_value"] == table["objective"].iloc[0]


@pytest.mark.slow
def test_racing_is_reproducible_and_off_runs_every_pair(tmp_path):
    first, second, off = tmp_path / "a", tmp_path / "b", tmp_path / "off"
    for where, extra in ((first, []), (second, ["hydra.sweeper.storage=journal"]), (off, ["task.race=off"])):
        proc = run_app(*RACE, *extra, f"hydra.sweep.dir={where}")
        assert proc.returncode == 0, proc.stderr
    columns = ["trial", "optimizer.t_end", "objective", "runs", "stopped"]
    a, b = (pd.read_csv(d / "trials.csv")[columns] for d in (first, second))
    pd.testing.assert_frame_equal(a, b)  # the same stops with another storage: racing is reproducible
    unraced = pd.read_csv(off / "trials.csv")
    assert (unraced["runs"] == 8).all() and (unraced["stopped"] == "all runs").all()
    assert unraced["runs"].sum() > a["runs"].sum()


# --- issue 54: a study's identity, damaged study files, a stop while the sweep writes its end ---------

LOG_T_START = optuna.distributions.FloatDistribution(0.3, 3.0, log=True)
MEASURES = {"task.instances": [1, 2], "task.seeds": [0], "budget.evaluations": 3000, "task.race": "wilcoxon"}


def identity(t_start=LOG_T_START, **changed):
    return identity_of({"optimizer.t_start": t_start}, "minimize", {**MEASURES, **changed})


def test_a_study_keeps_its_identity_and_refuses_another_in_one_line(tmp_path):
    storage = f"sqlite:///{tmp_path}/optuna.db"
    study = open_study(storage, "s", identity=identity(), folder=tmp_path)
    assert study.user_attrs[IDENTITY]["search:optimizer.t_start"] == "tag(log, interval(0.3, 3.0))"
    study.tell(study.ask({"optimizer.t_start": LOG_T_START}), 1.0)
    again = open_study(storage, "s", identity=identity(), folder=tmp_path)  # the same identity resumes
    assert len(again.get_trials()) == 1
    other = optuna.distributions.FloatDistribution(0.3, 5.0, log=True)
    with pytest.raises(HydraException) as refused:
        open_study(storage, "s", identity=identity(other, **{"budget.evaluations": 4000}), folder=tmp_path)
    said = str(refused.value)
    assert "\n" not in said and said.startswith(f"hydra.sweeper: the study 's' in {storage} was made with ")
    assert (
        "optimizer.t_start searched in tag(log, interval(0.3, 5.0)) here, tag(log, interval(0.3, 3.0)) by "
        "the study; budget.evaluations=4000 here, 3000 in the study;" in said
    )
    assert f"hydra.sweeper.study_name=s-2 hydra.sweep.dir={tmp_path.with_name(tmp_path.name + '-2')}" in said
    with pytest.raises(HydraException, match=r"task.race=\"off\" here, \"wilcoxon\" in the study"):
        open_study(storage, "s", identity=identity(**{"task.race": "off"}))
    assert len(open_study(storage, "s").get_trials()) == 1  # a refused sweep added nothing


def test_a_study_made_before_identities_is_judged_by_what_its_trials_searched(tmp_path):
    storage = f"sqlite:///{tmp_path}/optuna.db"
    old = optuna.create_study(storage=storage, study_name="old")
    old.tell(old.ask({"optimizer.t_start": optuna.distributions.FloatDistribution(0.3, 5.0)}), 1.0)
    with pytest.raises(HydraException, match=r"interval\(0.3, 5.0\) by the study; give this sweep"):
        open_study(storage, "old", identity=identity())
    same = optuna.create_study(storage=storage, study_name="same")
    same.tell(same.ask({"optimizer.t_start": LOG_T_START}), 1.0)
    assert open_study(storage, "same", identity=identity()).user_attrs[IDENTITY] == identity()


def journal_with_trials(path: Path, trials: int = 3) -> bytes:
    study = open_study(f"journal:{path}", "j")
    for _ in range(trials):
        trial = study.ask({"optimizer.t_start": LOG_T_START})
        study.tell(trial, trial.params["optimizer.t_start"])
    return path.read_bytes()


def test_a_cut_journal_is_cut_back_to_its_last_whole_record_and_the_study_goes_on(tmp_path, capsys):
    path = tmp_path / "optuna.journal"
    whole = journal_with_trials(path)
    path.write_bytes(whole[:-20])  # a writer killed mid-write: the last record (trial 2 told) is cut
    study = open_study(f"journal:{path}", "j")
    note = capsys.readouterr().err
    assert note.startswith(f"note: the journal {path} ended in a cut record") and note.count("\n") == 1
    cut = [p for p in tmp_path.iterdir() if p.name.startswith("optuna.journal.cut-")]
    assert len(cut) == 1 and cut[0].read_bytes() == whole[whole.rstrip(b"\n").rfind(b"\n") + 1 : -20]
    assert [t.state.name for t in study.get_trials()] == ["COMPLETE", "COMPLETE", "RUNNING"]
    study.tell(2, 0.5)  # without the cut back, Optuna appended to the cut record and could not read it again
    study.tell(study.ask({"optimizer.t_start": LOG_T_START}), 0.4)
    reopened = open_study(f"journal:{path}", "j")
    assert [t.state.name for t in reopened.get_trials()] == ["COMPLETE"] * 4
    assert capsys.readouterr().err == ""  # a whole journal is opened as it is


def test_a_damaged_journal_or_sqlite_file_is_one_line_saying_how_to_recover(tmp_path):
    path = tmp_path / "optuna.journal"
    whole = journal_with_trials(path)
    lines = whole.splitlines(keepends=True)
    # a cut record with a later one appended to it (line 7), then a whole one
    path.write_bytes(b"".join(lines[:6]) + lines[6][:30] + lines[7] + lines[8])
    with pytest.raises(HydraException) as refused:
        open_study(f"journal:{path}", "j")
    said = str(refused.value)
    assert "\n" not in said and said.startswith(
        f"hydra.sweeper.storage=journal:{path}: the journal file {path} is damaged at line 7 (not an Optuna "
        "record; 6 whole records before it): keep those with 'mv "
    )
    recover = said.split("keep those with '")[1].split("'")[0]  # the command it gives, run as given
    subprocess.run(recover, shell=True, check=True)
    assert (tmp_path / "optuna.journal.damaged").read_bytes() == b"".join(lines[:6]) + lines[6][:30] + lines[
        7
    ] + lines[8]
    assert len(open_study(f"journal:{path}", "j").get_trials()) == 2  # the records before the damage
    garbage = tmp_path / "bad.db"
    garbage.write_bytes(b"not a database " * 200)
    with pytest.raises(HydraException) as refused:
        open_study(f"sqlite:///{garbage}", "s")
    assert str(refused.value) == (
        f"hydra.sweeper.storage=sqlite:///{garbage}: the study's SQLite file is damaged (file is not a "
        f"database): move it aside with 'mv {garbage} {garbage}.damaged' and run the same command again "
        "(the study starts over; runs already finished with the same settings are read back, not run "
        "again), or give another hydra.sweeper.storage"
    )


def test_a_damaged_journal_stops_the_sweep_in_one_line(tmp_path):
    (tmp_path / "optuna.journal").write_bytes(b'{"op_code": 0, "worker_id"\n{"op_code": 1}\n')
    proc = run_app(*TUNE, "hydra.sweeper.storage=journal", f"hydra.sweep.dir={tmp_path}")
    assert_one_line(proc, f"the journal file {tmp_path / 'optuna.journal'} is damaged at line 1")
    assert not (tmp_path / "optimization_results.yaml").exists() and not (tmp_path / "sweep.lock").exists()


def test_stops_are_held_while_the_end_files_are_written_and_end_the_sweep_after(tmp_path):
    from experiments import sweep_lock
    from hydra_plugins.puzzlelab_sweeper.signals import stops_held

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    written = []
    try:
        with pytest.raises(KeyboardInterrupt) as stopped, stops_held(tmp_path):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            written.append("trials.csv")  # the block goes on to its end, then the stop
        assert written == ["trials.csv"] and str(tmp_path) in getattr(stopped.value, "line", str)()
        with pytest.raises(KeyboardInterrupt):  # after it (the report): a stop, said in one line
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
    finally:
        sweep_lock.release(tmp_path / sweep_lock.LOCK)  # puts back the handlers the sweep's end replaced
        for number, handler in before.items():
            signal.signal(number, handler)


def trial_table(folder: Path, study: str | None, number: int, objective: float) -> None:
    folder.mkdir(parents=True)
    row = {"trial": number, "study": study, "optimizer.t_start": objective, "objective": objective}
    pd.DataFrame([row]).to_parquet(folder / "trial.parquet")


def test_trials_csv_keeps_the_sweeps_study_only(tmp_path):
    trial_table(tmp_path / "a", "old", 0, 1.0)  # another study's trial in the same sweep folder
    trial_table(tmp_path / "b", "new", 0, 3.0)
    trial_table(tmp_path / "c", "new", 1, 2.0)
    results = {
        "name": "optuna",
        "study_name": "new",
        "best_params": {"optimizer.t_start": 2.0},
        "best_value": 2.0,
    }
    OmegaConf.save(OmegaConf.create(results), tmp_path / "optimization_results.yaml")
    task = OmegaConf.create(
        {"instances": [1], "instance_key": "instance_seed", "seeds": [0], "statistic": "median"}
    )
    tuned = write_tuned(tmp_path, "sa_compiled", task)
    table = pd.read_csv(tmp_path / "trials.csv")
    assert list(table["study"]) == ["new", "new"] and list(table["objective"]) == [2.0, 3.0]
    assert tuned is not None and "best of 2 trials" in tuned.read_text()


def test_a_finished_run_of_other_settings_is_kept_and_not_scored_as_this_trials(tmp_path):
    saved = OmegaConf.create({"seed": 0, "budget": {"evaluations": 3000}, "optimizer": {"t_start": 1.0}})
    OmegaConf.save(saved, tmp_path / "config.yaml")
    check_same(saved, tmp_path)  # the same settings: read back
    now = OmegaConf.create({"seed": 0, "budget": {"evaluations": 4000}, "optimizer": {"t_start": 1.0}})
    with pytest.raises(
        InputError, match=r"holds a finished run with other settings \(budget.evaluations \(3000 -> 4000\)\)"
    ):
        check_same(now, tmp_path)
    assert OmegaConf.load(tmp_path / "config.yaml") == saved


def test_the_benchmarks_held_out_check_can_fail():
    from benchmarks.bench_tuning import worse_p

    rng = np.random.default_rng(0)
    unraced = pd.Series(rng.integers(5, 12, 20).astype(float))
    assert worse_p(unraced, unraced) == 1.0  # a setting against itself: p = 1 by construction
    assert worse_p(unraced + 2, unraced) < 0.001  # racing's pick worse on every board: found worse
    assert worse_p(unraced - 2, unraced) > 0.99


def test_the_benchmark_counts_the_seeds_whose_picks_differ(monkeypatch, capsys):
    """bench_tuning's bookkeeping over study seeds, on made-up studies: seed 0 picks one setting in both
    (held out once, no test), seed 1 picks two, and racing's is worse on every board; the elitist rule
    picks the unraced study's setting in both seeds (never tested)."""
    from benchmarks import bench_tuning

    def tune(folder, race, seed, smoke, race_p, trials=None):
        pick = 12 if seed == 1 and race == "wilcoxon" else 5
        params = {"optimizer.t_start": float(pick)}
        runs = {"off": 40, "wilcoxon": 25, "elitist": 16}[race]
        return {"pick": pick, "runs": runs, "pruned": 0, "tied": 0, "trials": 6, "seconds": 1.0,
                "params": params, "value": 1.0, "evaluations": 100}  # fmt: skip

    held: list[dict] = []
    boards = pd.Series(np.arange(20, dtype=float) % 7 + 8)

    def held_out(folder, study):
        held.append(study["params"])
        return boards + (3 if study["pick"] == 12 else 0)

    monkeypatch.setattr(bench_tuning, "tune", tune)
    monkeypatch.setattr(bench_tuning, "held_out", held_out)
    monkeypatch.setattr(sys, "argv", ["bench_tuning", "--study-seeds", "2"])
    bench_tuning.main()
    out = capsys.readouterr().out
    assert len(held) == 3  # the same setting is not run twice on the held-out boards
    assert "seed 0 wilcoxon: racing ran 25 of 40 runs, 0.62x; wall 1.00x; the same setting (trial 5 in" in out
    assert "seed 1 wilcoxon: racing ran 25 of 40 runs, 0.62x; wall 1.00x; racing picked trial 12, the" in out
    assert "seed 1 elitist: racing ran 16 of 40 runs, 0.40x; wall 1.00x; the same setting (trial 5 in" in out
    assert "held-out median 14 raced, 11 unraced" in out and "(WORSE at 0.05)" in out
    assert "elitist: runs against every instance: median 0.4 (min 0.4, max 0.4) over 2 study seed(s); " \
        "target <= 0.5: met" in out  # fmt: skip
    assert (
        "wilcoxon held-out: racing's pick as good in 1 of 2 study seeds; the picks differed in 1 of 2 (the "
        "seeds that test it), and racing's was as good in 0 of those 1"
    ) in out
    assert "wilcoxon held-out, pooled over the 1 seed(s) whose picks differed (20 boards): racing's pick " \
        "worse? one-sided Wilcoxon p = " in out  # fmt: skip
    assert out.strip().splitlines()[-1] == (
        "elitist held-out, pooled: no test (the picks were the same in every seed)"
    )


SMOKE = [
    *("-m", "+experiment=tune_sa_eternity2_like", "smoke=on", "hydra.sweeper.n_trials=2"),
    "hydra.callbacks.report.pictures=false",
]


@pytest.mark.slow
def test_two_smoke_sweeps_with_one_study_name_and_other_intervals_are_refused_in_one_line(tmp_path):
    shared = f"hydra.sweeper.storage=sqlite:///{tmp_path}/studies.db"  # one storage, one study name
    first = run_app(*SMOKE, shared, f"hydra.sweep.dir={tmp_path / 'a'}")
    assert first.returncode == 0, first.stderr
    hot = "optimizer.t_start=tag(log, interval(2.0, 5.0))"
    second = run_app(*SMOKE, shared, hot, f"hydra.sweep.dir={tmp_path / 'b'}")
    assert_one_line(
        second,
        "optimizer.t_start searched in tag(log, interval(2.0, 5.0)) here, tag(log, interval(0.3, 5.0)) by "
        "the study; give this sweep a study of its own, e.g. "
        "hydra.sweeper.study_name=tune_sa_eternity2_like_smoke-2,",
    )
    assert not (tmp_path / "b" / "optimization_results.yaml").exists()
    storage = f"sqlite:///{tmp_path}/studies.db"
    assert len(optuna.load_study(study_name="tune_sa_eternity2_like_smoke", storage=storage).trials) == 2
    # the study it suggests is this sweep's own: its best is in the interval it searched
    own = run_app(
        *SMOKE,
        shared,
        hot,
        "hydra.sweeper.study_name=tune_sa_eternity2_like_smoke-2",
        f"hydra.sweep.dir={tmp_path / 'b'}",
    )
    assert own.returncode == 0, own.stderr
    tuned = yaml.safe_load((tmp_path / "b" / "configs" / "optimizer" / "sa_compiled_tuned.yaml").read_text())
    assert 2.0 <= tuned["t_start"] <= 5.0
    assert set(pd.read_csv(tmp_path / "b" / "trials.csv")["study"]) == {"tune_sa_eternity2_like_smoke-2"}


@pytest.mark.slow
def test_the_same_identity_resumes_and_an_edited_study_is_refused_in_its_folder(tmp_path):
    first = run_app(*TUNE, "hydra.sweeper.n_trials=2", f"hydra.sweep.dir={tmp_path}")
    assert first.returncode == 0, first.stderr
    edited = [
        *(t for t in TUNE if not t.startswith("optimizer.t_end=")),
        "optimizer.t_end=tag(log, interval(0.01, 0.5))",
    ]
    refused = run_app(*edited, "hydra.sweeper.n_trials=3", f"hydra.sweep.dir={tmp_path}")
    assert_one_line(
        refused,
        "optimizer.t_end searched in tag(log, interval(0.01, 0.5)) here, tag(log, interval(0.01, 0.3)) by "
        "the study; give this sweep a study of its own, e.g. "
        f"hydra.sweeper.study_name={tmp_path.parent.name}/"
        f"{tmp_path.name}-2 hydra.sweep.dir={tmp_path.with_name(tmp_path.name + '-2')}, or sweep with the",
    )
    longer = run_app(
        *TUNE, "hydra.sweeper.n_trials=3", "budget.evaluations=4000", f"hydra.sweep.dir={tmp_path}"
    )
    assert_one_line(longer, "budget.evaluations=4000 here, 3000 in the study")
    assert len(trials_of(tmp_path)) == 2
    again = run_app(*TUNE, "hydra.sweeper.n_trials=3", f"hydra.sweep.dir={tmp_path}")
    assert again.returncode == 0, again.stderr
    assert "2 of 3 trials complete, 1 to run" in again.stdout
    assert [t.state.name for t in trials_of(tmp_path)] == ["COMPLETE"] * 3


@pytest.mark.slow
def test_a_cut_journal_is_cut_back_and_the_same_command_continues_the_study(tmp_path):
    journal = [*TUNE, "hydra.sweeper.storage=journal", f"hydra.sweep.dir={tmp_path}"]
    first = run_app(*journal, "hydra.sweeper.n_trials=2")
    assert first.returncode == 0, first.stderr
    path = tmp_path / "optuna.journal"
    path.write_bytes(path.read_bytes()[:-25])  # the sweep killed while it told Optuna its last trial
    again = run_app(*journal, "hydra.sweeper.n_trials=3")
    assert again.returncode == 0, again.stderr
    assert (
        f"note: the journal {path} ended in a cut record" in again.stderr and "Traceback" not in again.stderr
    )
    assert "1 left running by a stopped sweep, run again" in again.stdout  # its cut record told it, so again
    study = optuna.load_study(
        study_name=None,
        storage=optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(str(path))),
    )
    assert [t.state.name for t in study.trials] == ["COMPLETE"] * 3


@pytest.mark.slow
def test_a_stop_while_the_sweep_writes_its_end_keeps_its_trials_and_tuned_settings(tmp_path):
    command = [
        sys.executable,
        "-m",
        "experiments.run",
        *TUNE,
        "hydra.sweeper.n_trials=1",
        f"hydra.sweep.dir={tmp_path}",
    ]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if "Best trial 0" in line:  # the sweep's end has begun: its files, then the report
            proc.send_signal(signal.SIGTERM)
            break
    out, err = proc.communicate(timeout=120)
    assert proc.returncode in (130, 128 + signal.SIGTERM) and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("interrupted"), err  # one line on how to finish
    assert pd.read_csv(tmp_path / "trials.csv")["trial"].tolist() == [0]
    assert (tmp_path / "configs" / "optimizer" / "sa_compiled_tuned.yaml").is_file()
    assert not (
        tmp_path / "sweep.lock"
    ).exists()  # no stale lock: the next sweep of the folder says nothing of one


def test_a_single_tuning_run_from_the_command_line_scores_its_trial(tmp_path):
    """task=tune run once, outside a sweep: its job has no number (hydra.job.num is missing), which
    once raised a traceback instead of recording the trial."""
    from tests.experiments.test_bad_input import run_forked

    args = ["task=tune", "puzzle=queens", "puzzle.n=8", "optimizer=lahc", "budget.evaluations=200"]
    proc = run_forked([*args, "task.seeds=[0,1]", "task.race=off", f"hydra.run.dir={tmp_path}"], tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "median over 2 of 2 runs" in proc.stdout, proc.stdout
    trial = pd.read_parquet(next(tmp_path.rglob("trial.parquet"))).iloc[0]
    assert pd.isna(trial["trial"]) and trial["runs"] == 2
