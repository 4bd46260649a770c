"""The studies wing: each study that has code of its own is one folder here, holding its task (task.py,
the class its configs/task/<name>.yaml names in `_target_`), the table a run writes (table.py), its
report section (report.py) and its plot (plot.py); its configs stay in configs/
(configs/task/<name>.yaml, configs/experiment/<name>.yaml, configs/smoke_study/<name>_on.yaml), where
`task=<name>` and `+experiment=<name>` find them.

The floors (tests/test_floors.py): a study imports experiments/ (the wiring it plugs into) and core/
(faces, errors), never a puzzle family: it reaches the family through the puzzle class its config names
and the faces that class offers. Nothing in core/, heuristics/, puzzles/ or experiments/ imports a
study: the app builds its task from the config's `_target_` string, and the generic report
(experiments/report.py) finds its section through the task's `report_section` hook
(experiments/tasks/__init__.py `Task`).
"""
