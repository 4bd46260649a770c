"""Hydra callbacks: at the end of a multirun, gather the sweep into one table and plots (and, after a
tuning sweep, write the best settings as an optimizer YAML)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig


class ReportCallback(Callback):
    """Write the sweep's tables, plots and report beside its runs."""

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        from experiments.report import report

        sweep_dir = Path(config.hydra.sweep.dir)
        if sweep_dir.is_dir():
            out = report([sweep_dir])
            print(f"sweep report -> {out}")
        if config.get("task", {}).get("_target_", "").endswith(".Tune"):
            from experiments.tasks.tune import write_tuned

            base = config.hydra.runtime.choices.get("optimizer")
            tuned = write_tuned(sweep_dir, base, config.task)
            if tuned:
                print(f"tuned settings -> {tuned} (trials: {sweep_dir / 'trials.csv'})")
