"""`reproduce` compares every table a run writes (issue 31): a colour sweep's points, an exact task's
tables, each Parquet file and its CSV copy, beside the run's row and trace; an edited cell is named by
table, column and row, and timing columns (wall and CPU seconds) are never compared."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from experiments.reproduce import main, plain
from tests.experiments.test_sweeps import app

COLOUR_SWEEP = [
    "task=colour_sweep",
    "puzzle=edge_matching",
    "puzzle.n=5",
    "optimizer=sa",
    "task.optimizer_points=3",
    "budget.evaluations=300",
    "seed=2",
]


def run(out: Path, *overrides: str) -> Path:
    proc = app(*overrides, f"hydra.run.dir={out}")
    assert proc.returncode == 0, proc.stderr
    return out


def reproduce(run_dir: Path, capsys) -> tuple[int, list[str]]:
    """Exit status and printed lines of `python -m experiments.reproduce <run_dir>`, in-process."""
    try:
        main([str(run_dir)])
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0) if not isinstance(exit_.code, str) else 1
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out.splitlines()


def edit(path: Path, column: str, row: int, value) -> tuple[object, object]:
    """Change one cell of a table (Parquet or CSV); its old and new values."""
    table = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    old = table.loc[row, column]
    table.loc[row, column] = value
    if path.suffix == ".parquet":
        table.to_parquet(path, index=False)
    else:
        table.to_csv(path, index=False)
    return old, value


@pytest.fixture(scope="module")
def colour_run(tmp_path_factory) -> Path:
    return run(tmp_path_factory.mktemp("colour") / "run", *COLOUR_SWEEP)


@pytest.mark.slow
def test_an_edited_colour_sweep_table_is_not_reproduced(colour_run, tmp_path, capsys):
    proc = app(str(colour_run), module="experiments.reproduce")  # the entry point, untouched: the same
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == (
        f"reproduced: {colour_run} (every table the same, timing columns aside: run.parquet, "
        "colour_sweep.parquet and their CSVs)"
    )

    table = colour_run / "colour_sweep.parquet"
    original = table.read_bytes()
    edit(table, "seconds", 0, 123.0)  # timing: the machine's, not compared
    edit(table, "cpu_seconds", 1, 456.0)
    assert reproduce(colour_run, capsys) == (0, [proc.stdout.strip()])

    saved, _ = edit(table, "match_rate", 1, 0.25)
    code, lines = reproduce(colour_run, capsys)
    assert code == 1
    assert lines == [
        f"NOT reproduced: {colour_run}",
        f"  colour_sweep.parquet: match_rate differs first at row 1: saved 0.25, now {plain(saved)!r}",
    ]
    table.write_bytes(original)

    csv = colour_run / "colour_sweep.csv"
    text = csv.read_text()
    saved, _ = edit(csv, "unmatched_edges", 2, 999)
    code, lines = reproduce(colour_run, capsys)
    assert code == 1 and lines[1:] == [
        f"  colour_sweep.csv: unmatched_edges differs first at row 2: saved 999, now {plain(saved)!r}"
    ]
    csv.write_text(text)
    (colour_run / "colour_sweep.parquet").unlink()
    code, lines = reproduce(colour_run, capsys)
    assert code == 1 and lines[1:] == ["  colour_sweep.parquet: written now, not in the saved run"]
    table.write_bytes(original)
    assert reproduce(colour_run, capsys)[0] == 0


@pytest.mark.slow
@pytest.mark.parametrize(
    "overrides, name, column",
    [
        (
            ["task=exact", "puzzle=edge_matching", "puzzle.n=3", "puzzle.colours=3"],
            "exact.parquet",
            "perfect_boards",
        ),
        (["task=exact", "puzzle=queens", "puzzle.n=6"], "queens.parquet", "solutions"),
    ],
    ids=["exact board", "exact cases"],
)
def test_an_edited_exact_table_is_not_reproduced(tmp_path, capsys, overrides, name, column):
    run_dir = run(tmp_path / "run", *overrides)
    assert reproduce(run_dir, capsys)[0] == 0
    edit(run_dir / name, "seconds", 0, 99.0)  # timing columns of a task's own table: not compared
    assert reproduce(run_dir, capsys)[0] == 0
    saved, _ = edit(run_dir / name, column, 0, 77)
    code, lines = reproduce(run_dir, capsys)
    assert code == 1
    assert lines[1:] == [f"  {name}: {column} differs first at row 0: saved 77, now {plain(saved)!r}"]
