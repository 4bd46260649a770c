"""The benchmarks' settings: a bad flag is refused in one line before anything runs, a run that fails or
is refused is not logged, and `--set` reaches the optimiser it names.

Every flag of `python -m benchmarks.<name>` is checked by its parser (benchmarks/flags.py): a number out
of its range, a word where a number goes, an unknown name, a board or an optimiser setting the project's
own checks refuse. Each case below calls the benchmark's `parse` in this process: it ends in exit 2 and
one line, `error: ...` naming the flag, and nothing runs. The documented commands (tests/docs/test_readme.py
RUN: each benchmark's command with its shortening) still parse.
"""

from __future__ import annotations

import importlib
import os
import shlex
import subprocess
import sys

import pytest

from benchmarks import flags, timing
from benchmarks.bench_eternity2 import BEAM_ALONE, optimizer_named, settings_for

HUGE = str(2**63)  # one past what the kernels and the run records hold

BAD = [  # (benchmark, flags, what the one line must name)
    # the flags that ran into a traceback before (and the run was logged FAILED)
    ("bench_exact_edge", "census --sizes 6,x --previous none", "argument --sizes"),
    ("bench_exact_edge", "hardest --instances 0", "argument --instances"),
    ("bench_exact_edge", "speed --repeats 0", "argument --repeats"),
    ("bench_eternity2", "sweep --boards 8", "argument --boards"),
    ("bench_eternity2", "generated --seed-from -1", "argument --seed-from"),
    ("bench_eternity2", "official --set bogus=3", "--set bogus=3: optimizer has no setting 'bogus'"),
    (
        "bench_eternity2",
        "anytime --methods portfolio --set portfolio:schedule=[200,210]",
        "optimizer.schedule is now optimizer.breaks.schedule",
    ),
    ("bench_eternity2", "ladder --set abandon_nodes=x", "argument --set"),
    ("bench_eternity2", "ladder --set bogus=3", "'bogus' is no setting of breaks"),
    ("bench_interrupts", "--cells bogus", "argument --cells: unknown cells 'bogus'"),
    ("bench_slurm_chunks", "--runs-per-job 0", "argument --runs-per-job"),
    ("bench_hardness", "--repeats 0", "argument --repeats"),
    ("bench_tuning", "--study-seeds 0", "argument --study-seeds"),
    ("bench_tuning", "--race-p 1.5", "argument --race-p: must be a number between 0 and 1"),
    ("bench_edge_fitness", "--genomes 0", "argument --genomes"),
    ("bench_pentomino_decoder", "--genomes 0", "argument --genomes"),
    ("bench_pentomino_free", "--jobs 0", "argument --jobs"),
    ("bench_calendar_year", "--cpsat-dates 0", "argument --cpsat-dates"),
    # the flags that ran (and logged) with a value that means nothing
    ("bench_eternity2", "ladder --seconds -5", "argument --seconds"),
    ("bench_eternity2", "ladder --seconds nan", "argument --seconds"),
    ("bench_eternity2", "anytime --seconds inf", "argument --seconds"),
    ("bench_eternity2", "official --seconds 1e400", "argument --seconds"),
    ("bench_eternity2", "ladder --threads 0", "argument --threads"),
    ("bench_eternity2", "ladder --floor 481", "argument --floor"),
    ("bench_eternity2", "walk --restarts 0", "argument --restarts"),
    ("bench_exact_edge", "clues --seconds 0", "argument --seconds"),
    ("bench_exact_edge", "census --limit 0 --previous none", "argument --limit"),
    ("bench_exact_edge", f"hedge --nodes {HUGE}", "argument --nodes"),
    # words, names and lists
    ("bench_eternity2", "speed --repeats five", "argument --repeats"),
    ("bench_eternity2", "official --method nope", "argument --method"),
    ("bench_eternity2", "anytime --methods breaks,nope", "unknown optimizers 'nope'"),
    ("bench_eternity2", "generated --colours 3", "argument --colours"),
    ("bench_eternity2", "official --set period", "argument --set: must be NAME=VALUE"),
    ("bench_eternity2", "beam --size 3", "argument --size"),
    ("bench_exact_edge", "hardest --sides split,nope", "argument --sides"),
    ("bench_exact_edge", "census --sizes 3 --previous none", "argument --sizes"),
    (
        "bench_exact_edge",
        "census --previous no-such-commit",
        "'no-such-commit' names no commit in this clone",
    ),
    ("bench_hardness", "--n 3", "argument --n"),
    ("bench_interrupts", "--wait -1", "argument --wait"),
    ("bench_edge_greedy", "--sweep-sizes 13,x", "argument --sweep-sizes"),
    ("bench_edge_greedy", "--size 2", "argument --size"),
    ("bench_pentomino_suite", "--baseline-seeds -1", "argument --baseline-seeds"),
    ("bench_pentomino_time_to_optimum", "--budget 0", "argument --budget"),
    ("bench_launchers", "--seeds 0", "argument --seeds"),
    ("bench_galakub", f"--repeats {HUGE}", "argument --repeats"),
    ("bench_exact_pentomino", "--repeats -1", "argument --repeats"),
    # flags checked together, or by building what they describe
    ("bench_pentomino_free", "--seeds 2 --timed-seeds 5", "--timed-seeds 5 is more than --seeds 2"),
    ("bench_eternity2", "sweep --boards 13,500", "--boards 13,500: puzzle.colours=500"),
    ("bench_eternity2", "generated --size 10 --cols 16", "--size, --cols, --colours: puzzle: no default"),
    ("bench_eternity2", "beam --width 10 --max-width 5", "optimizer.max_width must be at least width"),
    ("bench_eternity2", "beam --order bogus", "optimizer.order must be one of"),
    ("bench_eternity2", "ladder --set abandon_nodes=-5", "--set: optimizer.abandon_nodes must be"),
]


@pytest.mark.parametrize(("name", "given", "names"), BAD, ids=[f"{n} {g}" for n, g, _ in BAD])
def test_a_bad_flag_is_refused_in_one_line_before_anything_runs(name, given, names, capsys):
    benchmark = importlib.import_module(f"benchmarks.{name}")
    with pytest.raises(SystemExit) as stop:
        benchmark.parse(shlex.split(given))
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and not out
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    assert names in err and f"python -m benchmarks.{name}" in err and "--help" in err, err


def documented() -> list[tuple[str, list[str]]]:
    """Each benchmark command the docs show, with the flags tests/docs/test_readme.py shortens it by."""
    from tests.docs.test_readme import RUN

    commands = []
    for command, shortening in RUN.items():
        words = shlex.split(command)
        ours = words[:2] == ["python", "-m"] and words[2].startswith("benchmarks.bench_")
        if ours:
            commands.append((words[2], [*words[3:], *shortening]))
    return commands


def test_the_documented_commands_parse(capsys):
    commands = documented()
    assert len(commands) > 25, "few benchmark commands found in tests/docs/test_readme.py's RUN"
    for module, given in commands:
        importlib.import_module(module).parse(given)  # refused: SystemExit, with the one line below
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("name", "given"),
    [
        ("bench_exact_edge", ["census"]),
        ("bench_eternity2", ["ladder"]),
        ("bench_eternity2", ["sweep"]),
        ("bench_pentomino_free", []),
        ("bench_calendar_year", []),
        ("bench_edge_greedy", []),
    ],
)
def test_the_defaults_parse(name, given, monkeypatch):
    benchmark = importlib.import_module(f"benchmarks.{name}")
    if name == "bench_exact_edge":  # its baseline tag may not be in this clone: HEAD is
        monkeypatch.setattr(benchmark, "PREVIOUS", "HEAD")
    benchmark.parse(given)


def test_a_missing_baseline_commit_is_one_line_saying_how_to_get_it(monkeypatch, capsys):
    from benchmarks import bench_exact_edge

    monkeypatch.setattr(bench_exact_edge, "PREVIOUS", "baseline/not-made-yet")
    with pytest.raises(SystemExit):
        bench_exact_edge.parse(["census"])
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    assert "'baseline/not-made-yet' names no commit in this clone" in err and "git fetch --tags" in err
    assert bench_exact_edge.parse(["census", "--previous", "none"]).previous == "none"


# --- a run that fails or is refused is not logged ----------------------------------------------------


def test_a_run_that_failed_writes_no_entry(tmp_path, capsys):
    run = timing.RunLog("bench_demo", tmp_path, command="python -m benchmarks.bench_demo").start()
    print("rate: 5 moves/s")
    run.fail("refused")
    assert run.finish() is None and not (tmp_path / "bench_demo.md").exists()
    assert "rate: 5 moves/s" in capsys.readouterr().out  # printed all the same


ENDINGS = [  # (the end of a benchmark's main, exit status, one line on stderr or None, logged?)
    ("pass", 0, None, True),
    ("flags.refuse('--seeds must be at least 1')", 2, "error: --seeds must be at least 1", False),
    ("raise InputError('puzzle.n must be at least 2')", 2, "error: puzzle.n must be at least 2", False),
    ("sys.exit('error: the app failed')", 1, "error: the app failed", False),
    ("raise AssertionError('tally 3 != re-score 4')", 1, None, False),
]


@pytest.mark.parametrize(("ending", "status", "said", "logged"), ENDINGS, ids=[e[0] for e in ENDINGS])
def test_only_a_run_that_finished_is_logged(ending, status, said, logged, tmp_path):
    """End to end: a program named benchmarks/bench_*.py, run by flags.run, printing, then ending."""
    fake = timing.BENCHMARKS / "bench_never_committed.py"  # never created: only its name is read
    program = "\n".join(
        [
            f"import sys; sys.argv[0] = {str(fake)!r}",
            "from benchmarks import flags",
            "from core.errors import InputError",
            "def main():",
            "    print('rate: 5 moves/s')",
            f"    {ending}",
            "flags.run(main)",
        ]
    )
    env = {**os.environ, "BENCH_LOG_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=timing.ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == status and "rate: 5 moves/s" in done.stdout, done.stderr
    if said is not None:
        assert done.stderr.splitlines() == [said]
    assert (tmp_path / "bench_never_committed.md").exists() == logged
    assert ("logged: " in done.stdout) == logged
    assert not (timing.LOG_DIR / "bench_never_committed.md").exists()


def test_a_bad_flag_on_the_command_line_is_one_line_and_not_logged(tmp_path):
    env = {**os.environ, "BENCH_LOG_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_slurm_chunks", "--runs-per-job", "0"],
        cwd=timing.ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and not done.stdout
    assert done.stderr.startswith("error: argument --runs-per-job: must be a whole number at least 1")
    assert len(done.stderr.splitlines()) == 1 and not list(tmp_path.iterdir())


def test_every_benchmark_reads_its_flags_through_benchmarks_flags():
    """A new benchmark too: its flags checked by flags.Parser, its run ended by flags.run."""
    for path in sorted(timing.BENCHMARKS.glob("bench_*.py")):
        text = path.read_text(encoding="utf-8")
        assert "def parse(argv" in text and "flags.Parser(" in text, f"{path.name}: no flags.Parser"
        assert "argparse.ArgumentParser(" not in text, f"{path.name}: argparse's own parser"
        assert text.rstrip().endswith('if __name__ == "__main__":\n    flags.run(main)'), path.name


def test_flags_validators_say_what_they_take():
    assert flags.wholes(among=(4, 5, 6))("6,4") == (6, 4)
    assert flags.names(("split", "auto"), "sides")("auto, split") == "auto,split"
    assert flags.jobs("-1") == -1 and flags.seconds("0.5") == 0.5 and flags.first("0") == 0
    assert flags.commit("HEAD") == "HEAD" and flags.commit("none") == "none"


# --- `--set` reaches the optimiser it names -----------------------------------------------------------


def test_a_named_setting_reaches_only_its_optimiser():
    sets = ["portfolio:threads=1", "finish_width=20", "beam:width=3", "schedule=[1,2]"]
    assert settings_for("portfolio", sets) == ["finish_width=20", "schedule=[1,2]", "threads=1"]
    assert settings_for("breaks", sets) == ["finish_width=20", "schedule=[1,2]"]
    assert settings_for("beam", sets) == ["finish_width=20", "schedule=[1,2]", "width=3", *BEAM_ALONE]


def test_a_portfolios_backtracker_takes_its_settings_through_set():
    sets = ["portfolio:breaks.schedule=[210,200]", "portfolio:breaks.probe_batches=1", "beam:width=3"]
    portfolio = optimizer_named("portfolio", 1, settings_for("portfolio", sets))
    breaks = portfolio.start.large  # the backtracker alone, on boards of beam_below cells or more
    assert (breaks.schedule, breaks.probe_batches, breaks.threads) == ((200, 210), 1, 2)
