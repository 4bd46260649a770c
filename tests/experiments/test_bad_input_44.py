"""Issue 44's bad inputs end in one line, never a traceback, a hang or a silent no-op.

The run's cases go through `experiments.run` forked, as tests/experiments/test_bad_input.py runs them (its
helpers); experiments.reproduce and experiments.iohprofiler are called at their own entry point,
`main(argv)`, in-process, and once each as `python -m`.
"""

from __future__ import annotations

import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest
import yaml

from puzzles.pieces import connected_parts, parse_pieces
from tests import ROOT
from tests.experiments.test_bad_input import assert_one_line, command, needs_fork, run_forked

ONE_PIECE = b"# order: left top right bottom\n0 0 0 0\n"
SPLIT = b"1 I\n#####\n\n2 X\n##.#\n"  # piece 2 is two parts, side by side but not touching

FILES: dict[str, bytes | None] = {
    "one_piece.txt": ONE_PIECE,
    "split.txt": SPLIT,
    "a_file": b"not a folder\n",
}

TUNE = "-m +experiment=tune_sa_eternity2_like smoke=on hydra.sweep.dir={tmp} hydra.sweeper.storage="
EDGE_FILE = "puzzle=edge_matching puzzle.generator=file puzzle.fix_centre=false puzzle.pieces_file={inputs}/"
E2_LIKE = "puzzle=eternity2_like puzzle.frame_colours=5 puzzle.inner_colours=20"
TOO_BIG = "needs about 200,000.0 GB of memory to build and run, more than the"
no_psycopg = pytest.mark.skipif(find_spec("psycopg") is not None, reason="needs PostgreSQL's driver absent")

CASES = [
    # the Optuna sweeper's storage (hydra_plugins/puzzlelab_sweeper/optuna_sweeper.py)
    (TUNE + "notaurl", "hydra.sweeper.storage=notaurl is not a database URL; give one such as sqlite:///"),
    pytest.param(
        TUNE + "postgresql://u:p@localhost/db",
        "storage=postgresql://u:***@localhost/db: its database driver is not installed (no module psycopg): "
        "pip install psycopg",
        marks=no_psycopg,
    ),
    (TUNE + "sqlite:///{inputs}/a_file/x/optuna.db", "cannot make the folder"),
    (TUNE + "journal:{inputs}/a_file/optuna.journal", "cannot make the folder"),
    # racing over instances (experiments/racing.py): checked before the first trial
    (TUNE + "null", "task.race=wilcoxon compares each trial with the study's best, which its job must read"),
    (TUNE + "journal task.race=frace", "task.race must be one of wilcoxon, elitist, off, got 'frace'"),
    (TUNE + "journal task.race_p=1.5", "task.race_p must be between 0 and 1 (e.g. 0.1), got 1.5"),
    (TUNE + "null task.race=elitist", "task.race=elitist compares each trial with the study's best"),
    (
        TUNE + "journal task.race=elitist task.race_ties=0",
        "task.race_ties must be a whole number >= 1 (tests without elimination before a tied trial "
        "stops), got 0",
    ),
    (
        TUNE + "journal task.race=elitist task.race_survivors=0",
        "task.race_survivors must be a whole number >= 1",
    ),
    (TUNE + "journal task.race_after=1", "task.race_after must be a whole number >= 2"),
    # a board with no joins (puzzles/edge_matching/instances.py): its scores would divide by 0
    ("task=exact puzzle=edge_matching puzzle.n=1", "puzzle.n must be at least 2"),
    ("task=exact " + EDGE_FILE + "one_piece.txt", "one_piece.txt: a 1 x 1 board has no joins to match"),
    (EDGE_FILE + "one_piece.txt", "one_piece.txt: a 1 x 1 board has no joins to match"),
    (
        "task=exact puzzle=eternity2 puzzle.starter=false puzzle.pieces_file={inputs}/one_piece.txt",
        "a 1 x 1 board has no joins",
    ),
    # boards the memory cannot hold, refused before they are built (it hung, growing past 7 GB)
    (
        "puzzle=edge_matching puzzle.n=100000",
        "puzzle.n: a 100,000 x 100,000 board (10,000,000,000 pieces) " + TOO_BIG,
    ),
    (
        E2_LIKE + " puzzle.n=100000",
        "puzzle.n, puzzle.m: a 100,000 x 100,000 board (10,000,000,000 pieces) " + TOO_BIG,
    ),
    (
        E2_LIKE + " puzzle.n=4 puzzle.m=2500000000",
        "a 4 x 2,500,000,000 board (10,000,000,000 pieces) " + TOO_BIG,
    ),
    # a colour quota that cannot act (puzzles/edge_matching/solvers/breaks.py)
    (
        "puzzle=eternity2 optimizer=breaks optimizer.quota=[99,98,97]",
        "optimizer.quota: colours 97, 98, 99 are not on this board, whose colours are 1-5 on the frame "
        "and 6-22 inside",
    ),
    ("puzzle=eternity2 optimizer=breaks optimizer.quota=[5,23]", "colour 23 is not on this board"),
    # the portfolio's backtracker: named where the portfolio takes it, and no + hint (its keys are fixed)
    (
        "puzzle=eternity2 optimizer=portfolio optimizer.breaks.quota=[99]",
        "optimizer.breaks.quota: colour 99 is not",
    ),
    # a piece in two parts (puzzles/pieces.py)
    (
        "puzzle=pentomino puzzle.pieces={inputs}/split.txt",
        "split.txt:4: piece 2 X: its cells are not connected",
    ),
]


@pytest.fixture(scope="module", autouse=True)
def warm() -> None:
    """The app's setup, once: each forked case then starts in a fraction of a second."""
    from experiments.run import setup

    setup()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("bad_inputs_44")
    for name, content in FILES.items():
        assert content is not None
        (folder / name).write_bytes(content)
    return folder


def case_id(case) -> str:
    args = case.values[0] if hasattr(case, "values") else case[0]
    return args.replace("{tmp}", "").replace("{inputs}/", "")[-60:]


FAST = (
    "puzzle.n=100000",
    "quota=[99,98,97]",
)  # the fast tier's cases: a hang refused, a silent setting named


def tiered(case):
    """A case, marked slow unless it is one of FAST."""
    values, marks = (case.values, list(case.marks)) if hasattr(case, "values") else (case, [])
    fast = any(values[0].endswith(key) for key in FAST)
    return pytest.param(*values, marks=marks if fast else [*marks, pytest.mark.slow])


@needs_fork
@pytest.mark.parametrize(
    "args, expected",
    [tiered(case) for case in CASES],
    ids=[case_id(c) for c in CASES],
)
def test_a_mistake_ends_in_one_line(args, expected, tmp_path, inputs):
    assert_one_line(run_forked(command(args, tmp_path, inputs), tmp_path), expected)


@needs_fork
def test_a_part_the_portfolio_composes_takes_its_own_settings_only(tmp_path, inputs):
    """No '+ to add it' hint: the backtracker refuses a key it does not take, added or not."""
    proc = run_forked(
        command("puzzle=eternity2 optimizer=portfolio optimizer.breaks.nosuch=3", tmp_path, inputs), tmp_path
    )
    assert_one_line(proc, "optimizer.breaks has no setting 'nosuch'; it takes: order, tail, schedule")
    assert proc.stderr.rstrip().endswith(", probe_batches")


@needs_fork
def test_a_board_is_bounded_by_the_memory_there_is(tmp_path, inputs, monkeypatch):
    """A 3000 x 3000 board on a machine with 8 GB free: refused at once, with the largest that fits."""
    monkeypatch.setattr("puzzles.edge_matching.instances.available_memory", lambda: 8 * 10**9)
    proc = run_forked(command("puzzle=edge_matching puzzle.n=3000", tmp_path, inputs), tmp_path)
    assert_one_line(
        proc,
        "puzzle.n: a 3,000 x 3,000 board (9,000,000 pieces) needs about 180.0 GB of memory to build and run, "
        "more than the 8.0 GB available; use at most about 400,000 pieces (a 632 x 632 board)",
    )


def test_3d_pieces_join_by_faces_only():
    """Layers join where their cells stack; cells that meet at an edge or a corner do not join."""
    assert connected_parts(np.array([[0, 0, 0], [1, 0, 0], [1, 0, 1]])) == 1
    assert connected_parts(np.array([[0, 0, 0], [1, 0, 1]])) == 2
    assert connected_parts(np.array([[0, 0], [1, 1]])) == 2
    assert len(parse_pieces("1 L\n#.\n~\n##\n")) == 1
    with pytest.raises(ValueError, match="piece 1 Q: its cells are not connected"):
        parse_pieces("1 Q\n#.\n~\n.#\n")


# --------------------------------------------------------------- experiments.reproduce and .iohprofiler

A_RUN = {  # a finished run's config.yaml as the app writes it
    "budget": {"evaluations": 20, "seconds": None, "target": None, "stop_at_optimum": True},
    "puzzle": {"_target_": "puzzles.edge_matching.EdgeMatching", "n": 3, "colours": 4},
    "optimizer": {"_target_": "heuristics.random_search.RandomSearch"},
    "task": {"_target_": "experiments.tasks.optimise.Optimise"},
    "seed": 0,
    "progress": False,
}
BROKEN = {
    "not YAML": ("budget: [1, 2\n  x: : y\n", "config.yaml cannot be read as YAML (expected ',' or ']'"),
    "not text": ("\x89PNG\x00", "config.yaml cannot be read as YAML"),
    "empty": (
        "",
        "config.yaml has no seed, puzzle._target_, task._target_; it is not the config the run saved",
    ),
    "no task": (
        yaml.safe_dump({k: v for k, v in A_RUN.items() if k != "task"}),
        "config.yaml has no task._target_",
    ),
    "no optimizer": (
        yaml.safe_dump({k: v for k, v in A_RUN.items() if k != "optimizer"}),
        "config.yaml: Missing key optimizer; it is not the config the run saved",
    ),
}


def ends_in_one_line(main, argv: list[str], capsys) -> str:
    """Call an entry point that must fail: its exit message is one `error:` line, and nothing else
    said on stderr is a traceback."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    message = exit_.value.code
    assert isinstance(message, str) and message.startswith("error: ") and "\n" not in message, message
    assert "Traceback" not in capsys.readouterr().err
    return message


@pytest.mark.parametrize("name", BROKEN)
def test_reproduce_a_broken_config_says_so_in_one_line(name, tmp_path, capsys):
    from experiments.reproduce import main

    text, expected = BROKEN[name]
    (tmp_path / "config.yaml").write_bytes(text.encode("latin-1"))
    (tmp_path / "run.parquet").write_bytes(b"")
    assert expected in ends_in_one_line(main, [str(tmp_path)], capsys)


def python_m(module: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_reproduce_through_python_m(tmp_path):
    (tmp_path / "config.yaml").write_text(BROKEN["not YAML"][0])
    (tmp_path / "run.parquet").write_bytes(b"")
    assert_one_line(python_m("experiments.reproduce", str(tmp_path)), BROKEN["not YAML"][1])


@pytest.fixture(scope="module")
def runs(tmp_path_factory, inputs) -> Path:
    """A folder holding one finished run, for the IOHprofiler export."""
    folder = tmp_path_factory.mktemp("runs")
    args = "puzzle=edge_matching puzzle.n=3 puzzle.colours=4 optimizer=random_search budget.evaluations=20"
    proc = run_forked(command(f"{args} progress=false hydra.run.dir={{tmp}}/run", folder, inputs), folder)
    assert proc.returncode == 0, proc.stderr
    return folder


@needs_fork
def test_iohprofiler_makes_the_folders_of_a_new_out(runs, tmp_path, capsys):
    from experiments.iohprofiler import main

    out = tmp_path / "missing_parent" / "child" / "out"
    main([str(runs), "--out", str(out)])
    assert (out / "random_search").is_dir() and out.with_suffix(".zip").is_file()
    (tmp_path / "a_file").write_text("not a folder\n")
    message = ends_in_one_line(main, [str(runs), "--out", str(tmp_path / "a_file" / "child" / "out")], capsys)
    assert message.startswith(f"error: cannot write {tmp_path / 'a_file' / 'child' / 'out'}: Not a directory")


@needs_fork
def test_iohprofiler_through_python_m(runs, tmp_path):
    out = tmp_path / "missing_parent" / "child" / "out"
    proc = python_m("experiments.iohprofiler", str(runs), "--out", str(out))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert (out / "random_search").is_dir()
