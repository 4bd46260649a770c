"""The table each run of the study writes (the hardness study's boards): its file name, columns and clocks.

Apart from task.py, which writes it, and report.py, which joins every run's: neither imports the other."""

TABLE = "hardness_peak.parquet"
COLUMNS = [
    "n",
    "frame_colours",
    "colours",
    "instance_seed",
    "max_nodes",
    "solved",
    "censored",
    "nodes_to_first",
    "nodes_walked",
    "stop_reason",
    "scan_order",
    "count_cap",
    "solutions",
    "solutions_complete",
    "count_nodes_walked",
    "predicted_peak",
    "log10_expected_solutions",
    "first_board",
    "probe_seconds",
    "seconds",
    "count_seconds",
]
TIMING = ("probe_seconds", "seconds", "count_seconds")  # the machine's clocks: reproduce skips them
