"""Task `exact`: every case of an exact puzzle (`core.faces.ExactPuzzle`) solved by an exact backend.

    python -m experiments.run +experiment=calendar date=2026-11-21
    python -m experiments.run +experiment=pentomino_rectangles task.backend=cpsat

The puzzle names its cases and their cover models; this task solves each (counting, or keeping
every solution when the puzzle's figures need them), gathers one table row per case (the case's
key and its figures), and writes the files the puzzle's report names, then the run record.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import pandas as pd
from omegaconf import DictConfig

from core import interrupt
from core.errors import InputError
from core.exact import CaseAnswer
from core.faces import ExactPuzzle, Face
from experiments.build import build, component_name, config_columns
from experiments.live import steps
from experiments.pairing import offers, puzzles_offering
from experiments.records import (
    RunRecord,
    atomic_write,
    write_picture,
    write_record,
    write_table,
)
from experiments.tasks import Task
from heuristics import exact_backends
from heuristics.exact_cover import solution_limit

# The machine's clocks in every table this task writes (a case's seconds, a board's answer and the
# share of its threads' time in jobs): reproduce skips them.
TIMING = ("seconds", "cpu_seconds", "busy")


class Exact(Task):
    """Solve an exact puzzle's cases, then write its table, pictures and run record.

    Args:
        backend: "algorithm_x" (the exact-cover engine), "ilp" (PuLP + CBC, seed 000) or
            "cpsat" (OR-tools CP-SAT, seed 004).
        limit: stop each case at this many solutions ("find up to K"); None: find them all.
        draw: keep this many solutions of each case for the puzzle's pictures.
        count: count every solution of each case (puzzles whose figures need every solution
            always find them all).
        max_nodes, seconds: a board puzzle only (its `exact_report`, e.g. edge matching's): stop the
            search there and report what it proved.
        threads: an edge-matching board's search threads (null: every core); the same answer on any number.
    """

    budgeted = False  # caps of its own (task.limit, task.max_nodes, task.seconds): no budget

    def __init__(
        self,
        backend: str = "algorithm_x",
        limit: int | None = None,
        draw: int = 1,
        count: bool = True,
        max_nodes: int | None = None,
        seconds: float | None = None,
        threads: int | None = None,
    ):
        exact_backends.check_backend(backend)
        if limit is not None:
            solution_limit(limit)
        if draw < 0:
            raise InputError(f"task.draw must be 0 or more, got {draw}")
        if draw == 0 and not count:
            raise InputError("nothing to do: set task.count=true or task.draw >= 1")
        if max_nodes is not None and max_nodes < 1 or seconds is not None and seconds <= 0:
            raise InputError(f"task.max_nodes and task.seconds must be positive, got {max_nodes}, {seconds}")
        if threads is not None and threads < 1:
            raise InputError(f"task.threads must be 1 or more (or null: every core), got {threads}")
        self.backend, self.limit, self.draw, self.count = backend, limit, draw, count
        self.max_nodes, self.seconds, self.threads = max_nodes, seconds, threads

    def solve(self, puzzle: ExactPuzzle, case: dict[str, Any]) -> CaseAnswer:
        """One case's answer: its count and the solutions kept, as the puzzle's own rows."""
        model = puzzle.model(case)
        start, cpu_start = time.perf_counter(), time.process_time()
        if puzzle.needs_solutions:
            found = list(exact_backends.solutions(model, self.backend, self.limit))
            count: int | None = len(found)
        else:
            found = list(exact_backends.solutions(model, self.backend, self.draw)) if self.draw else []
            count = exact_backends.count(model, self.backend, self.limit) if self.count else None
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
        return CaseAnswer(case, count, [model.rows[s] for s in found], seconds, self.limit, cpu_seconds)

    def table(
        self, puzzle: ExactPuzzle, cases: list[dict[str, Any]] | None = None, progress: bool = False
    ) -> tuple[pd.DataFrame, list[CaseAnswer]]:
        """Every case solved: one row (key, figures) each, and the answers with `draw` kept."""
        rows, answers = [], []
        cases = puzzle.cases() if cases is None else cases
        for case in steps(cases, puzzle.name, progress and len(cases) >= 2, unit="case"):
            if interrupt.requested():  # Ctrl-C: the cases solved so far are the answer
                break
            answer = self.solve(puzzle, case)
            timing = {"seconds": answer.seconds, "cpu_seconds": answer.cpu_seconds}  # every case's table
            rows.append({**case, **puzzle.figures(answer), **timing})
            answers.append(dataclasses.replace(answer, solutions=answer.solutions[: self.draw]))
        return pd.DataFrame(rows), answers

    def __call__(self, cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
        puzzle = build(cfg.puzzle, "puzzle")
        if Face.EXACT not in offers(puzzle) and Face.BOARD not in offers(puzzle):
            raise InputError(
                f"task=exact needs {Face.EXACT.value} or {Face.BOARD.value}, which "
                f"puzzle={component_name(cfg, 'puzzle', puzzle)} does not offer (puzzles that do: "
                f"{', '.join(sorted(puzzles_offering(Face.EXACT) + puzzles_offering(Face.BOARD)))})"
            )
        start, cpu_start = time.perf_counter(), time.process_time()
        if Face.EXACT in offers(puzzle):
            table, answers = self.table(puzzle, progress=cfg.progress)
            report = puzzle.report(table, answers)
        else:  # a board puzzle answers by its own exact search (ConstructivePuzzle.exact_report)
            report = puzzle.exact_report(
                self.limit, self.draw, self.max_nodes, self.seconds, self.threads, cfg.progress
            )
        for name, content in report.files.items():
            write_file(run_dir / name, content)
        figures, text = report.figures, report.text
        if interrupt.requested():
            figures = {**figures, "stop_reason": "interrupted"}
        record = RunRecord(
            task="exact",
            seed=int(cfg.seed),
            puzzle=component_name(cfg, "puzzle", puzzle),
            config=config_columns(cfg, ("puzzle", "task")),
            seconds=time.perf_counter() - start,
            cpu_seconds=time.process_time() - cpu_start,
            extra=figures,
        )
        row = write_record(run_dir, record, timing=TIMING)
        print(text)
        return row


def write_file(path: Path, content: Any) -> None:
    """One file of a report: a table (.parquet and .csv), a titled page (.html), a picture."""
    if path.suffix == ".parquet":
        write_table(content, path, timing=TIMING)
    elif path.suffix == ".html":
        title, table = content
        write_html(title, table, path)
    else:
        write_picture(content, path)


def write_html(title: str, table: pd.DataFrame, path: Path) -> None:
    """A table as a small standalone HTML page."""
    page = (
        f"<html><head><meta charset='utf-8'><title>{title}</title></head><body>"
        f"<h1>{title}</h1>{table.to_html(na_rep='')}</body></html>\n"
    )
    atomic_write(path, lambda tmp: tmp.write_text(page))
