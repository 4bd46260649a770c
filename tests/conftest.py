"""Shared fixtures: configs composed in-process, as the app composes them."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

from experiments.run import setup
from experiments.schema import CONFIG_DIR
from puzzles.calendar import Calendar


@pytest.fixture(scope="session")
def compose_config():
    """compose(overrides) -> the config the app would run, schemas and resolvers registered."""
    setup()

    def composed(*overrides: str):
        GlobalHydra.instance().clear()
        with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
            return compose("config", overrides=list(overrides))

    return composed


@pytest.fixture(scope="session")
def classic():
    """The classic calendar board (seed 000), built once for every test that needs it."""
    return Calendar("classic")


@pytest.fixture(scope="session")
def weekday():
    """The weekday calendar board (seed 004), built once for every test that needs it."""
    return Calendar("weekday")
