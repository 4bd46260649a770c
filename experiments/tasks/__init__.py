"""What a run can do: the `task` config group (configs/task/) builds one of these classes.

A task takes its typed settings in its constructor and is called with the whole config and the run
directory; it writes the run's record there and returns its row. Add a task with a class here and a
YAML in configs/task/ that names it in `_target_`.

What the app must know of a task before building it is a trait its class declares (`Task`'s class
attributes, each default here once), read with `trait` from the class the config names: never from
the class's name.
"""

from __future__ import annotations

from typing import Any


class Task:
    """The traits every task has, with their defaults; a task class overrides those that differ.

    Attributes:
        budgeted: it runs under `budget` (evaluations or seconds), so a single run prints the budget in
            force; False for a task with caps of its own (task.max_nodes), to which that line is noise.
        tuning: each run is a trial of a tuning sweep, whose end writes the tuned optimizer YAML
            (experiments/callbacks.py).
        races: its jobs report each run to the study the sweeper keeps, which may stop a trial early
            (experiments/racing.py).
    """

    budgeted: bool = True
    tuning: bool = False
    races: bool = False


def trait(node: Any, name: str) -> Any:
    """Trait `name` of the task class that config `node` names (`cfg.task`), else its default on `Task`
    (a class outside this package, or one that does not import: building it says why)."""
    from experiments.build import named_class

    default = getattr(Task, name)
    found = named_class(node)
    return default if found is None else getattr(found, name, default)
