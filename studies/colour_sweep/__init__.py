"""The colour-count sweep (seed 001's analysis): match rate against the colour count of an
edge-matching board (`+experiment=colour_sweep`, docs/studies/colour-sweep.md).

task.py: `ColourSweep` (task=colour_sweep); report.py: its part of the sweep's report; plot.py: the
seed's figure; conf/: its configs (task, experiment, smoke_study), which Hydra finds here. The family's side (which colour counts a board takes, one table row per board) is the
puzzle class's `sweep_colours`, `colour_limits` and `sweep_point`.
"""
