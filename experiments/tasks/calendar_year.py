"""Task `calendar_all_dates`: count the solutions of every date of a (leap) year.

    python -m experiments.run +experiment=calendar_all_dates
    python -m experiments.run +experiment=calendar_weekday_all_dates calendar.limit=100

Config `calendar`: board (classic | weekday: then every date with each of the 7 weekdays), year
(default 2024, a leap year), limit (count at most this many per date: "find up to K"; null: all),
backend (algorithm_x | ilp | cpsat). Writes calendar_counts.parquet + .csv (month, day[, weekday],
solutions), calendar_counts.html (month x day), calendar_heatmap.png and the run record.
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
from puzzles.calendar import LEAP_YEAR, Calendar, heatmap, year_days, year_pivot

DEFAULTS = {"board": "classic", "year": LEAP_YEAR, "limit": None, "backend": "algorithm_x"}


def run(cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
    """Count every date (with a progress bar), then write the table, its HTML and a heatmap."""
    s = task_settings(cfg, "calendar", DEFAULTS)
    cal = Calendar(s["board"])
    days = year_days(int(s["year"]))
    dates = list(cal.all_weekdays(days)) if cal.weekdays else days
    start = time.perf_counter()
    rows = exact.count_days(cal, tqdm(dates, disable=not cfg.progress, unit="date", leave=False,
                                      desc=f"{cal.name} {s['year']}"), s["limit"], s["backend"])
    table = pd.DataFrame(list(rows))
    seconds = time.perf_counter() - start
    capped = f", at most {s['limit']} each" if s["limit"] else ""
    write_table(table, run_dir / "calendar_counts.parquet")
    write_html(year_pivot(table, by_weekday=cal.weekdays), run_dir / "calendar_counts.html",
               f"Calendar puzzle ({cal.name}): solutions per date, {s['year']}{capped}")
    write_figure(heatmap(table, f"{cal.name} board, {s['year']}: solutions per date{capped}"
                         + (" (sum over weekdays)" if cal.weekdays else "")),
                 run_dir / "calendar_heatmap.png")
    row = {"status": "ok", "error": None, "task": "calendar_all_dates", "board": cal.name,
           "year": int(s["year"]), "limit": s["limit"], "backend": s["backend"],
           "dates": len(table), "total_solutions": int(table.solutions.sum()),
           "min_solutions": int(table.solutions.min()), "max_solutions": int(table.solutions.max()),
           "unsolvable_dates": int((table.solutions == 0).sum()), "seconds": seconds}
    write_record(run_dir, row)
    print(f"{len(table)} dates, {row['total_solutions']} solutions{capped} "
          f"(min {row['min_solutions']}, max {row['max_solutions']}) in {seconds:.1f} s")
    return row
