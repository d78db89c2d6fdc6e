"""Every project file the README and the docs name exists (issue 19 item 20: the README
pointed to docs/scoring-spec.md, which is not in the repository)."""

from __future__ import annotations

import re

from leaderboard.config import PROJECT_ROOT

PATH = re.compile(r"`((?:docs|leaderboard|perf|scripts|tests|templates|static)/[\w./-]+"
                  r"\.(?:md|py|html|css|js|json))`")


def test_paths_named_in_readme_and_docs_exist():
    missing = []
    for doc in [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").glob("*.md"))]:
        for path in PATH.findall(doc.read_text()):
            if not (PROJECT_ROOT / path).exists():
                missing.append(f"{doc.name}: {path}")
    assert missing == []
