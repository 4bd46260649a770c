"""Tests of studies/: a study as one folder, configs included."""
