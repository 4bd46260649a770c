"""The benchmarks' one harness: interleaved repeats, medians, ratios only from measured sides."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import pytest

from benchmarks import timing
from benchmarks.timing import Timing, compare, context, line, report


def test_sides_are_interleaved_and_the_last_result_kept():
    calls = []
    sides = {"a": lambda: calls.append("a") or len(calls), "b": lambda: calls.append("b") or len(calls)}
    timings = compare(sides, repeats=3, warmup=1)
    assert calls == ["a", "b"] * 4  # one warm-up round, then A B A B A B
    assert timings["a"].result == 7 and timings["b"].result == 8
    assert all(len(t.seconds) == 3 for t in timings.values())


def test_ratio_is_of_medians_and_accounts_for_work():
    base, fast = Timing((4.0, 1.0, 9.0), None), Timing((1.0, 2.0, 100.0), None)
    assert (base.median, base.min, base.max) == (4.0, 1.0, 9.0)
    assert "ratio 2.0x vs base" in line("fast", fast, base, "base")  # 4 / 2, not a mean or a min
    # the fast side did 10x the work per call: a ratio of rates, 10 * 4 / 2
    assert "ratio 20.0x vs base" in line("fast", fast, base, "base", work=10, unit="x", base_work=1)


def test_a_quoted_figure_gets_no_ratio(capsys):
    context("a published solver takes about 30 s")
    report({"ours": Timing((1.0,), None)})
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "context (quoted, not measured): a published solver takes about 30 s"
    assert "ratio" not in out


def test_a_clock_is_read_once_per_call():
    ticks = itertools.count()
    timings = compare({"a": lambda: None}, repeats=2, warmup=0, clock=lambda: float(next(ticks)))
    assert timings["a"].seconds == (1.0, 1.0)


def test_repeats_must_be_positive():
    with pytest.raises(ValueError, match="repeats must be at least 1, got 0"):
        compare({"a": lambda: None}, repeats=0)


# ----------------------------------------------------------------------------- the run log

FIELDS = ("- command: ", "- date: ", "- machine: ", "- code: commit ", "- software: Python ")


def _entries(path):
    return path.read_text().split("\n### ")[1:]


def test_a_run_appends_an_entry_with_the_machine_and_its_figures(tmp_path, capsys):
    run = timing.RunLog(
        "bench_demo", tmp_path, command="python -m benchmarks.bench_demo --size 3", note="shortened"
    )
    run.start()
    print("demo: median 1.00 s (min 0.90 s, max 1.10 s)")
    first = run.finish()
    second = timing.RunLog("bench_demo", tmp_path, command="python -m benchmarks.bench_demo").start()
    print("again")
    assert second.finish() not in (None, first)  # a second entry, its own id even within the same second
    entries = _entries(tmp_path / "bench_demo.md")
    assert len(entries) == 2 and entries[0].startswith(f"{first}\n") and first.startswith("run-")
    entry = entries[0]
    for field in FIELDS:
        assert field in entry
    assert "`python -m benchmarks.bench_demo --size 3`" in entry and "- note: shortened" in entry
    assert "load average (1, 5, 15 min) before " in entry and ", after " in entry and " cores (" in entry
    assert ("tree clean" in entry) or ("tree dirty (" in entry)
    assert "numpy " in entry and " UTC; " in entry and "finished" in entry
    assert "```text\ndemo: median 1.00 s (min 0.90 s, max 1.10 s)\n```" in entry
    assert "demo: median 1.00 s" in capsys.readouterr().out  # still printed as the run went
    assert timing.RunLog("bench_demo", tmp_path).start().finish() is None  # printed nothing: no entry
    assert len(_entries(tmp_path / "bench_demo.md")) == 2


def test_tests_never_write_the_committed_log():
    assert timing.RUN is None  # importing the harness outside a benchmark run starts no log
    with pytest.raises(RuntimeError, match="must not write the committed benchmark log"):
        timing.RunLog("bench_demo", timing.LOG_DIR)


def test_a_benchmark_run_as_main_that_fails_writes_no_entry(tmp_path):
    """End to end: a program named benchmarks/bench_*.py that imports the harness and fails exits
    non-zero and leaves the log where BENCH_LOG_DIR says untouched: a failed run is no evidence."""
    fake = timing.BENCHMARKS / "bench_never_committed.py"  # never created: only its name is read
    program = (
        f"import sys; sys.argv[0] = {str(fake)!r}; import benchmarks.timing\n"
        "print('rate: 5 moves/s'); raise AssertionError('tally 3 != re-score 4')"
    )
    env = {**os.environ, "BENCH_LOG_DIR": str(tmp_path), "BENCH_NOTE": "a test"}
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=timing.ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 1 and "rate: 5 moves/s" in done.stdout
    assert not (tmp_path / "bench_never_committed.md").exists()
    assert not (timing.LOG_DIR / "bench_never_committed.md").exists()
