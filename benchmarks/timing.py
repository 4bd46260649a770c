"""The one timing harness of the benchmarks: every side repeated, interleaved, reported as medians.

    timings = compare({"baseline": run_a, "ours": run_b}, repeats=5)
    report(timings, baseline="baseline", targets={"ours": "target >= 10x"})

`compare` calls the sides in turn (A B A B ...), so a slow spell of a shared machine falls on every
side alike; `report` prints one line per side, "name: median X (min A, max B)  ratio Rx vs
baseline", the ratio computed from medians. A figure not measured in the run (a published time, say)
goes through `context`, which prints no ratio.

Every run of a benchmark (`python -m benchmarks.bench_<name> ...`) is logged: importing this module
from a benchmark run as the main program starts a `RunLog`, which copies what the run prints and, when
the run ends, appends one entry to `benchmarks/log/bench_<name>.md`: an id to cite (`run-<UTC date and
time>`, the heading's anchor), the command line, the date, the machine (CPU model, cores, load
average before, during and after), the commit and whether the tree was dirty, the Python and library
versions, and the printed figures. A run that fails (an uncaught exception, Ctrl-C) or is refused (a
bad flag, a non-zero exit: benchmarks/flags.py) writes no entry: a log entry is a run that finished.
`BENCH_LOG_DIR` chooses another directory (`off`: no log); `BENCH_NOTE` adds a line to the entry (e.g.
how a run was shortened). Tests never write the committed log: under pytest a RunLog refuses the
default directory.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import multiprocessing
import os
import platform
import shlex
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any, TextIO

REPEATS = 5


@dataclass(frozen=True)
class Timing:
    """Seconds of each repeat of one side, and what its last call returned (to check the sides agree)."""

    seconds: tuple[float, ...]
    result: Any

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def min(self) -> float:
        return min(self.seconds)

    @property
    def max(self) -> float:
        return max(self.seconds)


def compare(
    sides: dict[str, Callable[[], Any]],
    repeats: int = REPEATS,
    warmup: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, Timing]:
    """Time every side `repeats` times, interleaved, after `warmup` untimed rounds (compiling, caches).

    `clock` is wall time by default; pass time.process_time for CPU seconds of this process.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    for _ in range(warmup):
        for fn in sides.values():
            fn()
    seconds = {name: [] for name in sides}
    results = {}
    for _ in range(repeats):
        for name, fn in sides.items():
            start = clock()
            results[name] = fn()
            seconds[name].append(clock() - start)
    return {name: Timing(tuple(seconds[name]), results[name]) for name in sides}


def fmt(seconds: float) -> str:
    """Seconds in a unit that keeps three or four significant figures readable."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def line(
    name: str,
    t: Timing,
    base: Timing | None = None,
    base_name: str = "",
    work: float = 0,
    unit: str = "",
    target: str = "",
    base_work: float = 0,
) -> str:
    """One side as "name: median X (min A, max B) [= rate] [ratio Rx vs base] [(target)]"."""
    text = f"{name}: median {fmt(t.median)} (min {fmt(t.min)}, max {fmt(t.max)})"
    if work:
        text += f" = {work / t.median:,.0f} {unit}/s (min {work / t.max:,.0f}, max {work / t.min:,.0f})"
    if base is not None and base is not t:
        speedup = base.median / t.median * (work / base_work if work and base_work else 1)
        text += f"  ratio {speedup:,.1f}x vs {base_name}"
    return text + (f"  ({target})" if target else "")


def report(
    timings: dict[str, Timing],
    baseline: str | None = None,
    work: float | dict[str, float] = 0,
    unit: str = "",
    targets: dict[str, str] | None = None,
) -> None:
    """Print one line per side; ratios are baseline median / side median (> 1: the side is faster).

    `work` (one number, or one per side) is what one call does, in `unit`s, for a rate: it turns the
    ratio into a ratio of rates, so sides may do different amounts of work per call.
    """
    work = work if isinstance(work, dict) else dict.fromkeys(timings, work)
    base = timings[baseline] if baseline else None
    width = max(map(len, timings))
    repeats = sorted({len(t.seconds) for t in timings.values()})
    print(f"({', '.join(map(str, repeats))} interleaved repeats per side)")
    for name, t in timings.items():
        print(
            line(
                name.ljust(width),
                t,
                base,
                baseline or "",
                work.get(name, 0),
                unit,
                (targets or {}).get(name, ""),
                work.get(baseline, 0),
            ),
            flush=True,
        )


def score_all(score, genomes, passes: int = 1) -> list:
    """Score every genome `passes` times: one repeat of a rate benchmark's side (a fast side makes
    more passes over the same genomes, so that its repeat lasts long enough for the clock)."""
    return [score(g) for _ in range(passes) for g in genomes]


def context(text: str) -> None:
    """A figure quoted from elsewhere: printed for context, never turned into a ratio."""
    print(f"context (quoted, not measured): {text}")


# ----------------------------------------------------------------------------- the run log

BENCHMARKS = Path(__file__).resolve().parent
LOG_DIR = BENCHMARKS / "log"  # the committed log
ROOT = BENCHMARKS.parent
LIBRARIES = (
    "numpy",
    "numba",
    "llvmlite",
    "scipy",
    "deap",
    "vcopt",
    "exact-cover",
    "ortools",
    "hydra-core",
    "joblib",
)
SAMPLE_SECONDS = 10  # how often the load average is read during a run


def log_dir() -> Path | None:
    """Where run logs go: `BENCH_LOG_DIR` if set (`off` or empty: nowhere), else benchmarks/log."""
    chosen = os.environ.get("BENCH_LOG_DIR")
    if chosen is None:
        return LOG_DIR
    return None if chosen.strip().lower() in ("", "off", "none") else Path(chosen)


def _cpu_model() -> str:
    try:
        for text in Path("/proc/cpuinfo").read_text().splitlines():
            if text.startswith("model name"):
                return text.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _git(*args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout if done.returncode == 0 else ""


def _code() -> str:
    """The commit, and whether the tree's code differs from it (and where, the first few paths; the run
    log itself left out)."""
    commit = _git("rev-parse", "HEAD").strip() or "unknown (no git)"
    rows = _git("status", "--porcelain", "--untracked-files=no").splitlines()
    changed = [row[3:] for row in rows if not row[3:].startswith("benchmarks/log/")]  # the log is no code
    if not changed:
        return f"commit {commit}, tree clean"
    shown = ", ".join(changed[:8]) + (f" and {len(changed) - 8} more" if len(changed) > 8 else "")
    return f"commit {commit}, tree dirty ({len(changed)} changed: {shown})"


def _software() -> str:
    versions = [f"Python {platform.python_version()}"]
    for name in LIBRARIES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions.append(f"{name} {metadata.version(name)}")
    return ", ".join(versions)


def _load() -> tuple[float, float, float]:
    try:
        return os.getloadavg()
    except OSError:
        return (float("nan"),) * 3


def _command() -> str:
    argv = list(getattr(sys, "orig_argv", sys.argv))
    if argv and Path(argv[0]).name.startswith("python"):
        argv[0] = "python"
    threads = os.environ.get("NUMBA_NUM_THREADS")
    return (f"NUMBA_NUM_THREADS={threads} " if threads else "") + shlex.join(argv)


class _Tee(io.TextIOBase):
    """Writes to the real stream and keeps a copy."""

    def __init__(self, stream: TextIO):
        self.stream, self.copy = stream, io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def fileno(self) -> int:
        return self.stream.fileno()

    def isatty(self) -> bool:
        return self.stream.isatty()


class RunLog:
    """One run's log entry: `start()` notes the machine and copies stdout from then on, `finish()` appends
    the entry (the machine again, and what was printed) to `<directory>/<benchmark>.md` and returns its id,
    unless `fail()` said the run failed or was refused."""

    def __init__(self, benchmark: str, directory: Path, command: str | None = None, note: str | None = None):
        if "pytest" in sys.modules and Path(directory).resolve() == LOG_DIR.resolve():
            raise RuntimeError("tests must not write the committed benchmark log: pass a temporary directory")
        self.benchmark, self.directory = benchmark, Path(directory)
        self.command = command if command is not None else _command()
        self.note = note if note is not None else os.environ.get("BENCH_NOTE", "")
        self.failure = ""
        self._tee: _Tee | None = None
        self._stop = threading.Event()

    def start(self) -> RunLog:
        self.began = datetime.now(UTC)
        self.clock = time.perf_counter()
        self.cpu = os.times()
        self.load_before = _load()
        self.peak = self.load_before[0]
        self.machine = f"{_cpu_model()}, {os.cpu_count()} cores ({len(os.sched_getaffinity(0))} usable)"
        self.code, self.software = _code(), _software()
        self._tee = _Tee(sys.stdout)
        sys.stdout = self._tee
        threading.Thread(target=self._sample, daemon=True).start()
        return self

    def fail(self, why: str) -> None:
        """The run failed or was refused (`why`): `finish()` writes no entry."""
        self.failure = self.failure or why

    def _sample(self) -> None:
        while not self._stop.wait(SAMPLE_SECONDS):
            self.peak = max(self.peak, _load()[0])

    def finish(self) -> str | None:
        """Append the entry and return its id (None, and no entry, if the run failed or was refused, or
        printed nothing: --help)."""
        self._stop.set()
        if self._tee is None:
            return None
        tee, self._tee = self._tee, None
        if sys.stdout is tee:
            sys.stdout = tee.stream
        printed = tee.copy.getvalue().rstrip()
        if not printed or self.failure:
            return None
        wall = time.perf_counter() - self.clock
        now = os.times()
        cpu = sum(now[:4]) - sum(self.cpu[:4])
        after = _load()
        self.peak = max(self.peak, after[0])
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{self.benchmark}.md"
        old = path.read_text() if path.exists() else f"# {self.benchmark}: run log\n\n{HEADER}\n"
        run_id = "run-" + self.began.strftime("%Y%m%d-%H%M%S")
        taken = {row[4:].strip() for row in old.splitlines() if row.startswith("### ")}
        base, k = run_id, 2
        while run_id in taken:
            run_id, k = f"{base}-{k}", k + 1
        loads = lambda xs: " ".join(f"{x:.2f}" for x in xs)  # noqa: E731
        rows = [
            f"### {run_id}",
            "",
            f"- command: `{self.command}`",
            f"- date: {self.began:%Y-%m-%d %H:%M:%S} UTC; {wall:,.1f} s wall, {cpu:,.1f} s CPU "
            "(process and children); finished",
            f"- machine: {self.machine}; load average (1, 5, 15 min) before {loads(self.load_before)}, "
            f"after {loads(after)}, 1-min peak during the run {self.peak:.2f}",
            f"- code: {self.code}",
            f"- software: {self.software}",
        ]
        if self.note:
            rows.append(f"- note: {self.note}")
        rows += ["", "```text", printed, "```", ""]
        path.write_text(old.rstrip("\n") + "\n\n" + "\n".join(rows))
        print(f"logged: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}#{run_id}", flush=True)
        return run_id


HEADER = (
    "One entry per run, appended by `benchmarks/timing.py` (`RunLog`); cite an entry by its heading, "
    "e.g. `benchmarks/log/<file>.md#run-20261123-093205` (UTC start). Load averages are of the whole "
    "machine: above its core count, other jobs shared the CPU during the run."
)


def _is_benchmark_main() -> bool:
    """Is the running program a benchmark module (benchmarks/bench_*.py run as `python -m` or a path)?"""
    main = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    return bool(
        main is not None
        and main.name.startswith("bench_")
        and main.suffix == ".py"
        and main.resolve().parent == BENCHMARKS
    )


def _log_this_run() -> RunLog | None:
    directory = log_dir()
    if directory is None or not _is_benchmark_main() or {"-h", "--help"} & set(sys.argv[1:]):
        return None
    if multiprocessing.parent_process() is not None:  # a worker: spawn copies the parent's argv
        return None
    run = RunLog(Path(sys.argv[0]).stem, directory).start()
    hook = sys.excepthook

    def failed(kind, error, trace):
        run.fail(f"{kind.__name__}: {error}")
        hook(kind, error, trace)

    sys.excepthook = failed
    atexit.register(run.finish)
    return run


RUN = _log_this_run()
