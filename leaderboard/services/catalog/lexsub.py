"""LS07 and CoInCo splits on the site: imported from the field's files, with their boards.

Their labels are public (they are published with the data), so their splits are stored
with ``hidden=False``; the boards use the test phase: they are the field's official
evaluations, and what a board may show is decided by the family.
"""

from __future__ import annotations

from pathlib import Path

from sqlmodel import Session

from leaderboard.models import Board, Phase, Split, Track
from leaderboard.scoring.families import FAMILIES, LexsubFamily, lexsub_data_dir
from leaderboard.services.catalog.benchmarks import import_family_split
from leaderboard.services.catalog.boards import BoardError, create_board

VERSION = "1"
#: What ``make run`` sets up when the data is present: the protocols papers report.
STANDARD_BOARDS = (
    ("semeval07", "all", Track.RANKING),
    ("semeval07", "test", Track.GENERATIVE),
    ("coinco", "all", Track.RANKING),
    ("coinco", "test", Track.GENERATIVE),
)


def lexsub_family(name: str) -> LexsubFamily:
    """The LS07 or CoInCo adapter; BoardError for any other name."""
    family = FAMILIES.get(name)
    if not isinstance(family, LexsubFamily):
        names = ", ".join(n for n, f in FAMILIES.items() if isinstance(f, LexsubFamily))
        raise BoardError(f"{name!r} is not a benchmark read from the field's files ({names})")
    return family


def import_lexsub_split(session: Session, name: str, split: str, *,
                        data_dir: Path | None = None, bootstrap: int = 1000,
                        seed: int = 0) -> Split:
    """The stored split (made from the files in ``data_dir`` if absent); flushes."""
    return import_family_split(session, lexsub_family(name), version=VERSION, split=split,
                               data_dir=data_dir or lexsub_data_dir(), bootstrap=bootstrap,
                               seed=seed)


def lexsub_board(session: Session, name: str, split: str, track: str, *,
                 data_dir: Path | None = None) -> Board:
    """The board of ``name``/``split``/``track`` (``semeval07-all-ranking``), made if absent."""
    from leaderboard.services.catalog.references import (
        ensure_random_reference,
        ensure_upper_bound_reference,
    )

    benchmark = import_lexsub_split(session, name, split, data_dir=data_dir)
    board = create_board(session, benchmark, track=track, phase=Phase.TEST,
                         slug=f"{name}-{split}-{track}")
    if track == Track.RANKING:
        ensure_random_reference(session, benchmark)
    else:
        ensure_upper_bound_reference(session, benchmark)
    return board


