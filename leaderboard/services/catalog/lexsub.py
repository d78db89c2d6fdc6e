"""LS07 and CoInCo splits on the site: imported from the field's files, with their boards.

Their labels are public (they are published with the data), so their splits are stored
with ``hidden=False``; the boards use the test phase: they are the field's official
evaluations, and what a board may show is decided by the family.
"""

from __future__ import annotations

from pathlib import Path

from sqlmodel import Session, select

from leaderboard.models import Benchmark, Board, Phase, Track
from leaderboard.scoring import SCORER_VERSION
from leaderboard.scoring.families import FAMILIES, LexsubFamily, lexsub_data_dir
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
                        seed: int = 0) -> Benchmark:
    """The stored split (made from the files in ``data_dir`` if absent); flushes."""
    family = lexsub_family(name)
    if split not in family.splits:
        raise BoardError(f"{family.title} has the splits {', '.join(family.splits)}, "
                         f"not {split!r}")
    existing = session.exec(select(Benchmark).where(
        Benchmark.name == name, Benchmark.version == VERSION, Benchmark.split == split)).first()
    if existing is not None:
        return existing
    source = family.build_source(split, data_dir or lexsub_data_dir())
    prepared = family.prepare(source, name=f"{name}-{split}", bootstrap=bootstrap, seed=seed)
    benchmark = Benchmark(name=name, version=VERSION, split=split, checksum=prepared.checksum,
                          hidden=False, n_targets=len(prepared.targets), source_bytes=source,
                          prepared_bytes=prepared.to_bytes(), scorer_version=SCORER_VERSION)
    session.add(benchmark)
    session.flush()
    return benchmark


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


def standard_boards(session: Session, data_dir: Path | None = None) -> list[Board]:
    """The four boards of :data:`STANDARD_BOARDS`; commits. Needs the data directory."""
    boards = [lexsub_board(session, name, split, track, data_dir=data_dir)
              for name, split, track in STANDARD_BOARDS]
    session.commit()
    return boards
