"""What a reader cites: the benchmark of a board (its family's BibTeX, the one copy) and this
leaderboard itself (``CITATION.cff`` at the repository root, as GitHub reads it)."""

from __future__ import annotations

from functools import cache
from typing import Any

import yaml

from leaderboard.config import PROJECT_ROOT
from leaderboard.scoring.bibtex import entry, plain
from leaderboard.scoring.families import family_for
from leaderboard.scoring.version import SCORER_VERSION

CFF_PATH = PROJECT_ROOT / "CITATION.cff"


@cache
def leaderboard_cff() -> dict[str, Any]:
    """``CITATION.cff`` parsed (read once per process: it changes with a release only)."""
    return yaml.safe_load(CFF_PATH.read_text(encoding="utf-8"))


def _author(person: dict[str, Any]) -> str:
    """A CFF author as BibTeX writes one: an entity braced whole (so that "The X
    contributors" is not read as a surname), a person as ``Family, Given``."""
    if "name" in person:
        return "{" + plain(person["name"]) + "}"
    return ", ".join(plain(person[k]) for k in ("family-names", "given-names") if k in person)


def leaderboard_bibtex(site_url: str) -> str:
    """This leaderboard as a BibTeX ``@software`` entry, from ``CITATION.cff``, with the URL
    the site is read at and the scorer version that computed its numbers."""
    cff = leaderboard_cff()
    return entry("software", "swords-leaderboard",
                 title="{" + plain(cff["title"]) + "}",
                 author=" and ".join(_author(a) for a in cff["authors"]),
                 version=str(cff.get("version", "")), url=site_url,
                 note=f"Scorer version {SCORER_VERSION}")


def board_citation(benchmark_name: str, site_url: str) -> dict[str, Any]:
    """A board's cite block, the about page's and the API's: the benchmark's entries and this
    leaderboard's."""
    family = family_for(benchmark_name)
    return {"benchmark": family.name, "title": family.title, "bibtex": list(family.bibtex),
            "leaderboard": leaderboard_bibtex(site_url)}
