"""The user pages name no issue and no commit: those belong to the run history.

A user page (README.md and every page under docs/ but the Benchmarks pages, docs/benchmarks.md and
docs/benchmarks/*.md) says what the project does and how to use it; which issue asked for a change, and
which commit measured a figure, are the history's: the Benchmarks pages and the benchmark log
(benchmarks/log/*.md, outside docs/) keep them. A figure on a user page cites its log entry, and the
entry holds the commit.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests import ROOT

HISTORY = {ROOT / "docs" / "benchmarks.md", *(ROOT / "docs" / "benchmarks").glob("*.md")}  # the run history
USER_PAGES = [ROOT / "README.md", *(p for p in sorted((ROOT / "docs").rglob("*.md")) if p not in HISTORY)]

ISSUE = re.compile(r"\bissues?\s+#?\d+|(?<![\w&#/])#\d+\b", re.IGNORECASE)  # "issue 34", "issues 33", "#12"
HEX = r"[0-9a-f]{7,40}"
# a hash with a letter and a digit (so neither a number nor a word), not part of a longer token or of a
# number in scientific notation (8.239166e+06); any hex after "code" or "commit" (1870004 is one too)
COMMIT = re.compile(
    rf"(?<![\w.+-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d){HEX}(?![\w+-])|\b(?:code|commits?)\s+{HEX}\b",
    re.IGNORECASE,
)


def findings(text: str) -> list[str]:
    """Each issue reference and commit hash in a text, with its line number."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        found += [f"{number}: issue reference {m.group(0)!r}" for m in ISSUE.finditer(line)]
        found += [f"{number}: commit {m.group(0)!r}" for m in COMMIT.finditer(line)]
    return found


def test_the_user_pages_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in USER_PAGES}
    assert {"README.md", "docs/index.md", "docs/extending.md"} <= names and "docs/benchmarks.md" not in names
    assert len(HISTORY) > 1 and not any(name.startswith("docs/benchmarks/") for name in names)
    assert len(USER_PAGES) >= 15


@pytest.mark.parametrize("page", USER_PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_user_page_names_no_issue_and_no_commit(page: Path):
    found = findings(page.read_text(encoding="utf-8"))
    assert not found, (
        f"{page.relative_to(ROOT)} names issues or commits (move them to the Benchmarks pages or the "
        "benchmark log):\n" + "\n".join(found)
    )


@pytest.mark.parametrize(
    ("text", "caught"),
    [
        ("Walking plateaus (issue 33).", 1),
        ("issues 33 and 34", 1),
        ("see #12 for why", 1),
        ("Issue #7", 1),
        ("code 094245e; since 6eecb86 the trace", 2),
        ("code 1870004, whose race", 1),
        ("commit af67e01", 1),
        ("a9f3c2d1e0b4a7c6d5e8f9a0b1c2d3e4f5a6b7c8", 1),
        ("[log](../benchmarks/log/bench_eternity2.md#run-20261125-141756)", 0),
        ("width=20000000, every=1048576, period=8.239166e+06", 0),
        ("the 8 x 8 board 0, 2026-11-25, 3.76 million", 0),
        ("words of hex letters: acceded, effaced, deadbeef", 0),
        ("&#8212; an HTML entity; colour #3f51b5", 0),
    ],
)
def test_the_check_itself(text: str, caught: int):
    assert len(findings(text)) == caught, findings(text)
