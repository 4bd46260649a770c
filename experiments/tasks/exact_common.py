"""What the exact-solver tasks share: their settings node, and HTML tables in the run directory."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from omegaconf import DictConfig, OmegaConf

from experiments.records import atomic_write
from puzzles.errors import PuzzleInputError


def settings(cfg: DictConfig, node: str, defaults: dict[str, Any]) -> dict[str, Any]:
    """The `node` settings with defaults filled in; unknown keys are refused in one line."""
    given = OmegaConf.to_container(cfg[node], resolve=True) if node in cfg else {}
    unknown = set(given) - set(defaults)
    if unknown:
        raise PuzzleInputError(
            f"unknown {node} setting(s) {sorted(unknown)}; known: {sorted(defaults)}")
    return {**defaults, **given}


def write_html(table: pd.DataFrame, path: Path, title: str) -> None:
    """A table as a small standalone HTML page."""
    page = f"<html><head><meta charset='utf-8'><title>{title}</title></head><body>" \
           f"<h1>{title}</h1>{table.to_html(na_rep='')}</body></html>\n"
    atomic_write(path, lambda tmp: tmp.write_text(page))
