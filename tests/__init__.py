"""The tests, in folders that mirror the code they test (tests/core/ tests core/, tests/puzzles/edge_matching/
tests puzzles/edge_matching/, ...); tests/docs/ checks the pages, tests/house/ the project-wide rules, and
tests/oracles/ holds the independent oracles and seed baselines the tests compare against."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the repository: every test's paths start here
