"""Mistakes a user can make on the command line end in one line, never a traceback (issue 31).

Each case is a command line of `python -m experiments.run` and a piece of the one line it must print:
the app exits non-zero, its last line on stderr is that `error: ...` line (the only one), and stderr
holds no traceback and none of Hydra's multi-line messages.

To add a case, append (args, expected) to CASES. In args, `{tmp}` is the test's own folder (give every
run `hydra.run.dir={tmp}` or `hydra.sweep.dir={tmp}`) and `{inputs}` the folder of FILES, the bad files
cases read (add one there: name -> bytes, or None for a folder).

Why forked: each case runs the app's entry point, `experiments.run.main`, as the command line would,
in a child forked from this process, which has imported the app once: about half a second a case
instead of three for a fresh interpreter. One case also runs as a real subprocess, so the fork stands
in for `python -m` faithfully. Each case is its own test, so pytest-xdist spreads them.
"""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

from tests import ROOT

# The 16 pieces of a 2 x 8 board (4 corners, 12 edge pieces, no inner one), listed left top right bottom.
TWO_BY_EIGHT = [
    "0 0 2 1", "2 0 2 2", "2 0 3 2", "3 0 3 2", "3 0 1 1", "1 0 1 1", "1 0 3 3", "3 0 0 3",
    "0 1 3 0", "3 2 1 0", "1 2 1 0", "1 2 3 0", "3 1 2 0", "2 1 1 0", "1 3 3 0", "3 3 0 0",
]  # fmt: skip
ORDER = "# order: left top right bottom\n"


def _pieces(*lines: str) -> bytes:
    return (ORDER + "\n".join(lines) + "\n").encode()


FILES: dict[str, bytes | None] = {
    "picture.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "elf.bin": b"\x7fELF\x02\x01\x01\x00\x00\x00",
    "latin1.txt": ORDER.encode() + "# pi\xe8ces\n0 0 1 1\n".encode("latin-1"),
    "empty.txt": b"",
    "only_headers.txt": ORDER.encode() + b"# size: 4 x 4\n",
    "folder": None,
    "two_by_eight.txt": _pieces(*TWO_BY_EIGHT),
    "stated_four_by_four.txt": _pieces("# size: 4 x 4", *TWO_BY_EIGHT),
    "one_corner_recoloured.txt": _pieces(*TWO_BY_EIGHT[:-1], "3 3 1 0"),  # 3 corners, 13 edge pieces
    "two_by_eight_sized.txt": _pieces("# size: 2 x 8", *TWO_BY_EIGHT),  # fits, but not the starter
    "negative_size.txt": _pieces("# size: -4 x -4", *["1 2 3 4"] * 16),
}

PIECES = "puzzle=eternity2 optimizer=greedy puzzle.pieces_file={inputs}/"
SWEEP = "task=colour_sweep puzzle=edge_matching optimizer=greedy progress=false hydra.run.dir={tmp}"

CASES: list[tuple[str, str]] = [
    # the launcher (experiments/overrides.py, before Hydra runs)
    (
        "-m hydra.launcher.n_jobs=0 seed=0,1 hydra.sweep.dir={tmp}",
        "hydra.launcher.n_jobs=0 would run nothing",
    ),
    (
        "-m hydra.launcher.n_jobs=abc seed=0,1 hydra.sweep.dir={tmp}",
        "hydra.launcher.n_jobs must be a whole number",
    ),
    ("-m hydra.launcher.n_jobs=null seed=0,1 hydra.sweep.dir={tmp}", "hydra.launcher.n_jobs cannot be null"),
    (
        "-m hydra/launcher=basic hydra.launcher.n_jobs=2 seed=0,1 hydra.sweep.dir={tmp}",
        "the basic launcher has no setting 'n_jobs'",
    ),
    # the colour sweep (studies/colour_sweep/task.py)
    (
        f"{SWEEP} puzzle.n=1",
        "puzzle.n=1 leaves no inner edge to colour; the colour sweep needs puzzle.n >= 3",
    ),
    (f"{SWEEP} puzzle=eternity puzzle.n=1", "the colour sweep needs puzzle.n >= 2"),
    (f"{SWEEP} puzzle.n=0", "puzzle.n=0 leaves no inner edge"),
    (f"{SWEEP} puzzle.n=3 task.colours=[]", "task.colours is empty"),
    (f"{SWEEP} puzzle.n=3 task.colours=[2,13]", "task.colours: 13 colours cannot be dealt on a 3 x 3 board"),
    (f"{SWEEP} puzzle.n=3 task.colours=[0]", "list counts from 1 to 12"),
    (f"{SWEEP} puzzle.n=3 task.points=0", "task.points must be a whole number of at least 2"),
    (
        f"{SWEEP} puzzle.n=3 task.points=2.5",
        "task.points must be a whole number of at least 2 (log-spaced colour counts), got 2.5",
    ),
    (f"{SWEEP} puzzle.n=3 task.colours=5", "task.colours must be a list of colour counts"),
    (f"{SWEEP} puzzle.n=3 task.colours=[2.5]", "task.colours: 2.5 is not a colour count"),
    (f"{SWEEP} puzzle.n=3 task.pictures=5", "task.pictures must be a list"),
    (
        f"{SWEEP} puzzle.n=3 optimizer=ils_compiled task.compiled_evaluations=0",
        "task.compiled_evaluations must be",
    ),
    (
        "task=colour_sweep optimizer=greedy hydra.run.dir={tmp}",
        "sweeps the colour count of an edge-matching board, which puzzle=pentomino has not",
    ),
    # piece files (puzzles/edge_matching/piece_files.py)
    (PIECES + "picture.png", "picture.png: not a text piece file (byte 0x89 at offset 0, not UTF-8)"),
    (PIECES + "elf.bin", "elf.bin: not a text piece file (byte 0x00 at offset 7)"),
    (PIECES + "latin1.txt", "latin1.txt: not a text piece file (byte 0xe8 at offset 35, not UTF-8)"),
    (PIECES + "empty.txt", "empty.txt: no pieces"),
    (PIECES + "only_headers.txt", "only_headers.txt: no pieces"),
    (PIECES + "folder", "folder' is a folder, not a file"),
    (PIECES + "nowhere.txt", "nowhere.txt' not found"),
    (PIECES + "two_by_eight.txt", "these pieces fit a 2 x 8 board, not the 4 x 4 their count implies"),
    (PIECES + "two_by_eight.txt", "add the line '# size: 2 x 8'"),
    (PIECES + "stated_four_by_four.txt", "fit a 2 x 8 board, not the stated 4 x 4"),
    (PIECES + "one_corner_recoloured.txt", "these pieces fit no board (3 corners with two grey sides"),
    (PIECES + "two_by_eight_sized.txt", "set puzzle.starter=false"),
    (PIECES + "negative_size.txt", "negative_size.txt line 2: a board of -4 x -4 has no cells"),
    ("puzzle=eternity2_like puzzle.instance_seed=-1", "puzzle.instance_seed must be a whole number >= 0"),
    (
        "puzzle=edge_matching puzzle.generator=file puzzle.fix_centre=false optimizer=greedy "
        "puzzle.pieces_file={inputs}/two_by_eight.txt",
        "add the line '# size: 2 x 8'",
    ),
    # board files as a compiled optimiser's start (puzzles/edge_matching/board_files.py)
    (
        "puzzle=eternity2_like puzzle.n=4 optimizer=sa_compiled optimizer.start={inputs}/elf.bin",
        "elf.bin: not a text board file (byte 0x00 at offset 7)",
    ),
    (
        "puzzle=eternity2_like puzzle.n=4 optimizer=sa_compiled optimizer.start={inputs}/empty.txt",
        "empty.txt: no board rows",
    ),
]


@pytest.fixture(scope="module", autouse=True)
def warm() -> None:
    """What the app does before Hydra runs, done once here (`setup` imports every component to register
    its schema: seconds): each forked case then starts in a fraction of a second."""
    from experiments.run import setup

    setup()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """FILES written to one folder."""
    folder = tmp_path_factory.mktemp("bad_inputs")
    for name, content in FILES.items():
        if content is None:
            (folder / name).mkdir()
        else:
            (folder / name).write_bytes(content)
    return folder


def command(args: str, tmp: Path, inputs: Path) -> list[str]:
    """The case's command line as argv, its folders filled in; runs go to `tmp` unless the case says."""
    argv = args.format(tmp=tmp, inputs=inputs).split()
    if not any(a.startswith(("hydra.run.dir=", "hydra.sweep.dir=")) for a in argv):
        argv.append(f"hydra.run.dir={tmp}")
    return argv


def _as_main(argv: list[str]) -> None:
    """The app's entry point on this command line, run afresh as `python -m experiments.run` runs it."""
    sys.argv = [str(ROOT / "experiments" / "run.py"), *argv]
    from hydra.core.global_hydra import GlobalHydra

    GlobalHydra.instance().clear()
    sys.modules.pop("experiments.run", None)  # run afresh as __main__, as `python -m` does
    runpy.run_module("experiments.run", run_name="__main__", alter_sys=True)


FRESH = """
import pickle, sys
call = pickle.loads(sys.stdin.buffer.read())
try:
    call()
except SystemExit as exit_:
    if not (isinstance(exit_.code, int) or exit_.code is None):
        print(exit_.code, file=sys.stderr)
    raise SystemExit(exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 1)
"""


def _decoded(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")
    )


def threads_launched() -> bool:
    """Has this process started numba's parallel threads? GNU OpenMP's cannot be forked: a forked
    child that runs a parallel kernel is killed ("fork() called from a process already using GNU
    OpenMP"), so `forked` then runs the call in a fresh interpreter instead."""
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    return bool(parallel is not None and parallel._is_initialized)


def forked(
    call: Callable[[], object], folder: Path, timeout: float = 120, fresh_ok: bool = False
) -> subprocess.CompletedProcess:
    """`call()` in a forked child, as its entry point: (returncode, stdout, stderr) as a subprocess's.
    `fresh_ok` (a call that sets up all it needs itself, not relying on this process's patches): in a
    fresh interpreter (the call pickled by cloudpickle) once this process has started numba's parallel
    threads, which a forked child that runs a parallel kernel cannot use."""
    if fresh_ok and threads_launched():
        import cloudpickle

        done = subprocess.run(
            [sys.executable, "-c", FRESH],
            input=cloudpickle.dumps(call),
            cwd=ROOT,
            capture_output=True,
            timeout=timeout,
        )
        return _decoded(done)
    out, err = folder / "fork.stdout", folder / "fork.stderr"
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            for fd, path in ((1, out), (2, err)):
                os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
            sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115 (pytest's capture replaced)
            sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
            try:
                call()
                code = 0
            except SystemExit as exit_:  # what the interpreter does with sys.exit(...)
                if isinstance(exit_.code, int) or exit_.code is None:
                    code = exit_.code or 0
                else:
                    print(exit_.code, file=sys.stderr)
            except BaseException:
                traceback.print_exc()
        finally:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            os._exit(code)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail(f"{call} did not finish in {timeout} s")
        time.sleep(0.02)
    return subprocess.CompletedProcess(
        [],
        os.waitstatus_to_exitcode(status),
        out.read_text(errors="replace"),
        err.read_text(errors="replace"),
    )


def run_forked(argv: list[str], folder: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """The app run on `argv` in a forked child: (returncode, stdout, stderr) as a subprocess reports them."""
    proc = forked(lambda: _as_main(argv), folder, timeout)
    proc.args = argv
    return proc


def run_app(argv: list[str]) -> subprocess.CompletedProcess:
    """`python -m experiments.run argv` in a fresh interpreter, from the checkout."""
    return subprocess.run(
        [sys.executable, "-m", "experiments.run", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def assert_one_line(proc: subprocess.CompletedProcess, expected: str) -> None:
    """Non-zero exit; stderr ends in the only `error:` line, which holds `expected`; no traceback."""
    said = f"stderr:\n{proc.stderr}"
    lines = [line for line in proc.stderr.replace("\r", "\n").splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert proc.returncode != 0, said
    assert "Traceback" not in proc.stderr and "HYDRA_FULL_ERROR" not in proc.stderr, said
    assert errors and errors == lines[-1:], said
    assert expected in errors[0], said


needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="runs each case in a forked child")


FAST = 4  # the fast tier's cases (the launcher's, checked before Hydra runs); the rest run in the slow tier


@needs_fork
@pytest.mark.parametrize(
    "args, expected",
    [pytest.param(*case, marks=() if i < FAST else pytest.mark.slow) for i, case in enumerate(CASES)],
    ids=[f"{i}:{a[:60]}" for i, (a, _) in enumerate(CASES)],
)
def test_a_mistake_ends_in_one_line(args, expected, tmp_path, inputs):
    assert_one_line(run_forked(command(args, tmp_path, inputs), tmp_path), expected)


# the launcher, checked before Hydra runs; a piece file, read in the run
THROUGH_PYTHON_M = [CASES[0], next(case for case in CASES if "picture.png" in case[0])]


@pytest.mark.slow
@pytest.mark.parametrize("args, expected", THROUGH_PYTHON_M, ids=["launcher", "piece_file"])
def test_the_command_line_itself_says_the_same(args, expected, tmp_path, inputs):
    """The real `python -m experiments.run`, for cases the fork runs too: the same line."""
    assert_one_line(run_app(command(args, tmp_path, inputs)), expected)
