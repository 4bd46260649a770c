"""Task `calendar_date`: solve one date of the calendar puzzle and draw it with its labels.

    python -m experiments.run +experiment=calendar date=2026-11-21
    python -m experiments.run +experiment=calendar_weekday date=2026-11-21

Config: `date` (YYYY-MM-DD or MM-DD; null: today) and `calendar`: board (classic | weekday),
weekday (for a MM-DD date on the weekday board), draw (how many solutions to draw), count (also
count every solution), backend (algorithm_x | ilp | cpsat). Writes solution_<k>.png and the run
record (the date, the solution count, seconds), and prints the first solution as text.
"""
from __future__ import annotations

import datetime as dt
import time
from pathlib import Path
from typing import Any

from omegaconf import DictConfig

from experiments import exact
from experiments.records import write_config, write_figure, write_record
from experiments.build import task_settings
from puzzles.calendar import WEEKDAYS, Calendar, parse_date

DEFAULTS = {"board": "classic", "weekday": None, "draw": 1, "count": True, "backend": "algorithm_x"}


def run(cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
    """Solve the date, draw up to `draw` solutions, count them all, write the record."""
    s = task_settings(cfg, "calendar", DEFAULTS)
    if cfg.get("date") is None:  # "today": save the date itself, so the run can be repeated tomorrow
        cfg.date = dt.date.today().isoformat()
        write_config(cfg, run_dir)
    cal = Calendar(s["board"])
    day = parse_date(cfg.get("date"), s["weekday"])
    model = cal.cover(day)
    start = time.perf_counter()
    found = list(exact.solve(cal.packing, model, s["backend"], max(1, int(s["draw"]))))
    total = exact.count(model, s["backend"]) if s["count"] else None
    seconds = time.perf_counter() - start
    for k, owner in enumerate(found[: int(s["draw"])], 1):
        of = f" of {total}" if total is not None else ""
        write_figure(cal.draw(owner, day, title=f"{day}: solution {k}{of}"),
                     run_dir / f"solution_{k}.png")
    row = {"status": "ok", "error": None, "task": "calendar_date", "board": cal.name,
           "month": day.month, "day": day.day,
           "weekday": WEEKDAYS[day.weekday] if cal.weekdays else None,
           "backend": s["backend"], "solutions": total, "solved": bool(found), "seconds": seconds}
    write_record(run_dir, row)
    print(f"{day}: {total if total is not None else 'some'} solutions ({s['board']} board)"
          if found else f"{day}: no solution")
    if found:
        print(cal.text(found[0]))
    return row
