"""Evidence tied to code: every commit a benchmark log entry, a benchmark's default or a page names is in
the history of HEAD (`git merge-base --is-ancestor <commit> HEAD`), so that its code can be checked out.

- A log entry (benchmarks/log/*.md) names the commit it ran, `- code: commit <sha>, ...`. An entry whose
  commit is not in the history (work that landed squashed into one commit, its own commits not kept)
  says so on the next line and names the commit that holds the work, which is:
  `- commit gone: <short sha> is not in main's history; its work landed in <commit> (...)`. An entry
  whose commit is in the history has no such line. Figures are never rewritten.
- A benchmark flag that names a baseline commit (`type=flags.commit`: bench_exact_edge census
  `--previous`) defaults to a commit of the history, by hash or by tag (a tag keeps a baseline fixed).
  A clone fetched without any tag skips the tag's check, saying so.
- A commit a page (docs/**/*.md, README.md) or a benchmark's code (benchmarks/*.py) names is in the
  history: 7 to 40 hex digits with a letter and a digit among them (`code 094245e`, `(66b6b44)`), or 7
  digits alone after `commit`, `commits` or `code`, or in brackets (`commit 9941140`, `(9941140)`).

A clone without the history (a shallow clone, `git clone --depth N`, or no .git at all) cannot tell
whether a commit is in it: these tests skip then, saying why. CI clones fully.
"""

from __future__ import annotations

import ast
import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

from tests import ROOT

LOGS = sorted((ROOT / "benchmarks" / "log").glob("*.md"))
BENCHMARKS = sorted((ROOT / "benchmarks").glob("*.py"))
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

CODE = re.compile(r"^- code: commit ([0-9a-f]{40})\b", re.M)
GONE = re.compile(
    r"^- commit gone: ([0-9a-f]{7,40}) is not in main's history; its work landed in ([0-9a-f]{7,40})\b"
)
TOKEN = re.compile(r"(?<![\w./#=+-])([0-9a-f]{7,40})(?![\w-])")
COMMIT_WORD = re.compile(r"(?:\b(?:commits?|code)\s+|\()$")
BASELINE_FLAG = re.compile(r"^--(?:previous|baseline|[\w-]*commit|[\w-]*rev)$")


def git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


@pytest.fixture(scope="module")
def history() -> None:
    """Skip, saying why, where this clone cannot tell what is in the history."""
    try:
        inside = git("rev-parse", "--is-inside-work-tree")
    except OSError:
        pytest.skip("git is not installed: the history cannot be read")
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        said = inside.stderr.strip().splitlines()[:1] or ["not a clone"]
        pytest.skip(f"git cannot read the history here (no .git?): {said[0]}")
    if git("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        pytest.skip("a shallow clone: commits past its depth look missing (git fetch --unshallow)")


@cache
def in_history(commit: str) -> bool:
    return git("merge-base", "--is-ancestor", commit, "HEAD").returncode == 0


# --- what names a commit -----------------------------------------------------------------------------


def log_entries(text: str) -> list[tuple[str, str]]:
    """(heading, text) of each entry of a run log, a `###` heading to the next (fenced output skipped)."""
    entries: list[tuple[str, str]] = []
    fenced = False
    for line in text.splitlines():
        fenced ^= line.startswith("```")
        if not fenced and line.startswith("### "):
            entries.append((line[4:].strip(), ""))
        elif entries:
            entries[-1] = (entries[-1][0], entries[-1][1] + line + "\n")
    return entries


def entry_problems(name: str, heading: str, text: str, in_history=in_history) -> list[str]:
    """What is wrong with one log entry's commit (the rules above)."""
    where = f"benchmarks/log/{name}#{heading}"
    code = CODE.search(text)
    if code is None:
        return [f"{where}: no `- code: commit <sha>` line"]
    commit = code.group(1)
    notes = [GONE.match(line) for line in text.splitlines() if line.startswith("- commit gone:")]
    if in_history(commit):
        return [f"{where}: says its commit {commit[:7]} is gone, but it is in the history"] if notes else []
    if not notes or notes[0] is None:
        return [
            f"{where}: commit {commit[:7]} is not in main's history; add the line `- commit gone: "
            f"{commit[:7]} is not in main's history; its work landed in <commit>` after its code line, "
            "naming the landed commit that holds the work (git log)"
        ]
    gone, landed = notes[0].groups()
    problems = [] if commit.startswith(gone) else [f"{where}: its gone note names {gone}, not {commit[:7]}"]
    if not in_history(landed):
        problems.append(f"{where}: its work is said to have landed in {landed}, which is not in the history")
    return problems


def named_commits(text: str) -> list[str]:
    """The commits a text names (the rules above)."""
    found = []
    for m in TOKEN.finditer(text):
        token = m.group(1)
        if not re.search(r"\d", token):
            continue  # a word of the letters a-f
        if not re.search(r"[a-f]", token) and not (
            len(token) == 7 and COMMIT_WORD.search(text[max(0, m.start() - 10) : m.start()])
        ):
            continue  # a number
        found.append(token)
    return found


def baseline_defaults(path: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """A benchmark's flags that name a baseline commit: ([(flag, default)], [flags naming a baseline
    without `type=flags.commit`])."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    constants = {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found, unchecked = [], []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument"):
            continue
        names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        keywords = {k.arg: k.value for k in node.keywords}
        kind = keywords.get("type")
        checked = isinstance(kind, ast.Attribute) and kind.attr == "commit"
        if checked:
            default = keywords.get("default")
            value = (
                default.value
                if isinstance(default, ast.Constant)
                else constants.get(default.id)
                if isinstance(default, ast.Name)
                else None
            )
            found.append((names[0], str(value)))
        elif any(BASELINE_FLAG.match(n) for n in names):
            unchecked.append(f"{path.name}: {names[0]}")
    return found, unchecked


# --- the checks ------------------------------------------------------------------------------------------


def test_every_log_entry_names_a_commit_of_main_or_where_its_work_landed(history):
    problems, entries = [], 0
    for path in LOGS:
        for heading, text in log_entries(path.read_text(encoding="utf-8")):
            entries += 1
            problems += entry_problems(path.name, heading, text)
    assert entries > 100, "few log entries found: has the log's format changed?"
    assert not problems, "log entries whose commit is not in main's history:\n" + "\n".join(problems)


def test_baseline_defaults_are_commits_of_main(history):
    problems, skipped, found = [], [], []
    for path in BENCHMARKS:
        flags, unchecked = baseline_defaults(path)
        problems += [f"{u} names a baseline without type=flags.commit" for u in unchecked]
        found += [(path.name, flag, default) for flag, default in flags]
    assert found or problems, "no flag of type flags.commit found: bench_exact_edge census --previous has one"
    for name, flag, default in found:
        if default in ("none", "None"):
            continue
        resolved = git("rev-parse", "--verify", "--quiet", f"{default}^{{commit}}")
        if resolved.returncode != 0:
            if not re.fullmatch(r"[0-9a-f]{7,40}", default) and not git("tag", "--list").stdout.strip():
                skipped.append(
                    f"{name} {flag} {default}: this clone has no tags (fetched without them: git fetch "
                    "--tags; or the tag is still to be made: the comment above the default says where)"
                )
            else:
                problems.append(
                    f"{name} {flag}: its default {default} is no commit of this clone (a tag to create? "
                    "the comment above the default says where it points)"
                )
        elif not in_history(resolved.stdout.strip()):
            problems.append(f"{name} {flag}: its default {default} is not in main's history")
    assert not problems, "baselines benchmarks cannot check out:\n" + "\n".join(problems)
    if skipped:
        pytest.skip("; ".join(skipped))


def test_commits_named_in_pages_and_benchmarks_are_in_main(history):
    problems, named = [], 0
    for path in [*PAGES, *BENCHMARKS]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for commit in named_commits(line):
                named += 1
                if not in_history(commit):
                    problems.append(f"{path.relative_to(ROOT)}:{number}: {commit} is not in main's history")
    assert named > 10, "few commits found: has the way pages name commits changed?"
    assert not problems, "commits named but not in main's history (name the landed one):\n" + "\n".join(
        problems
    )


# --- the checks' own reading, on made-up text (no git) -------------------------------------------------


def test_what_counts_as_a_named_commit():
    text = (
        "code 094245e; since a4c5a4e; (66b6b44); commit 9941140 and (1234567); `--max-width 1000000`, "
        "capped at 2000000 nodes; run-20261128-074919; decade; b841f29's; deadbeefcafe1"
    )
    assert named_commits(text) == [
        "094245e",
        "a4c5a4e",
        "66b6b44",
        "9941140",
        "1234567",
        "b841f29",
        "deadbeefcafe1",
    ]


def test_a_gone_commit_needs_its_note_and_the_note_a_landed_commit():
    sha = "9782dab0aa72f3a7347209ef1f6224c6219f6270"
    landed = {"b841f29"}
    known = lambda commit: commit in landed or commit == "a" * 40  # noqa: E731
    entry = f"\n- code: commit {sha}, tree clean\n- software: Python 3.11\n"
    (missing,) = entry_problems("bench_x.md", "run-1", entry, known)
    assert "add the line `- commit gone: 9782dab is not in main's history" in missing
    noted = entry.replace(
        "tree clean\n",
        "tree clean\n- commit gone: 9782dab is not in main's history; its work landed in b841f29 (x)\n",
    )
    assert entry_problems("bench_x.md", "run-1", noted, known) == []
    wrong = noted.replace("landed in b841f29", "landed in 1234abc")
    assert (
        "landed in 1234abc, which is not in the history"
        in entry_problems("bench_x.md", "run-1", wrong, known)[0]
    )
    kept = noted.replace(sha, "a" * 40)
    assert "is in the history" in entry_problems("bench_x.md", "run-1", kept, known)[0]
    assert "no `- code: commit" in entry_problems("bench_x.md", "run-1", "- date: today\n", known)[0]
