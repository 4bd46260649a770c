"""The studies wing: each study that has code of its own is one folder here, holding its task (task.py,
the class its conf/task/<name>.yaml names in `_target_`), the table a run writes (table.py), its
report section (report.py), its plot (plot.py) and its configs (conf/task/<name>.yaml,
conf/experiment/<name>.yaml, conf/smoke_study/<name>_on.yaml). Hydra finds every studies/<name>/conf
through the search path plugin hydra_plugins/puzzlelab_studies, so `task=<name>`, `+experiment=<name>`
and `smoke=on` work as for configs/'s own, and a new study touches this folder and its docs page.

The floors (tests/house/test_floors.py): a study imports experiments/ (the wiring it plugs into) and core/
(faces, errors), never a puzzle family: it reaches the family through the puzzle class its config names
and the faces that class offers. Nothing in core/, heuristics/, puzzles/ or experiments/ imports a
study: the app builds its task from the config's `_target_` string, and the generic report
(experiments/report.py) finds its section through the task's `report_section` hook
(experiments/tasks/__init__.py `Task`).
"""
