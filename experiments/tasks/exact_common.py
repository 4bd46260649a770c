"""What the exact-solver tasks share: HTML tables in the run directory."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from experiments.records import atomic_write


def write_html(table: pd.DataFrame, path: Path, title: str) -> None:
    """A table as a small standalone HTML page."""
    page = f"<html><head><meta charset='utf-8'><title>{title}</title></head><body>" \
           f"<h1>{title}</h1>{table.to_html(na_rep='')}</body></html>\n"
    atomic_write(path, lambda tmp: tmp.write_text(page))
