"""Tests of studies/colour_sweep/."""
