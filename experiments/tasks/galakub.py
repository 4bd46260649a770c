"""Task `galakub`: every solution of the Galakub cube, and the seed's three figures.

    python -m experiments.run +experiment=galakub

Config `galakub`: reflections (may pieces be mirrored? default false: real pieces cannot be).
Writes galakub.parquet + .csv (raw, distinct, up_to_rotation, seconds), a picture of one filling
layer by layer, and the run record; prints the figures beside the seed's (576, 8, 1).
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pandas as pd
from omegaconf import DictConfig

from experiments import exact
from experiments.records import write_figure, write_record, write_table
from experiments.build import task_settings
from puzzles.galakub import draw

DEFAULTS = {"reflections": False}
SEED = {"raw": 576, "distinct": 8, "up_to_rotation": 1}


def run(cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
    """Solve the cube completely, then write its figures and a picture."""
    reflections = bool(task_settings(cfg, "galakub", DEFAULTS)["reflections"])
    start = time.perf_counter()
    figures, packing, owners = exact.galakub_figures(reflections)
    seconds = time.perf_counter() - start
    write_table(pd.DataFrame([{**figures, "seconds": seconds}]), run_dir / "galakub.parquet")
    write_figure(draw(packing, owners[0], title=f"Galakub: one of {figures['distinct']} fillings"),
                 run_dir / "galakub.png")
    row = {"status": "ok", "error": None, "task": "galakub", "reflections": reflections,
           **figures, "matches_seed": figures == SEED, "seconds": seconds}
    write_record(run_dir, row)
    print(f"Galakub: {figures['raw']} raw, {figures['distinct']} distinct, "
          f"{figures['up_to_rotation']} up to rotation (seed: 576, 8, 1) in {seconds:.2f} s")
    return row
