"""Run records: the files one run leaves in its directory, written atomically (write, then rename).

A run directory holds `config.yaml` (resolved, enough to re-run it), `run.parquet` + `run.csv`
(one row), `trace.parquet` + `trace.csv` (one row per improvement) and pictures. `run.parquet` is
written last, so its presence means the record is complete.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Callable

import pandas as pd
from omegaconf import DictConfig, OmegaConf

RUN, TRACE, CONFIG = "run.parquet", "trace.parquet", "config.yaml"


def atomic_write(path: Path, write: Callable[[Path], Any]) -> None:
    """Call `write(tmp)` on a temporary file beside `path`, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write_table(df: pd.DataFrame, path: Path, csv: bool = True) -> None:
    """A table as Parquet (and CSV beside it), each written atomically."""
    atomic_write(path, lambda tmp: df.to_parquet(tmp, index=False))
    if csv:
        atomic_write(path.with_suffix(".csv"), lambda tmp: df.to_csv(tmp, index=False))


def write_config(cfg: DictConfig, run_dir: Path) -> None:
    """The resolved config, so the run can be repeated from this directory alone."""
    text = OmegaConf.to_yaml(cfg, resolve=True)
    atomic_write(run_dir / CONFIG, lambda tmp: tmp.write_text(text))


def write_figure(fig, path: Path) -> None:
    """Save and close a matplotlib figure."""
    import matplotlib.pyplot as plt

    atomic_write(path, lambda tmp: fig.savefig(tmp, format=path.suffix[1:], dpi=120, bbox_inches="tight"))
    plt.close(fig)


def write_record(run_dir: Path, row: dict[str, Any], trace: pd.DataFrame | None = None) -> None:
    """The run's row and trace; the row goes last and marks the record complete."""
    if trace is not None:
        write_table(trace, run_dir / TRACE)
    write_table(pd.DataFrame([row]), run_dir / RUN)


def is_complete(run_dir: Path) -> bool:
    """Has this run finished writing its record (successfully or as a recorded failure)?"""
    return (Path(run_dir) / RUN).is_file()


def flatten(prefix: str, params: dict[str, Any]) -> dict[str, Any]:
    """{'width': 6} -> {'puzzle.width': 6}, with nested values written as strings."""
    return {f"{prefix}.{k}": (v if isinstance(v, (int, float, str, bool)) or v is None else str(v))
            for k, v in params.items() if not k.startswith("_")}
