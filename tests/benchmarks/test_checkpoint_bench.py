"""benchmarks/bench_resume.py: its flags are refused in one line before anything runs, and a short run of
it stops the app's command at each stop, starts it again until it completes, and reports every start's
wall time in all and the final board re-scored."""

from __future__ import annotations

import re
import shlex

import pytest

from benchmarks import bench_resume

BAD = [  # (flags, what the one line must name)
    ("portfolio --stops 6,x", "argument --stops: must be comma-separated seconds"),
    ("portfolio --stops 360,180", "argument --stops: must be increasing seconds"),
    ("portfolio --seconds 60 --stops 30,90", "argument --stops: 90 s is not within the run's --seconds 60"),
    ("portfolio --seeds -1", "argument --seeds"),
    ("nope", "optimizer, --puzzle, --set"),
    ("portfolio --puzzle queens", "--puzzle queens is no edge-matching board"),
    ("portfolio --set optimizer.threads=0", "optimizer.threads must be a whole number >= 1"),
    ("portfolio --set threads", "argument --set: must be NAME=VALUE"),
]


@pytest.mark.parametrize(("given", "names"), BAD, ids=[g for g, _ in BAD])
def test_a_bad_flag_is_refused_in_one_line(given, names, capsys):
    with pytest.raises(SystemExit) as stop:
        bench_resume.parse(shlex.split(given))
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and not out
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    assert names in err and "python -m benchmarks.bench_resume" in err, err


def test_the_documented_command_parses():
    args = bench_resume.parse(shlex.split("portfolio --seconds 600 --stops 180,360 --seeds 0"))
    assert (args.seconds, args.stops, args.seeds, args.puzzle) == (600.0, (180.0, 360.0), (0,), "eternity2")


@pytest.mark.slow  # runs the app several times: the longer checks
def test_a_short_run_is_stopped_continued_and_rescored(capsys):
    """Breaks on a 10 x 10 board for 16 s, stopped at 7 s and 13 s of wall time (each start past
    Python's start, about 3 s): three starts, the later two continued from the checkpoint, the
    record's board re-scored. The kernels are compiled first, into numba's cache the starts load:
    first in the slow tier on a fresh clone, the second start was still compiling at its SIGINT."""
    from puzzles.edge_matching.solvers.beam import warm_up as beam_warm_up
    from puzzles.edge_matching.solvers.breaks import warm_up

    warm_up()
    beam_warm_up()
    given = "breaks --seconds 16 --stops 7,13 --puzzle eternity2_like --set puzzle.n=10 --no-baseline"
    bench_resume.main(shlex.split(given))
    out = capsys.readouterr().out
    assert "seed 0, stopped and continued: 3 starts, " in out, out
    starts = re.findall(
        r"  start (\d): [\d.]+ s wall, (completed|stopped \(exit 130\), a checkpoint left)(.*)", out
    )
    assert [(k, ended[:9]) for k, ended, _ in starts] == [
        ("1", "stopped ("),
        ("2", "stopped ("),
        ("3", "completed"),
    ]
    assert starts[2][2].startswith("; resumed from checkpoint: breaks: "), out
    joins = re.search(r"record ([\d.]+) s, (\d+) joins matched", out)
    assert joins is not None and 16 <= float(joins.group(1)) < 17 and 0 < int(joins.group(2)) <= 180, out
    assert re.search(r"most wall time in all: [\d.]+ s \(target <= 36 s: (met|missed)\)", out), out
