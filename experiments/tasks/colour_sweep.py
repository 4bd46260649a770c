"""Task `colour_sweep`: one (board size, solver, instance seed) over many colour counts -> one table.

For each colour count the puzzle config is built with that count, then solved by the configured
optimizer: the greedy (`optimizer=greedy` / `greedy_faithful`) builds its board directly, a
metaheuristic runs under the budget with the unmatched inner edges as fitness. Writes
`colour_sweep.parquet` (+ CSV: one row per colour count, see experiments/colour_sweep.py), pictures
of the boards at `sweep.pictures`, and a one-row run record.

Config (`sweep`, all optional): colours (a list; null: the seed's 2..2n(n-1)), points (greedy:
that many log-spaced counts instead of all), optimiser_points (the same for metaheuristics, whose
every point is a full run; default 16), pictures (colour counts whose board is drawn).
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pandas as pd
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from tqdm import tqdm

from experiments.build import build, make_budget, task_settings
from experiments.colour_sweep import TABLE, point, seed_colours
from experiments.greedy_solver import GreedySolver
from experiments.records import flatten, write_figure, write_record, write_table
from heuristics.minimize import minimize
from puzzles.edge_matching import EdgeMatching
from core import InputError

DEFAULTS = {"colours": None, "points": None, "optimiser_points": 16, "pictures": []}


def colour_counts(sweep: dict[str, Any], n: int, greedy: bool) -> list[int]:
    """The colour counts to solve: the given list, or the seed's range (all, or log-spaced points)."""
    if sweep["colours"] is not None:
        if not isinstance(sweep["colours"], list) or not all(isinstance(c, int) for c in sweep["colours"]):
            raise InputError(f"sweep.colours must be a list of counts such as [20], got {sweep['colours']!r}")
        return sweep["colours"]
    return seed_colours(n, sweep["points"] if greedy else sweep["optimiser_points"])


def label(optimizer) -> str:
    """The optimizer's config name (e.g. two_opt_swap), which tells variants of one class apart."""
    try:
        return HydraConfig.get().runtime.choices.get("optimizer") or optimizer.name
    except ValueError:  # not inside a Hydra app
        return optimizer.name


def solve(puzzle: EdgeMatching, optimizer, cfg: DictConfig) -> tuple[Any, dict[str, Any]]:
    """The board the optimizer finds, with what it cost (evaluations and stop reason for metaheuristics)."""
    if isinstance(optimizer, GreedySolver):
        return optimizer.solve(puzzle), {"evaluations": None, "stop_reason": "finished"}
    budget = make_budget(cfg.budget, puzzle.known_optimum)
    result = minimize(puzzle.fitness, puzzle.space, optimizer, budget, int(cfg.seed))
    return puzzle.decode(result.best_genome), {"evaluations": result.evaluations, "stop_reason": result.stop_reason}


def warm_up(puzzle: EdgeMatching, optimizer) -> None:
    """Compile (or load numba's cache) before any clock starts, so the first colour count pays no extra."""
    if isinstance(optimizer, GreedySolver):
        optimizer.solve(puzzle)
    else:
        puzzle.fitness(puzzle.space.identity())


def run(cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
    """Solve every colour count, then write the table, the pictures and the run record."""
    sweep, optimizer = task_settings(cfg, "sweep", DEFAULTS), build(cfg.optimizer, "optimizer")
    base = OmegaConf.to_container(cfg.puzzle, resolve=True)
    counts = [base["colours"]] if base.get("generator") == "file" else \
        colour_counts(sweep, int(base["n"]), isinstance(optimizer, GreedySolver))
    warm_up(build(OmegaConf.create({**base, "colours": counts[0]}), "puzzle"), optimizer)
    rows, start, name = [], time.perf_counter(), label(optimizer)
    for colours in tqdm(counts, disable=not cfg.progress, desc=f"{name} n={base['n']}", leave=False):
        puzzle = build(OmegaConf.create({**base, "colours": colours}), "puzzle")
        clock = time.perf_counter()
        layout, cost = solve(puzzle, optimizer, cfg)
        rows.append({**point(puzzle, layout, name, time.perf_counter() - clock), **cost})
        if colours in sweep["pictures"]:
            write_figure(puzzle.draw(layout), run_dir / f"board_colours={colours}.png")
    table = pd.DataFrame(rows)
    write_table(table, run_dir / TABLE)
    row = {"status": "ok", "error": None, "task": "colour_sweep", "puzzle": EdgeMatching.name,
           **flatten("puzzle", {k: v for k, v in base.items() if k != "colours"}),
           "optimizer": name, "seed": int(cfg.seed), "points": len(table),
           "mean_match_rate": float(table["match_rate"].mean()),
           "mean_edge_score": float(table["edge_score"].mean()), "seconds": time.perf_counter() - start}
    write_record(run_dir, row)
    return row
