"""Tests of experiments/ and the Hydra plugins: the app's runs, sweeps, tuning, reports, records and clusters."""
