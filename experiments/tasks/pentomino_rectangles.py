"""Task `pentomino_rectangles`: Knuth's table of pentomino rectangles, computed exactly.

    python -m experiments.run +experiment=pentomino_rectangles

Config `rectangles`: boards (default: 3x20, 4x15, 5x12, 6x10, 8x8-centre). Counts are raw (every
tiling) and up to the board's symmetry (rotations and reflections), Knuth's figures beside them.
Writes rectangles.parquet + .csv + .html, one picture of a tiling per board, and the run record;
prints the table.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pandas as pd
from omegaconf import DictConfig
from tqdm import tqdm

from experiments import exact
from experiments.records import write_figure, write_record, write_table
from experiments.build import task_settings
from experiments.tasks.exact_common import write_html
from puzzles.pictures import draw_grid
from puzzles.rectangles import BOARDS, rectangle

DEFAULTS = {"boards": list(BOARDS)}


def run(cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
    """Count every board's tilings, draw one tiling of each, write and print the table."""
    boards = task_settings(cfg, "rectangles", DEFAULTS)["boards"]
    start = time.perf_counter()
    rows = [exact.rectangle_row(name) for name in tqdm(boards, disable=not cfg.progress,
                                                        unit="board", leave=False)]
    table = pd.DataFrame(rows)
    for name in boards:
        packing = rectangle(name)
        owner = next(exact.solve(packing, packing.cover()))
        write_figure(draw_grid(packing.grid(owner), title=f"pentominoes, {name}"),
                     run_dir / f"rectangle_{name}.png")
    write_table(table, run_dir / "rectangles.parquet")
    write_html(table.set_index("board"), run_dir / "rectangles.html",
               "Pentomino rectangles: tilings, raw and up to symmetry")
    agree = bool(((table.raw == table.knuth_raw)
                  & (table.up_to_symmetry == table.knuth_up_to_symmetry)).all())
    row = {"status": "ok", "error": None, "task": "pentomino_rectangles", "boards": len(table),
           "agrees_with_knuth": agree, "seconds": time.perf_counter() - start}
    write_record(run_dir, row)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    return row
