"""puzzlelab's Hydra search path plugin: each study's own configs (studies/<name>/conf), study_configs.py."""
