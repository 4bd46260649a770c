"""The table each run of the study writes (the colour sweep's points): its file name, columns and clocks.

Apart from task.py, which writes it, and report.py, which joins every run's: neither imports the other."""

TABLE = "colour_sweep.parquet"
COLUMNS = [
    "n",
    "colours",
    "optimizer",
    "instance_seed",
    "match_rate",
    "edge_score",
    "unmatched_edges",
    "duplicates",
    "seconds",
    "cpu_seconds",
]
TIMING = ("seconds", "cpu_seconds")  # the machine's clocks: reproduce skips them
