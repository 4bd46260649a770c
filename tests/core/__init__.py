"""Tests of core/: the objective and budgets, and the faces every puzzle config offers."""
