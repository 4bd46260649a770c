"""puzzlelab's Hydra sweeper on Optuna's ask/tell interface (hydra/sweeper=optuna): see optuna_sweeper.py."""
