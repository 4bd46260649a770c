"""The benchmarks' one harness: interleaved repeats, medians, ratios only from measured sides."""

from __future__ import annotations

import itertools

import pytest

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
