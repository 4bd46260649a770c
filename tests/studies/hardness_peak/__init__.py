"""Tests of studies/hardness_peak/."""
