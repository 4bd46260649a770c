"""The benchmarks' command lines: a bad flag is refused in one line before anything runs, and a run that
is refused or fails is not logged.

    def parse(argv=None):
        parser = flags.Parser("bench_x", __doc__)
        parser.add_argument("--repeats", type=flags.count, default=5)
        parser.add_argument("--seconds", type=flags.seconds, default=60)
        return parser.parse_args(argv)

    if __name__ == "__main__":
        flags.run(main)

`Parser` prints one line, `error: <what is wrong and what to give instead> (see <command> --help)`, and
exits 2; the `type=` validators below say what each kind of flag takes. A check that needs several
flags calls `parser.error`. `run` runs a benchmark's main: bad input found once it runs (the puzzles'
and optimisers' own checks: InputError, a setting Hydra cannot apply) ends in one line too, and a run
that exits non-zero, or raises, writes no entry to benchmarks/log/ (benchmarks/timing.py).
"""

from __future__ import annotations

import argparse
import math
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NoReturn

from benchmarks import timing
from core.errors import InputError

LARGEST = 2**63 - 1  # a count the compiled kernels and the run records hold (int64)
LONGEST = 1e7  # seconds, about four months: well below threading.TIMEOUT_MAX, past which no timer is set
THREADS = 256  # threads or cores a side may ask for


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (argparse prints its usage first) and refuse the run."""

    def __init__(self, module: str | None = None, doc: str | None = None, **kwargs: Any):
        """`module`: the benchmark's name (its command, `python -m benchmarks.<module>`), `doc` its
        description; a command's subparsers come without them."""
        if module is not None:
            kwargs.setdefault("prog", f"python -m benchmarks.{module}")
        kwargs.setdefault("description", doc)
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(**kwargs)

    def error(self, message: str) -> NoReturn:
        refuse(f"{message} (see {self.prog} --help)")


def refuse(message: str) -> NoReturn:
    """End a benchmark with one line, `error: <message>`, exit status 2, and no log entry."""
    _not_logged("refused")
    print(f"error: {' '.join(message.split())}", file=sys.stderr, flush=True)
    raise SystemExit(2)


def _not_logged(why: str) -> None:
    if timing.RUN is not None:
        timing.RUN.fail(why)


def bad_input() -> tuple[type[Exception], ...]:
    """What the project raises for input a user can fix: InputError, and a setting Hydra or OmegaConf
    cannot apply to a config (an unknown key, a value of the wrong type)."""
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    return (InputError, HydraException, OmegaConfBaseException)


def check(parser: argparse.ArgumentParser, checks: dict[str, Callable[[], object]]) -> None:
    """Checks of the flags that build what they describe (a board, an optimiser) with the project's own
    checks, before the benchmark starts: {the flags checked: a call}; bad input is refused in one line."""
    for given, call in checks.items():
        try:
            call()
        except bad_input() as err:
            parser.error(f"{given}: {err}")


def run(main: Callable[[], object]) -> None:
    """Run a benchmark's main: bad input found while it runs is one line, and a run that does not end
    well (a non-zero exit, an exception, Ctrl-C) is not logged."""
    try:
        main()
    except SystemExit as stop:
        if stop.code not in (None, 0):
            _not_logged(f"exit {stop.code}")
        raise
    except bad_input() as err:
        refuse(str(err))
    except MemoryError:
        refuse("out of memory: ask for less (smaller boards, fewer genomes or seeds)")


def run_app(arguments: list[str], cwd: Path = timing.ROOT) -> subprocess.CompletedProcess[str]:
    """The app, `python -m experiments.run <arguments>`, in a fresh process in `cwd` (a checkout); if it
    fails, the benchmark ends in one line: the command and the app's last line of stderr (its error)."""
    command = [sys.executable, "-m", "experiments.run", *arguments]
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1].removeprefix("error: ")
        refuse(
            f"the app failed (exit {done.returncode}) in {cwd}: {said}; "
            f"the command: {shlex.join(command[1:])}"
        )
    return done


# --- the validators (argparse `type=`): each returns the value or says what the flag takes -----------


def whole(low: int = 1, high: int = LARGEST, what: str = "a whole number") -> Callable[[str], int]:
    """A whole number from `low` to `high`."""
    bound = f"at least {low:,}" if high == LARGEST else f"from {low:,} to {high:,}"

    def check(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {what} {bound}, got {text!r}")
        return value

    check.__name__ = what
    return check


count = whole(1)  # repeats, seeds, instances, genomes: one or more
first = whole(0, what="a whole number (a seed)")  # the first seed of a run
threads = whole(1, THREADS, what="a number of threads")


def jobs(text: str) -> int:
    """joblib's n_jobs: workers (1 or more), or -1 for every core (-2 every core but one, ...)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value == 0 or abs(value) > THREADS:
        raise argparse.ArgumentTypeError(
            f"must be a number of workers from 1 to {THREADS}, or -1 for every core, got {text!r}"
        )
    return value


def seconds(text: str) -> float:
    """A time budget: a number of seconds above 0, at most LONGEST."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= LONGEST:  # nan and inf too
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds above 0, at most {LONGEST:g}, got {text!r}"
        )
    return value


def wholes(
    low: int = 1, high: int = LARGEST, size: int | None = None, among: Iterable[int] = ()
) -> Callable[[str], tuple[int, ...]]:
    """Comma-separated whole numbers from `low` to `high` (exactly `size` of them if given; each one of
    `among` if given): "6,7"."""
    one = whole(low, high)
    shape = f"{size} comma-separated whole numbers" if size else "comma-separated whole numbers"
    allowed = sorted(among)

    def check(text: str) -> tuple[int, ...]:
        parts = text.split(",")
        if size and len(parts) != size or not all(p.strip() for p in parts):
            raise argparse.ArgumentTypeError(f"must be {shape}, got {text!r}")
        try:
            values = tuple(one(p.strip()) for p in parts)
        except argparse.ArgumentTypeError as err:
            raise argparse.ArgumentTypeError(f"must be {shape}; {err}") from None
        if allowed and not set(values) <= set(allowed):
            raise argparse.ArgumentTypeError(
                f"must be {shape} among {', '.join(map(str, allowed))}, got {text!r}"
            )
        return values

    check.__name__ = shape
    return check


def names(known: Iterable[str], what: str = "names") -> Callable[[str], str]:
    """Comma-separated names, each one of `known` (the text is kept as given: "split,auto")."""
    choices = sorted(set(known))

    def check(text: str) -> str:
        given = [name.strip() for name in text.split(",")]
        unknown = [name for name in given if name not in choices]
        if unknown or not given:
            raise argparse.ArgumentTypeError(
                f"unknown {what} {', '.join(map(repr, unknown))}; choose from {', '.join(choices)}"
            )
        return ",".join(given)

    check.__name__ = what
    return check


def setting(text: str) -> str:
    """A setting as NAME=VALUE (an optimiser's own check reads the value)."""
    name, equals, _ = text.partition("=")
    if not equals or not name.strip() or any(c.isspace() for c in name):
        raise argparse.ArgumentTypeError(f"must be NAME=VALUE, e.g. period=2.1e8, got {text!r}")
    return text


def commit(text: str) -> str:
    """A commit of this clone (a hash, a tag, a branch), or `none`."""
    if text == "none":
        return text
    try:
        found = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", f"{text}^{{commit}}"],
            cwd=timing.ROOT,
            capture_output=True,
            text=True,
        )
    except OSError:
        raise argparse.ArgumentTypeError("needs git, which is not installed; or give none") from None
    if found.returncode != 0:
        raise argparse.ArgumentTypeError(
            f"{text!r} names no commit in this clone (a tag not fetched: `git fetch --tags`; a shallow "
            "clone: `git fetch --unshallow`); give a commit of `git log`, or none for no baseline"
        )
    return text
