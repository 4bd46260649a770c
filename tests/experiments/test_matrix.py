"""Every optimiser config on every puzzle config, through the app's task, with tiny budgets.

Each pair ends in a run record or a one-line refusal, never a traceback. The pairs are read from the
config folders, so a new YAML file is covered without touching this test (nevergrad keeps the same
kind of test over its registry).
"""

from __future__ import annotations

import traceback
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException

from core import progress
from core.errors import InputError
from core.faces import Face
from experiments.pairing import COMPILED, compatibility_table, config_classes, needs, offers
from experiments.run import run_task, setup
from experiments.schema import CONFIG_DIR

TINY = ("budget.evaluations=60", "budget.seconds=0.5", "progress=false")


def names(group: str) -> list[str]:
    """Every config of a group, sub-folders included (packing/free6), as the command line names them."""
    root = CONFIG_DIR / group
    return sorted(p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.yaml"))


def run_pair(optimizer: str, puzzle: str, out: Path) -> tuple[str, str]:
    """("ok" | "refused" | "traceback" | "lost", detail) of one pair run as `python -m experiments.run`
    runs it; "lost" when the record keeps a worse best than the live line (the solvers' tally) or the
    trace showed."""
    run_dir = out / f"{optimizer}__{puzzle}".replace("/", "_")
    run_dir.mkdir(parents=True)
    try:
        GlobalHydra.instance().clear()
        with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
            cfg = compose("config", overrides=[f"optimizer={optimizer}", f"puzzle={puzzle}", *TINY])
        cfg.choices = {"puzzle": puzzle, "optimizer": optimizer, "task": "optimise"}
        row = run_task(cfg, run_dir)
    except (InputError, OmegaConfBaseException) as err:
        return "refused", str(err)
    except Exception:
        return "traceback", traceback.format_exc()
    shown = min(progress.tally().best, pd.read_parquet(run_dir / "trace.parquet")["best"].min())
    if row["best"] > shown:  # the live line or the trace showed a board the record does not keep
        return "lost", f"recorded best {row['best']:g}, but the run showed {shown:g}"
    return "ok", f"best {row['best']} after {row['evaluations']} {row['evaluation_kind']}"


OPTIMIZERS, PUZZLES = config_classes("optimizer"), config_classes("puzzle")


@pytest.fixture(autouse=True, scope="module")
def app_set_up():
    """Schemas and resolvers registered, pictures drawn to files: what `main` does before Hydra runs."""
    setup()


def puzzle_tiers(optimizer: str) -> tuple[list[str], list[str]]:
    """The puzzle configs split in two. The fast tier: the first config of each puzzle class whose class
    does not offer the optimiser's face (each refused in one line, before any work) and of those that
    do, one run. The slow tier: every other config (each class run, and the variants packing/*, ...)."""
    first: dict[type, str] = {}
    for name in sorted(names("puzzle"), key=lambda name: ("/" in name, name)):  # packing/* last
        first.setdefault(PUZZLES[name], name)
    face = needs(OPTIMIZERS[optimizer])
    refused = [name for name in first.values() if face not in offers(PUZZLES[name])]
    ran = [name for name in first.values() if face in offers(PUZZLES[name])][:1]
    return refused + ran, [name for name in names("puzzle") if name not in refused + ran]


@pytest.mark.parametrize(
    "optimizer, puzzles",
    [pytest.param(o, puzzle_tiers(o)[0], id=o) for o in names("optimizer")]
    + [
        pytest.param(o, puzzle_tiers(o)[1], id=f"{o}-rest", marks=pytest.mark.slow)
        for o in names("optimizer")
    ],
)
def test_every_puzzle_runs_or_refuses_in_one_line(optimizer, puzzles, tmp_path):
    """No traceback; the record keeps at least the best the run showed; a pair whose declared faces do not meet is refused by the compatibility line; a
    generic optimiser runs on every puzzle offering its face, and a compiled one too unless a setting of
    its own is refused (start=greedy on a face without a greedy board); a constructive solver may refuse
    a board too large to search, in one line."""
    face = needs(OPTIMIZERS[optimizer])
    ran = []
    for puzzle in puzzles:
        outcome, detail = run_pair(optimizer, puzzle, tmp_path)
        assert outcome not in ("traceback", "lost"), f"optimizer={optimizer} puzzle={puzzle}:\n{detail}"
        if outcome == "refused":
            assert detail and "\n" not in detail, (puzzle, detail)
        if face not in offers(PUZZLES[puzzle]):
            assert outcome == "refused" and f"which puzzle={puzzle} does not offer" in detail, (
                puzzle,
                detail,
            )
        elif face is Face.FITNESS or (face in COMPILED and "optimizer." not in detail):
            assert outcome == "ok", (puzzle, detail)  # a compiled one may refuse a setting (start=greedy)
        ran += [puzzle] if outcome == "ok" else []
    if any(face in offers(PUZZLES[p]) for p in puzzles):  # the seed's greedy builds no genome: it runs
        repeats = OmegaConf.load(CONFIG_DIR / "optimizer" / f"{optimizer}.yaml").get("seed_faithful", False)
        assert bool(ran) != repeats, ran


def test_the_docs_table_is_the_declarations():
    page = (CONFIG_DIR.parent / "docs" / "optimizers.md").read_text()
    shown = page.split("<!-- compatibility:start -->\n")[1].split("\n<!-- compatibility:end -->")[0]
    assert shown == compatibility_table(), "regenerate it with: python -m experiments.pairing"


def test_the_docs_settings_table_is_the_code():
    from experiments.schema import settings_table

    page = (CONFIG_DIR.parent / "docs" / "optimizers.md").read_text()
    shown = page.split("<!-- settings:start -->\n")[1].split("\n<!-- settings:end -->")[0]
    assert shown == settings_table(), "regenerate it with: python -m experiments.schema"
    assert "`window_lns` | `size=2`" in shown  # a constructor default reaches the table
    assert "`sa_compiled_eternity2_like` | `t_start=0.3833`" in shown  # a variant's YAML overrides it
