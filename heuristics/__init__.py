"""Optimisers. They see a search space and an objective to minimise, never a puzzle."""
