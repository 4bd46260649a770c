"""Tests of benchmarks/: their settings, timing harness, resume benchmark and chain model."""
