"""Statistics on constructed data sets, against values worked out by hand or in closed form."""

import math

import numpy as np
import pandas as pd
import pytest

from experiments.stats import a12, ert, evaluations_to_optimum, first_hits, holm, pairwise, summarise


def test_a12_of_fixed_samples():
    assert a12([1, 2, 3], [1, 2, 3]) == 0.5
    assert a12([3, 4], [1, 2]) == 1.0
    # x = 1,2,3 against y = 2,2,5: wins (3,2) twice, ties (2,2) twice count half -> (2 + 1) / 9
    assert a12([1, 2, 3], [2, 2, 5]) == pytest.approx(1 / 3)


def test_holm_adjustment():
    assert holm([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]).tolist() == pytest.approx([1.0, 1.0])


def test_ert_counts_failed_runs_budget():
    # two successes after 100 and 300 evaluations, one failure with a budget of 1000: 1400 / 2
    assert ert(np.array([100, 300, 1000]), np.array([True, True, False])) == 700
    assert math.isinf(ert(np.array([10]), np.array([False])))


def runs_frame():
    rows = []
    for seed in range(10):
        rows.append(
            {
                "optimizer": "good",
                "seed": seed,
                "best": 1 + seed,
                "known_optimum": 1.0,
                "success": seed == 0,
                "evals_to_optimum": 50.0 if seed == 0 else None,
                "seconds_to_optimum": 0.5 if seed == 0 else None,
                "evaluations": 100,
                "status": "ok",
            }
        )
        rows.append(
            {
                "optimizer": "bad",
                "seed": seed,
                "best": 11 + seed,
                "known_optimum": 1.0,
                "success": False,
                "evals_to_optimum": None,
                "seconds_to_optimum": None,
                "evaluations": 100,
                "status": "ok",
            }
        )
    return pd.DataFrame(rows)


def test_summary_of_a_constructed_sweep():
    s = summarise(runs_frame(), ["optimizer"]).set_index("optimizer")
    assert s.loc["good", "n"] == 10 and s.loc["good", "min"] == 1 and s.loc["good", "max"] == 10
    assert s.loc["good", "median"] == 5.5 and s.loc["good", "mean"] == 5.5
    assert s.loc["good", "std"] == pytest.approx(np.std(np.arange(1, 11), ddof=1))
    assert s.loc["good", "success_rate"] == 0.1 and s.loc["good", "median_evals_to_optimum"] == 50
    assert s.loc["good", "ert_evaluations"] == 50 + 9 * 100
    assert s.loc["bad", "success_rate"] == 0 and math.isinf(s.loc["bad", "ert_evaluations"])


def test_mann_whitney_on_separated_samples():
    # 1..10 against 11..20: the exact two-sided p-value is 2 / C(20, 10)
    (row,) = pairwise(runs_frame(), ["optimizer"]).itertuples()
    assert (row.a, row.b, row.test) == ("bad", "good", "mann-whitney")
    assert row.p == pytest.approx(2 / math.comb(20, 10))
    assert row.a12 == 0.0 and row.significant  # "bad" never beats "good"


def test_wilcoxon_when_runs_pair_up_on_instances():
    df = runs_frame().rename(columns={"seed": "puzzle.instance"})
    (row,) = pairwise(df, ["optimizer", "puzzle.instance"], instance=["puzzle.instance"]).itertuples()
    # ten paired differences, all of one sign: exact two-sided p = 2 / 2^10
    assert row.test == "wilcoxon" and row.p == pytest.approx(2 / 2**10)


def test_first_hits_for_ecdf():
    traces = pd.DataFrame({"run_id": [0, 0, 0], "evaluations": [1, 5, 20], "best": [9.0, 4.0, 2.0]})
    hits = first_hits(traces, np.array([10.0, 4.0, 3.0, 1.0]))
    assert hits["evaluations"].tolist() == [1, 5, 20, np.inf]


def test_runs_that_both_failed_tie_in_evaluations_to_optimum():
    # 10 instances; on 4 both optimisers fail. inf - inf would be NaN: a censored failure makes those
    # 4 pairs ties, so all 10 pairs enter the test and none is dropped.
    runs = pd.DataFrame(
        {
            "optimizer": ["a"] * 10 + ["b"] * 10,
            "puzzle.instance": list(range(10)) * 2,
            "success": [True] * 6 + [False] * 4 + [True] * 3 + [False] * 7,
            "evals_to_optimum": [10, 20, 30, 40, 50, 60, None, None, None, None] + [15, 25, 35] + [None] * 7,
            "evaluations": [10, 20, 30, 40, 50, 60, 100, 100, 100, 100, 15, 25, 35] + [100] * 7,
        }
    )
    timed = runs.assign(evaluations_to_optimum=evaluations_to_optimum(runs))
    assert timed["evaluations_to_optimum"].tolist()[6:10] == [101.0] * 4  # above every run's spend
    (row,) = pairwise(
        timed,
        ["optimizer", "puzzle.instance"],
        instance=["puzzle.instance"],
        metrics=("evaluations_to_optimum",),
    ).itertuples()
    assert row.test == "wilcoxon" and row.n == 10 and np.isfinite(row.p)
    from scipy import stats

    x, y = timed["evaluations_to_optimum"].to_numpy()[:10], timed["evaluations_to_optimum"].to_numpy()[10:]
    assert row.p == pytest.approx(stats.wilcoxon(x, y, zero_method="zsplit").pvalue)


def test_holm_covers_every_setting_and_metric_as_one_family():
    df = runs_frame().rename(columns={"seed": "puzzle.instance"})
    df = pd.concat([df.assign(width=6), df.assign(width=7)], ignore_index=True)
    df["other"] = df["best"]
    tests = pairwise(
        df, ["optimizer", "width", "puzzle.instance"], instance=["puzzle.instance"], metrics=("best", "other")
    )
    assert len(tests) == 4  # 2 settings x 2 metrics, one pair each
    assert tests["p_holm"].tolist() == pytest.approx(list(holm(tests["p"])))
    assert tests["p_holm"].iloc[0] == pytest.approx(min(1.0, 4 * tests["p"].iloc[0]))
