"""MkDocs hooks: the repository files the documentation links to from outside docs/.

The pages link to the benchmark logs (benchmarks/log/*.md) and the example figures (results/examples/)
by their path in the repository (`../benchmarks/log/bench_galakub.md` from docs/benchmarks.md), so the
links work on GitHub. MkDocs only knows docs/: these hooks add those files to the site at the same path
under its root and point the links at them, so `mkdocs build --strict` checks every one (anchors too).
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent
OUTSIDE = ["benchmarks/log/*.md", "results/examples/*.png"]  # repository files the pages link to
LINK = re.compile(r"(\]\()([^)\s]+)(\))")


def on_files(files: Files, config) -> Files:
    for pattern in OUTSIDE:
        for path in sorted(ROOT.glob(pattern)):
            uri = path.relative_to(ROOT).as_posix()
            files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page, config, files: Files) -> str:
    """A link out of docs/ into a file added above points at its copy in the site."""
    folder = posixpath.dirname(page.file.src_uri)

    def inside(match: re.Match[str]) -> str:
        target, _, anchor = match.group(2).partition("#")
        if not target or "://" in target:
            return match.group(0)
        in_repo = posixpath.normpath(posixpath.join("docs", folder, target))
        if in_repo.startswith("docs/") or files.get_file_from_path(in_repo) is None:
            return match.group(0)
        moved = posixpath.relpath(in_repo, folder or ".")
        return f"{match.group(1)}{moved}{'#' + anchor if anchor else ''}{match.group(3)}"

    return LINK.sub(inside, markdown)
