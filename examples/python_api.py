"""puzzlelab from Python: two optimisers on 20 queens, three seeds each, then the command line's tables.

python examples/python_api.py [out dir]     (default: results/api/queens)
"""

import sys

from experiments import api

out = sys.argv[1] if len(sys.argv) > 1 else "results/api/queens"
for optimizer in ("lahc", "sa"):
    for seed in range(3):
        row = api.run(
            puzzle="queens",
            optimizer=optimizer,
            seed=seed,
            overrides=["puzzle.n=20", "budget.evaluations=3000"],
            out=out,
        )
        print(
            f"{row['optimizer']:>5} seed {seed}: {row['best']:g} attacking pairs after {row['evaluations']} evaluations"
        )

runs = api.table(out)  # one row per run, the columns of a sweep's runs.csv
print(runs.groupby("optimizer")[["best", "evaluations"]].median())
print("report:", api.report(out) / "report.md")  # summary, comparisons, plots, IOHprofiler export
