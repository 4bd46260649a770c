"""hydra/sweeper=optuna's pieces (hydra_plugins/puzzlelab_sweeper): Hydra's sweep syntax as Optuna
distributions, every sampler name builds (GP only with torch, else one line), a mistake is one line, a
job's outcome is an objective or a FAIL."""

from __future__ import annotations

import importlib.util

import optuna
import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.core.utils import JobReturn, JobStatus
from hydra.errors import (
    HydraException,  # not the plugin's SweeperError: Hydra's plugin scan may import its module twice
)
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

from experiments.schema import CONFIG_DIR
from hydra_plugins.puzzlelab_sweeper.optuna_sweeper import OptunaSweeper
from hydra_plugins.puzzlelab_sweeper.samplers import SAMPLERS, make_sampler
from hydra_plugins.puzzlelab_sweeper.search_space import search_space
from hydra_plugins.puzzlelab_sweeper.trials import contiguous, objective

SPACE = {"optimizer.t_start": FloatDistribution(0.1, 1.0), "optimizer.period": IntDistribution(1, 4)}


def test_hydra_sweep_syntax_becomes_optuna_distributions():
    space, fixed = search_space(
        [
            "optimizer.t_start=interval(0.1, 1.0)",
            "optimizer.t_end=tag(log, interval(0.01, 0.3))",
            "optimizer.period=tag(int, log, interval(1000, 100000))",
            "optimizer.cooling=choice(geometric, linear)",
            "optimizer.moves=1,2,4",
            "optimizer.chains=range(1, 5)",
            "optimizer.alpha=range(0, 1, 0.25)",
            "puzzle=eternity2_like",
            "optimizer.x=interval(0, 1)",  # hydra.sweeper.params ...
            "optimizer.x=0.5",  # ... and the command line fixing it: fixed wins
        ]
    )
    assert space == {
        "optimizer.t_start": FloatDistribution(0.1, 1.0),
        "optimizer.t_end": FloatDistribution(0.01, 0.3, log=True),
        "optimizer.period": IntDistribution(1000, 100000, log=True),
        "optimizer.cooling": CategoricalDistribution(["geometric", "linear"]),
        "optimizer.moves": CategoricalDistribution([1, 2, 4]),
        "optimizer.chains": IntDistribution(1, 4),  # Hydra's range ends before its stop
        "optimizer.alpha": CategoricalDistribution([0.0, 0.25, 0.5, 0.75]),
    }
    assert fixed == ["puzzle=eternity2_like", "optimizer.x=0.5"]


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_each_sampler_name_builds(name):
    space = (
        {"a": CategoricalDistribution([1, 2]), "b": IntDistribution(0, 6, step=3)}
        if name == "grid"
        else SPACE
    )
    spec = {"name": name, "seed": 0}
    if name == "gp" and importlib.util.find_spec("torch") is None:
        with pytest.raises(HydraException) as refused:
            make_sampler(spec, space)
        assert str(refused.value) == (
            "hydra.sweeper.sampler.name=gp needs torch, which is not installed: pip install torch "
            "(or use another sampler)"
        )
        return
    sampler = make_sampler(spec, space)
    assert type(sampler).__name__ == SAMPLERS[name]
    if name == "grid":  # the grid is every listed value of each setting
        assert sorted(sampler._all_grids) == [(a, b) for a in (1, 2) for b in (0, 3, 6)]


def test_sampler_mistakes_are_one_line():
    with pytest.raises(
        HydraException,
        match=r"^hydra.sweeper.sampler.name=bayes is not a sampler here; use one of tpe, cmaes, random, grid, gp$",
    ):
        make_sampler({"name": "bayes"}, SPACE)
    with pytest.raises(
        HydraException,
        match=r"^hydra.sweeper.sampler.name=grid needs listed values: give optimizer.t_start as choice",
    ):
        make_sampler({"name": "grid"}, SPACE)
    with pytest.raises(HydraException, match=r"^hydra.sweeper.sampler: TPESampler: .*n_startup"):
        make_sampler({"name": "tpe", "n_startup": 3}, SPACE)
    assert make_sampler({"name": "TPE", "n_startup_trials": 3, "seed": 1}, SPACE)._n_startup_trials == 3
    with pytest.raises(
        HydraException, match=r"^hydra.sweeper: cannot search 'x=tag\(log, interval\(0.0, 1.0\)\)'"
    ):
        search_space(["x=tag(log, interval(0.0, 1.0))"])


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"direction": "down"}, "hydra.sweeper.direction must be minimize or maximize, got down"),
        ({"n_trials": -1}, "hydra.sweeper.n_trials must be a whole number >= 0, got -1"),
        ({"n_jobs": 0}, "hydra.sweeper.n_jobs must be a whole number >= 1, got 0"),
    ],
)
def test_sweeper_settings_are_checked_in_one_line(settings, message):
    with pytest.raises(HydraException) as err:
        OptunaSweeper(sampler={"name": "tpe"}, **settings).check()
    assert str(err.value) == message


def job(value=None, error=None):
    ret = JobReturn()
    ret.status = JobStatus.FAILED if error else JobStatus.COMPLETED
    ret.return_value = error or value
    return ret


def test_a_job_outcome_is_an_objective_or_a_fail():
    assert objective(job(3)) == (3.0, "")
    assert objective(job(None))[0] is None  # a failed run returns None
    assert objective(job(float("nan"))) == (None, "its objective is NaN")
    assert objective(job("x")) == (None, "it returned 'x', not a number")
    assert objective(job(error=RuntimeError("boom\nmore"))) == (None, "it raised RuntimeError: boom")


def test_jobs_are_numbered_by_their_trials():
    batch = [(4, {}), (5, {}), (7, {}), (8, {})]  # another process took trial 6
    assert [[n for n, _ in group] for group in contiguous(batch)] == [[4, 5], [7, 8]]


@pytest.mark.slow
def test_the_sweeper_is_registered_as_optuna(compose_config):
    compose_config()  # the app's schemas and resolvers
    GlobalHydra.instance().clear()
    with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
        overrides = ["hydra/sweeper=optuna", "hydra.sweeper.sampler.name=cmaes"]
        sweeper = compose("config", overrides=overrides, return_hydra_config=True).hydra.sweeper
    assert sweeper._target_ == "hydra_plugins.puzzlelab_sweeper.optuna_sweeper.OptunaSweeper"
    assert sweeper.sampler.name == "cmaes" and sweeper.storage == "sqlite:///{sweep_dir}/optuna.db"
    assert optuna.__version__ >= "4"
