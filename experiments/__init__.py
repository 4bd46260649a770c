"""Experiments: Hydra entry points, run records, aggregation, statistics and plots."""
