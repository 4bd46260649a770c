"""What a run can do: `task` in the config names one of these `run(cfg, run_dir) -> row` functions.

Each task writes its own record into `run_dir` and returns the run's one-row summary (a dict).
Add a task with one line here and a module beside this one.
"""
from __future__ import annotations

import importlib
from typing import Callable

from core import InputError

TASKS = {
    "optimise": "experiments.tasks.optimise",
    "colour_sweep": "experiments.tasks.colour_sweep",
    "calendar_date": "experiments.tasks.calendar_date",
    "calendar_all_dates": "experiments.tasks.calendar_year",
    "pentomino_rectangles": "experiments.tasks.pentomino_rectangles",
    "galakub": "experiments.tasks.galakub",
}


def get_task(name: str) -> Callable:
    """The `run` function of a task, or a clear error naming the known tasks."""
    if name not in TASKS:
        raise InputError(f"unknown task {name!r}; choose one of {sorted(TASKS)}")
    return importlib.import_module(TASKS[name]).run
