"""The first hour (issue 44): an optimiser that cannot count evaluations runs for a time its class
states, the run's first line says so, a long run shows a live line (in a log file, a line every few
seconds), and an edge-matching board is reported in matched joins, as the docs speak of it."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import time

import pytest
from hydra.utils import get_object

from core import progress
from core.space import Budget
from experiments.live import LiveLine
from experiments.run import settle_budget
from experiments.schema import DEFAULT_EVALUATIONS
from tests import ROOT


@pytest.mark.parametrize(
    "optimizer, seconds",
    [
        ("beam", 60),
        ("breaks", 60),
        ("portfolio", 600),
        ("plateau_lns", 120),
        ("backtrack", 300),
        ("ga", None),
    ],
)
def test_a_run_without_a_budget_gets_its_optimisers_own(compose_config, optimizer, seconds):
    cfg = compose_config("puzzle=eternity2", f"optimizer={optimizer}")
    cfg.choices = {"optimizer": optimizer}
    line = settle_budget(cfg)
    assert getattr(get_object(cfg.optimizer._target_), "default_seconds", None) == seconds
    if seconds is None:
        assert cfg.budget.evaluations == DEFAULT_EVALUATIONS and cfg.budget.seconds is None
        assert line.startswith(f"budget: {DEFAULT_EVALUATIONS:,} evaluations (the default")
    else:
        assert cfg.budget.seconds == seconds and cfg.budget.evaluations is None  # config.yaml re-runs it
        assert line.startswith(f"budget: {seconds} s (the default of optimizer={optimizer};")


def test_a_budget_the_user_sets_is_the_budget(compose_config):
    cfg = compose_config("puzzle=eternity2", "optimizer=breaks", "budget.evaluations=1")
    cfg.choices = {"optimizer": "breaks"}
    assert settle_budget(cfg) == "budget: 1 evaluation" and cfg.budget.seconds is None


@pytest.mark.slow
def test_a_long_run_into_a_log_file_prints_a_line_every_few_seconds(tmp_path):
    log = tmp_path / "err.log"
    with open(log, "w") as err:
        done = subprocess.run(
            [sys.executable, "-m", "experiments.run", "puzzle=eternity2_like", "puzzle.n=10", "optimizer=breaks",
             "budget.seconds=12", f"hydra.run.dir={tmp_path / 'run'}"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True, timeout=300,
        )  # fmt: skip
    assert done.returncode == 0, log.read_text()
    text = log.read_text()
    assert "\r" not in text  # a file gets lines, not a terminal's redraws
    lines = re.findall(r"breaks seed 0: 0:(\d\d) elapsed, 0:\d\d left; best (.*)", text)
    assert len(lines) >= 2 and all(int(a) < int(b) for (a, _), (b, _) in zip(lines, lines[1:]))
    assert all(
        re.fullmatch(r"\d+ of 180 joins matched \(\d+ unmatched\), [\d.]+[kMG]? node/s", b)
        for _, b in lines[1:]
    )
    summary = done.stdout.strip().splitlines()[-1]
    assert re.search(
        r"\| breaks \| seed 0: best (\d+) of 180 joins matched \((\d+) unmatched\); known optimum 180",
        summary,
    )


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_bar_with_the_time_left_and_the_best_so_far():
    stream = Terminal()
    describe = lambda value: f"{480 - value:g} of 480 joins matched"  # noqa: E731
    with LiveLine("breaks seed 0", Budget(seconds=60), describe, stream=stream):
        time.sleep(0.7)
        progress.report(5_000_000, 20, "node")
        time.sleep(1.2)
    shown = stream.getvalue()
    assert "breaks seed 0:" in shown and "<00:5" in shown  # elapsed < remaining, as tqdm shows them
    assert "best none yet" in shown and "best 460 of 480 joins matched" in shown and "node/s" in shown
