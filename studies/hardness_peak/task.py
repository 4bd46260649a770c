"""Task `hardness_peak`: one (board size, instance seed) of planted Eternity-II-like boards over many
inner colour counts -> one table row per board.

    python -m experiments.run +experiment=hardness_peak

For each inner colour count the puzzle config (`puzzle=eternity2_like`: frame and inner palettes, a
known perfect board) is built with that count, and the board measures itself under node caps (the
puzzle's `hardness`: its family's exact search on one thread, the same nodes on every run). Writes
`hardness_peak.parquet` (+ CSV, columns COLUMNS, its clocks TIMING: table.py) and a one-row run record naming
the search (the board's `hardness_search`) as its optimizer; the sweep's report
(`HardnessPeak.report_section`: report.py and plot.py beside this file) joins every run's rows into one table, a plot per size and its
section of report.md. Why a run per instance seed, every colour count inside: each run then holds
easy and hard boards alike, so the runs the launcher spreads over the cores take about as long.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pandas as pd
from omegaconf import DictConfig, OmegaConf

from core import interrupt
from core.errors import InputError, whole
from experiments.build import build, component_name, config_columns, settings
from experiments.live import steps
from experiments.records import RunRecord, write_record, write_table
from experiments.schema import CONFIG_DIR, component
from experiments.tasks import Section, Task
from studies.hardness_peak.table import COLUMNS, TABLE, TIMING


def check_cap(key: str, value: Any, what: str) -> None:
    """A node cap is a whole number of at least 1."""
    if not (whole(value) and value >= 1):
        raise InputError(f"task.{key} must be a whole number of at least 1 ({what}), got {value!r}")


class HardnessPeak(Task):
    """Measure every inner colour count's board, then write the table and the run record.

    Args:
        colours: the inner colour counts (2 or more: one colour matches every inner join).
        max_nodes: the node cap on the search for a board's first perfect board.
        count_nodes: the node cap on counting its perfect boards (null: no count).
        order: the search's scan order; auto (as task=exact): the smallest estimated tree.
    """

    budgeted = False  # node caps of its own (task.max_nodes, task.count_nodes): no budget

    @classmethod
    def report_section(cls, roots, out, study, runs, skipped) -> Section | None:
        """The boards as one table, its summary, a plot per size and report.md's section."""
        from studies.hardness_peak.report import section

        return section(roots, out, study, runs, skipped)

    def __init__(
        self,
        colours: tuple[int, ...] = tuple(range(2, 21)),
        max_nodes: int = 300_000_000,
        count_nodes: int | None = 20_000_000,
        order: str = "auto",
    ):
        if not isinstance(colours, (list, tuple)) or not colours:
            raise InputError(
                f"task.colours must list inner colour counts, e.g. task.colours=[2,4,8], got {colours!r}"
            )
        wrong = [c for c in colours if not (whole(c) and c >= 2)]
        if wrong:
            raise InputError(
                f"task.colours: {', '.join(map(str, wrong))} is not an inner colour count of 2 or more "
                "(one colour matches every join); list counts from 2, e.g. task.colours=[2,4,8]"
            )
        check_cap("max_nodes", max_nodes, "search nodes to a board's first perfect board")
        if count_nodes is not None:
            check_cap(
                "count_nodes", count_nodes, "search nodes to count a board's perfect boards; null: no count"
            )
        self.colours = sorted(set(colours))
        self.max_nodes, self.count_nodes, self.order = max_nodes, count_nodes, order

    def boards(self, cfg: DictConfig) -> tuple[dict[str, Any], Any]:
        """The puzzle's settings with the frame palette fixed (the size's default when not given),
        and the first board; a one-line error for a puzzle this task cannot plant."""
        base = settings(cfg.puzzle, "puzzle")
        kind = component(base["_target_"], CONFIG_DIR) if "_target_" in base else None
        if not (isinstance(kind, type) and hasattr(kind, "hardness") and hasattr(kind, "check_hardness")):
            chosen = OmegaConf.select(cfg, "choices.puzzle") or base.get("_target_", "?")
            raise InputError(
                f"task=hardness_peak plants boards with a known perfect board, which puzzle={chosen} does "
                "not; use puzzle=eternity2_like (e.g. puzzle=eternity2_like puzzle.n=6)"
            )
        probe = build(OmegaConf.create({**base, "inner_colours": self.colours[0]}), "puzzle")
        kind.check_hardness(probe.n, probe.m, self.colours, self.order)
        return {**base, "frame_colours": probe.frame_colours}, probe

    def __call__(self, cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
        base, first = self.boards(cfg)
        rows: list[dict[str, Any]] = []
        start, cpu_start = time.perf_counter(), time.process_time()
        desc = f"hardness n={base['n']} instance {base['instance_seed']}"
        for colours in steps(self.colours, desc, cfg.progress, unit="board"):
            if interrupt.requested():  # Ctrl-C: the boards measured so far are the record
                break
            board = build(OmegaConf.create({**base, "inner_colours": colours}), "puzzle")
            row = board.hardness(self.max_nodes, self.count_nodes, self.order)
            if interrupt.requested():  # stopped inside this board's search: not a figure of it
                break
            rows.append(row)
        table = pd.DataFrame(rows, columns=COLUMNS)
        write_table(table, run_dir / TABLE, timing=TIMING)
        config = config_columns(cfg, ("puzzle", "task"))
        config.pop("puzzle.inner_colours", None)  # the sweep's axis, a column of the table
        config["puzzle.frame_colours"] = first.frame_colours  # the size's default when not given
        record = RunRecord(  # the search named: a report's table would read a missing optimizer as nan
            "hardness_peak",
            int(cfg.seed),
            component_name(cfg, "puzzle", first),
            first.hardness_search,
            config=config,
        )
        record.seconds, record.cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
        record.extra = {"boards": len(table), "solved": int(table["solved"].sum())}
        if interrupt.requested():
            record.extra["stop_reason"] = "interrupted"
        return write_record(run_dir, record)
