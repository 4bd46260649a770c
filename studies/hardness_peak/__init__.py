"""The hardness peak: how hard planted Eternity-II-like boards are for the exact search as the inner
colour count grows (`+experiment=hardness_peak`, docs/studies/hardness-peak.md).

task.py: `HardnessPeak` (task=hardness_peak); report.py: its part of the sweep's report; plot.py: a
figure per board size; conf/: its configs (task, experiment, smoke_study), which Hydra finds here. The family's side (one board measured under node caps) is the puzzle class's
`hardness`, `check_hardness` and `hardness_search`.
"""
