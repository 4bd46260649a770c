"""puzzlelab's Hydra launcher for Slurm (hydra/launcher=slurm): see slurm_launcher.py."""
