"""What a run can do: the `task` config group (configs/task/) builds one of these classes.

A task takes its typed settings in its constructor and is called with the whole config and the run
directory; it writes the run's record there and returns its row. Add a generic task with a class here
and a YAML in configs/task/ that names it in `_target_`; a study's own task lives in its folder under
studies/ with its configs (studies/__init__.py), named the same way.

What the app must know of a task before building it is a trait its class declares (`Task`'s class
attributes, each default here once), read with `trait` from the class the config names: never from
the class's name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class Section:
    """A study's part of a sweep's report (what `Task.report_section` returns).

    Attributes:
        lines: its section of report.md (Markdown lines).
        caption: the report's head when no run has a best score (the study's budget or caps said).
        what: what the runs are, for the report's one console line ("a colour sweep: ...").
    """

    lines: list[str] = field(default_factory=list)
    caption: str = ""
    what: str = ""


class Task:
    """The traits every task has, with their defaults; a task class overrides those that differ.

    Attributes:
        budgeted: it runs under `budget` (evaluations or seconds), so a single run prints the budget in
            force; False for a task with caps of its own (task.max_nodes), to which that line is noise.
        tuning: each run is a trial of a tuning sweep, whose end writes the tuned optimizer YAML
            (experiments/callbacks.py).
        races: its jobs report each run to the study the sweeper keeps, which may stop a trial early
            (experiments/racing.py).
        report_section: the hook the generic report (experiments/report.py) calls once for a sweep holding
            this task's runs, with the sweep's folders, where to write, the study (`study_of`), the
            runs table and the pictures not drawn (to add to); it writes the study's own tables and
            pictures and returns its `Section`, or None (nothing of its own: the default). A study's
            task names its own report here, so the generic report imports no study.
    """

    budgeted: bool = True
    tuning: bool = False
    races: bool = False

    @classmethod
    def report_section(
        cls,
        roots: Sequence[Path],
        out: Path,
        study: dict[str, Any],
        runs: pd.DataFrame,
        skipped: dict[str, str],
    ) -> Section | None:
        return None


def trait(node: Any, name: str) -> Any:
    """Trait `name` of the task class that config `node` names (`cfg.task`), else its default on `Task`
    (a class outside this package, or one that does not import: building it says why)."""
    from experiments.build import named_class

    default = getattr(Task, name)
    found = named_class(node)
    return default if found is None else getattr(found, name, default)
