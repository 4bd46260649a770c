"""Tests whose subject is the documentation: the commands, links, citations and named commits of README.md,
docs/ and the benchmark logs, and the project's copies of docs/extending.md's examples."""
