"""The documentation agrees with its benchmark logs, and its links work in place and in the site (issue 44, item 6).

Figures. A page cites a run by linking its log entry, `[log](../benchmarks/log/bench_x.md#run-...)`,
by the entry's path from the page (so the link works where the file sits). Every figure of a cited
table row, and of a cited sentence, must be printed in an entry that row or sentence cites:

- A table row is cited by the log links in its cells; a row with none takes the links of the sentence
  that introduces its table (the one just above it, ending with ":"). Its first cell (what was measured,
  with the command's settings) and the cells under `target` or `met?` (the goal and the verdict) are
  not checked; every other cell is. Outside tables, a sentence that links a log entry is checked.
- Not figures of a run: inline code (commands, settings, file names), link targets and run ids shown
  as link text, dates and times of day, `issue N`, `#N` (a board's or seed's index), sizes `A x B` and
  `AxB`, the whole in `k of N` (a board's joins or cells, the boards of a set), a commit after `code` or
  `commit`, and digits run into a word (a commit hash, `x2`).
- Figures quoted from elsewhere say so: a clause saying `not logged` is not checked, up to the next
  citation or the end of the bracket it is in; nor is a bracket opened by `was` or `were` (the figure
  of an earlier session, as docs/benchmarks/speed.md explains). A figure worked out from the entry (a
  sum, a difference, a rate) or a setting of the run is listed in EXEMPT below with how; each listed
  phrase must still be on its page.
- A figure is found when a number of a cited entry rounds to it at the page's precision: `96.2 M` is
  96,197,783, `6.1-105 billion` is 6,056,018,900 to 105,228,467,297 (a range, a slash pair and a
  `min`/`max` bracket take the scale and unit of the figure they belong to), `0.61 ms` is 611.8 us.
- A figure with its rate, `22 (93.5%)`, must be printed with that rate, `22 (93.5%`, as the logs print
  a median: a per-board line `22 unmatched (93.5%)` of the same entry does not make it a median.

Links. Every relative link of README.md and docs/**/*.md must name a file that exists relative to the
page, as the repository's web view reads the files in place, and an anchor into a markdown file must be
one of its headings. A link from docs/ out of docs/ must land on a file mkdocs_hooks.py copies into the
site at the same path (its OUTSIDE: benchmarks/log/*.md, results/examples/*.png), so the same link
works in the built site too (`mkdocs build --strict` checks the site's links and anchors).
"""

from __future__ import annotations

import ast
import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path

import pytest

from tests import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LOG_DIR = ROOT / "benchmarks" / "log"

LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]+)\)")  # [text](target), images too
LOG_TARGET = re.compile(r"(?:^|/)benchmarks/log/([\w.-]+\.md)#([\w-]+)$")
CITE = "\x00"  # where a log link was, once it is taken out of the text

SCALES = {"thousand": 3, "k": 3, "million": 6, "M": 6, "billion": 9, "bn": 9}
SECONDS = {
    "us": "0.000001",
    "µs": "0.000001",
    "ms": "0.001",
    "s": "1",
    "min": "60",
    "minutes": "60",
    "h": "3600",
}
NUMBER = re.compile(
    r"(?<![\w.])(?P<int>\d{1,3}(?:,\d{3})+(?!\d|,\d)|\d+)(?P<frac>\.\d+)?(?:e\+?(?P<exp>\d+))?"
    r"(?P<suffix>[A-Za-z_]\w*)?"
    r"(?:\s?(?P<scale>thousand|million|billion|bn|M|k)\b)?"
    r"(?:\s?(?P<unit>us|µs|ms|s|min|minutes|h)\b)?"
)
PAIR = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\**\s?\((\d+(?:\.\d+)?)%")  # 22 (93.5%)

NOT_FIGURES = [  # taken out of a cited text before its numbers are read (the rules above)
    re.compile(r"`[^`]*`"),  # code
    re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),  # a date
    re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b"),  # a time of day
    re.compile(r"\bissues? \d+(?:(?:,| and) \d+)*"),  # an issue
    re.compile(r"#\d+"),  # an index
    re.compile(r"\b\d+ ?x ?\d+(?: ?x ?\d+)?\b"),  # a size
    re.compile(r"(?<=\bof )\d{1,3}(?:,\d{3})*\b(?![.,]\d|%)"),  # the whole in "k of N"
    re.compile(r"\b(?:code|commits?)\s+[0-9a-f]{7,40}(?:(?:,| and)\s+[0-9a-f]{7,40})*\b"),  # a commit
]

# Figures worked out from their entries, not printed in them: page -> (phrase, how). The phrase's
# numbers are not looked up; the phrase must still be on the page.
EXEMPT: dict[str, list[tuple[str, str]]] = {
    "docs/benchmarks/eternity2.md": [  # the run history, moved from the puzzles page
        ("the schedule's 16 breaks: 480 - 16", "the break schedule's length (a setting) and the sum"),
        ("hands over (420 s)", "the portfolio's setting for this run, `breaks` for 420 s of 600"),
        (
            "(`width` 200,000 widened to 20,000,000 near the end)",
            "the racing beam's settings (beam_refine's)",
        ),
        (
            "138 unmatched joins in all against the beam's 139",
            "the sums of the boards' lists of the entries cited in the row",
        ),
        (
            "149 against 154; better on 4, equal on 6, worse by 1 join on 2",
            "the sums of the twelve boards' lists of the cited entries, and the boards compared one by one",
        ),
        (
            "150 against 150 for 1be579f; better on 1, equal on 10, worse by 1 join on 1",
            "the sums of the twelve boards' lists of the cited entries, and the boards compared one by one",
        ),
        (
            "150 against 150; better on 1, equal on 10, worse by 1 join on 1",
            "the same sums, in the row's full text",
        ),
    ],
    "docs/benchmarks/eternity2-compiled.md": [
        ("which 870 CPU s of window search", "1,200 CPU s less the beam's 330"),
        ("13.5 minutes wall a seed", "the run's 2,429 s wall over its 3 seeds"),
    ],
    "docs/benchmarks/exact-edge.md": [
        ("about 100 M nodes/s on the two cores", "nodes over wall seconds, board by board"),
    ],
    "docs/slurm.md": [
        (
            "runs of about 0.1 s (SA on the pentomino strip, 8,000 evaluations)",
            "what each run is: the benchmark's setting",
        ),
    ],
    "docs/studies/exact-edge-matching.md": [
        ("about 390-450 M nodes/s on the two threads", "nodes over wall seconds, board by board"),
        ("within about 20% of whole 6 x 6 trees", "the entry's estimates against its actual trees"),
        ("(**3.5-4.5x** fewer)", "the nodes without symmetry over those with it, board by board"),
        ("Summed over the 12 boards that finished", "the boards not capped on every order, counted"),
        (
            "takes 361 million nodes of wall time, racing two orders for the whole run 405 million, racing "
            "four 330 million",
            "each way's wall time summed over the boards' lines",
        ),
        ("faster than either race on 9 of the 12", "the boards' lines compared"),
        ("won three times (1.5x to", "the boards' lines compared"),
        ("15x) and lost by up to 4x", "the boards' lines compared"),
    ],
}


# --- the logs ---------------------------------------------------------------------------------------


@cache
def log_entries(name: str) -> dict[str, str]:
    """The entries of benchmarks/log/<name>: anchor -> its text (heading to the next heading)."""
    path = LOG_DIR / name
    if not path.is_file():
        return {}
    entries: dict[str, str] = {}
    anchor, fenced = None, False
    for line in path.read_text(encoding="utf-8").splitlines():
        fenced ^= bool(re.match(r"\s*(```|~~~)", line))
        heading = None if fenced else re.match(r"#{1,6}\s+(.+?)\s*$", line)
        if heading:
            anchor = slug(heading.group(1))
            entries[anchor] = ""
        elif anchor is not None:
            entries[anchor] += line + "\n"
    return entries


@dataclass(frozen=True)
class Number:
    value: Decimal  # scale words applied: 96.2 M is 96,200,000
    places: int  # decimals kept at that scale: 96.2 M keeps -5
    unit: Decimal | None  # seconds in one of its time unit (ms: 0.001), if it has one
    raw: str  # as written

    def rounds_from(self, logged: Number) -> bool:
        """Whether a logged number, rounded to this one's precision, is this one."""
        half = Decimal(5).scaleb(-self.places - 1)
        if abs(logged.value - self.value) <= half:
            return True
        if self.unit is None or logged.unit is None:
            return False
        return abs(logged.value * logged.unit - self.value * self.unit) <= half * self.unit


def numbers(text: str) -> list[Number]:
    """The numbers of a text. A range, a slash pair (`0.59 / 0.68 ms`) and `min A, max B` after a figure
    take the scale and unit of the figure they belong to."""
    found: list[tuple[Decimal, int, int, str | None, re.Match[str]]] = []
    for m in NUMBER.finditer(text):
        if m.group("suffix") and m.group("suffix") != "x":
            continue  # digits run into a word (a hash, a name); 1.7x is a ratio
        mantissa = Decimal(m.group("int").replace(",", "") + (m.group("frac") or ""))
        places = len(m.group("frac") or ".") - 1
        power = int(m.group("exp") or 0) + SCALES.get(m.group("scale") or "", 0)
        found.append((mantissa, places, power, m.group("unit"), m))
    for i in range(len(found) - 2, -1, -1):  # A-B million: A in millions too
        mantissa, places, power, unit, m = found[i]
        _, _, next_power, next_unit, following = found[i + 1]
        joined = re.fullmatch(r"\s*(?:-|–|/|to)\s*", text[m.end() : following.start()])
        if joined and power == 0 and unit is None and not m.group("suffix"):
            found[i] = (mantissa, places, next_power, next_unit, m)
    bounds = [
        bool(re.search(r"\b(?:min|max)\s$", text[max(0, f[4].start() - 8) : f[4].start()])) for f in found
    ]
    for i, (mantissa, places, power, unit, m) in enumerate(found):  # 2.34 million (min 2.33, max 2.39)
        figure = next((f for f, bound in zip(found[:i][::-1], bounds[:i][::-1]) if not bound), None)
        if bounds[i] and power == 0 and unit is None and figure and m.start() - figure[4].end() < 80:
            found[i] = (mantissa, places, figure[2], figure[3], m)
    return [
        Number(
            mantissa.scaleb(power),
            places - power,
            Decimal(SECONDS[unit]) if unit else None,
            m.group(0),
        )
        for mantissa, places, power, unit, m in found
    ]


@cache
def entry_figures(text: str) -> tuple[tuple[Number, ...], str]:
    """The numbers a log entry prints, and its text with thousands commas dropped."""
    return tuple(numbers(text)), re.sub(r"(?<=\d),(?=\d{3})", "", text)


# --- the pages ---------------------------------------------------------------------------------------


def slug(heading: str) -> str:
    """MkDocs' anchor for a heading (the toc extension's default slugify)."""
    text = re.sub(r"`|\*\*|__|\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, line) of a page outside fenced code blocks."""
    lines, fenced = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if re.match(r"\s*(```|~~~)", line):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def blocks(path: Path):
    """(kind, lines) for each table ("table") and each paragraph or list item ("prose") of a page."""
    current: list[tuple[int, str]] = []
    kind = None
    for number, line in [*prose_lines(path), (0, "")]:
        table = line.lstrip().startswith("|")
        starts = not line.strip() or table != (kind == "table") or re.match(r"\s*(?:[-*+]|\d+\.)\s|#", line)
        if starts and current:
            yield kind, current
            current = []
        if line.strip():
            kind = "table" if table else "prose"
            current.append((number, line))


def split_cells(row: str) -> list[str]:
    """The cells of a table row, a `|` inside inline code kept."""
    cells, cell, code = [], "", False
    for char in row.strip().strip("|"):
        code ^= char == "`"
        if char == "|" and not code:
            cells.append(cell)
            cell = ""
        else:
            cell += char
    return [*cells, cell]


def log_links(text: str) -> list[tuple[str, str]]:
    """(log file, anchor) of each log link in a text."""
    return [
        (m.group(1), m.group(2)) for link in LINK.finditer(text) if (m := LOG_TARGET.search(link.group(2)))
    ]


def sentences(text: str) -> list[str]:
    """A paragraph's sentences: a full stop, ! or ? then a space and a capital, a bracket or markup."""
    return re.split(r"(?<=[.!?])\s+(?=[A-Z*(`\[])", text)


@dataclass
class Cited:
    """A table row or a sentence, the log entries it cites, and the parts of it whose figures are checked."""

    page: Path
    line: int
    entries: list[tuple[str, str]]  # (log file, anchor)
    parts: list[str]

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def cited(path: Path) -> list[Cited]:
    """Every cited table row and sentence of a page."""
    found: list[Cited] = []
    intro: list[tuple[str, str]] = []  # the links of a sentence ending with ":", for the table under it
    for kind, lines in blocks(path):
        if kind == "table":
            header = [cell.strip().lower() for cell in split_cells(lines[0][1])]
            skipped = {0} | {i for i, name in enumerate(header) if name in ("target", "met?")}
            for number, row in lines[2:]:
                entries = log_links(row) or intro
                if entries:
                    parts = [cell for i, cell in enumerate(split_cells(row)) if i not in skipped]
                    found.append(Cited(path, number, entries, parts))
            intro = []
            continue
        said = sentences(" ".join(line.strip() for _, line in lines))
        for sentence in said:
            if entries := log_links(sentence):
                found.append(Cited(path, first_line(lines, sentence), entries, [sentence]))
        intro = log_links(said[-1]) if said[-1].rstrip().endswith(":") else []
    return found


def first_line(lines: list[tuple[int, str]], sentence: str) -> int:
    """The line of a paragraph a sentence starts on."""
    start = sentence.strip()[:20]
    return next((number for number, line in lines if start in line), lines[0][0])


def clause_start(text: str, at: int) -> int:
    """Where the clause around text[at] starts: after a `;`, an open bracket or a citation before it."""
    start, depth = at, 0
    while start > 0:
        char = text[start - 1]
        if char == ")":
            depth += 1
        elif char == "(" and depth:
            depth -= 1
        elif char in "(;" + CITE and not depth:
            break
        start -= 1
    return start


def drop_not_logged(text: str) -> str:
    """The text without its clauses saying `not logged`: from the start of the clause to the next citation
    or the end of the bracket it is in. `X (not logged)`: the bracket says it of the clause before it."""
    while (at := text.find("not logged")) >= 0:
        start, end, depth = clause_start(text, at), at, 0
        while end < len(text) and text[end] != CITE and depth >= 0:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        if start and text[start - 1] == "(" and not re.search(r"\d", text[start:end]):
            start = clause_start(text, start - 1)
        text = text[:start] + " " + text[end:]
    return text


def checked_text(page: Path, part: str) -> str:
    """The text of a cited part whose numbers are figures of the cited runs (the rules above)."""
    text = LINK.sub(lambda m: CITE if LOG_TARGET.search(m.group(2)) else m.group(1), part)
    for phrase, _ in EXEMPT.get(str(page.relative_to(ROOT)), []):
        text = text.replace(phrase, " ")
    text = drop_not_logged(text)
    text = re.sub(r"[(;]\s*(?:was|were)\b[^)]*\)", " ", text)  # (was 853x): a figure of 2026-11-23
    for pattern in NOT_FIGURES:
        text = pattern.sub(" ", text)
    return text


def misses(item: Cited, entries: Callable[[str], dict[str, str]] = log_entries) -> list[str]:
    """What is wrong with a cited row or sentence: each figure none of its entries prints.
    entries(log file name) -> {anchor: text}."""
    names = ", ".join(f"{name}#{anchor}" for name, anchor in item.entries)
    known = [(name, anchor) for name, anchor in item.entries if anchor in entries(name)]
    out = [
        f"{item.where}: cites {name}#{anchor}, which is no entry of benchmarks/log/"
        for name, anchor in item.entries
        if (name, anchor) not in known
    ]
    logged: list[Number] = []
    texts: list[str] = []
    for name, anchor in known:
        figures, text = entry_figures(entries(name)[anchor])
        logged += figures
        texts.append(text)
    for part in item.parts:
        text = checked_text(item.page, part)
        for number in numbers(text):
            if not any(number.rounds_from(figure) for figure in logged):
                out.append(f"{item.where}: {number.raw!r} is in none of the entries it cites ({names})")
        for m in PAIR.finditer(text):
            figure, rate = m.group(1).replace(",", ""), m.group(2)
            printed = rf"(?<![\d.]){re.escape(figure)}\s?\({re.escape(rate)}%"
            if not any(re.search(printed, t) for t in texts):
                out.append(
                    f"{item.where}: {m.group(0).replace('*', '')}) is not printed with that rate "
                    f"in the entries it cites ({names})"
                )
    return out


def test_pages_cite_log_entries():
    """The check below reads what it should: the pages' citations are found."""
    items = [item for page in PAGES for item in cited(page)]
    assert len(items) > 40, "few citations found: has the way pages cite log entries changed?"
    pages = {item.page.name for item in items}
    assert pages >= {"speed.md", "eternity2.md", "edge-matching.md", "exact-edge-matching.md"}


def test_cited_figures_are_in_their_log_entries():
    problems = [miss for page in PAGES for item in cited(page) for miss in misses(item)]
    assert not problems, "figures the cited log entries do not print:\n" + "\n".join(problems)


def test_exempt_phrases_are_still_on_their_pages():
    stale = [
        f"{page}: {phrase!r}"
        for page, phrases in EXEMPT.items()
        for phrase, _ in phrases
        if phrase not in (ROOT / page).read_text(encoding="utf-8")
    ]
    assert not stale, "EXEMPT lists phrases no longer on their page (drop or update them):\n" + "\n".join(
        stale
    )


@pytest.mark.parametrize(
    ("text", "entry", "wrong"),
    [
        ("median **19 (94.4%)**, 95%", "median 19 (94.4%; 95% allows 16)", []),
        ("median 22 (93.5%)", "median 23 (93.2%; ...)\n  instance 3: 22 unmatched (93.5%)", ["22 (93.5%)"]),
        ("96.2 M nodes/s (min 91.1, max 97.6)", "= 96,197,783 nodes/s (min 91,061,081, max 97,572,611)", []),
        ("96.3 M nodes/s", "= 96,197,783 nodes/s", ["'96.3 M'"]),
        ("0.61 ms and 6.1-105 billion nodes", "611.8 us; 6,056,018,900 and 105,228,467,297 nodes", []),
        ("1.16-1.32 billion", "1,184,895,360 and 1,317,771,648", ["'1.16'"]),
        ("`--seconds 600`, issue 34, #8, 8 x 8, 464 of 480, code 6cf04a2", "464", []),
        ("457 (was 453); 2026-11-23, not logged: 452", "457", []),
        ("an estimated 2.5e11 tree", "113,444,911,988 nodes", ["'2.5e11'"]),
    ],
)
def test_the_check_itself(text: str, entry: str, wrong: list[str]):
    """The rules above on a made-up entry: what passes and what is caught, and how it is reported."""
    item = Cited(ROOT / "docs" / "x.md", 1, [("made_up.md", "run-1")], [text])
    out = misses(item, lambda name: {"run-1": entry})
    assert len(out) == len(wrong), out
    for miss, figure in zip(out, wrong):
        assert figure in miss and "docs/x.md:1:" in miss and "made_up.md#run-1" in miss, miss


# --- links ---------------------------------------------------------------------------------------------


def relative_links(path: Path):
    """(line, target) of every relative link of a page outside code."""
    for number, line in prose_lines(path):
        for link in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            target = link.group(2)
            if not re.match(r"[a-zA-Z][\w+.-]*:|/", target):  # not a URL (https:, mailto:) or absolute path
                yield number, target


@cache
def anchors(path: Path) -> frozenset[str]:
    """The anchors of a markdown file: its headings' slugs, or their explicit `{#id}`."""
    names = set()
    for _, line in prose_lines(path):
        if heading := re.match(r"#{1,6}\s+(.+?)\s*$", line):
            explicit = re.search(r"\{#([\w-]+)\}", heading.group(1))
            names.add(explicit.group(1) if explicit else slug(heading.group(1)))
    return frozenset(names)


def copied_into_the_site() -> list[str]:
    """mkdocs_hooks.OUTSIDE, the repository files the site copies at their own paths (read, not imported:
    the hooks import mkdocs, which only the docs extra installs)."""
    tree = ast.parse((ROOT / "mkdocs_hooks.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "OUTSIDE" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("mkdocs_hooks.py has no OUTSIDE list")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_work_where_the_page_sits(page: Path):
    problems = []
    docs = ROOT / "docs"
    for number, target in relative_links(page):
        file, _, anchor = target.partition("#")
        where = (page.parent / file).resolve() if file else page
        shown = f"{page.relative_to(ROOT)}:{number}: {target}"
        if not where.exists():
            problems.append(f"{shown} names no file (it resolves to {where})")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            problems.append(f"{shown}: {where.name} has no heading #{anchor}")
        elif page.is_relative_to(docs) and not where.is_relative_to(docs):
            in_repo = where.relative_to(ROOT).as_posix() if where.is_relative_to(ROOT) else str(where)
            if not any(fnmatch.fnmatch(in_repo, pattern) for pattern in copied_into_the_site()):
                problems.append(f"{shown}: {in_repo} is outside docs/ and mkdocs_hooks.py does not copy it")
    assert not problems, "links that break where the page sits (the repository's web view):\n" + "\n".join(
        problems
    )
