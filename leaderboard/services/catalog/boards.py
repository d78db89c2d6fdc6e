"""Leaderboards (boards): a benchmark split × track × phase, each with its own ranking.

A split imported with :func:`~leaderboard.services.catalog.benchmarks.import_benchmark` gets
its generative board; more are made with :func:`create_board` (``leaderboard board
create``). One board is the default: what ``/`` shows and what an upload goes to when it
names none.
"""

from __future__ import annotations

import re
from typing import Any

from sqlmodel import Session, col, select

from leaderboard.models import Board, Phase, Release, Split, Track
from leaderboard.services import refresh_requests

SLUG_PATTERN = re.compile(r"^[a-z0-9][a-z0-9.-]{0,119}$")


class BoardError(ValueError):
    """A board that cannot be made or found as asked; the message says why."""


def default_slug(benchmark: Split, track: str, phase: str) -> str:
    """``swords-v1.1-test-generative``; the phase is added only when it is not the split's name."""
    parts = [benchmark.name, f"v{benchmark.version}", benchmark.split, track]
    if phase != benchmark.split:
        parts.append(phase)
    return re.sub(r"[^a-z0-9.]+", "-", "-".join(parts).lower()).strip("-")[:120]


def create_board(session: Session, benchmark: Split, *, track: str = Track.GENERATIVE,
                 phase: str | None = None, slug: str | None = None,
                 make_default: bool = False, release: str | None = None) -> Board:
    """The board of ``benchmark`` for ``track`` and ``phase``, made if absent; flushes.

    ``phase`` defaults to test for a split with hidden labels and dev otherwise. A dev board
    shows the gold, so it is refused on a split whose labels are hidden. A new board's
    ``release`` defaults to :func:`default_release` (an existing one keeps its own:
    :func:`leaderboard.services.ranking.ladder.set_release` changes it).
    """
    if release is not None and release not in Release.ALL:
        raise BoardError(f"release must be one of {', '.join(Release.ALL)}, not {release!r}")
    if track not in Track.ALL:
        raise BoardError(f"track must be one of {', '.join(Track.ALL)}, not {track!r}")
    from leaderboard.scoring.families import family_for

    offered = getattr(family_for(benchmark.name), "tracks", Track.ALL)
    if track not in offered:  # TSAR-2022: no candidate pool, so no ranking track
        raise BoardError(f"{describe_benchmark(benchmark)} has only the "
                         f"{', '.join(offered)} track")
    phase = phase or (Phase.TEST if benchmark.hidden else Phase.DEV)
    if phase not in Phase.ALL:
        raise BoardError(f"phase must be one of {', '.join(Phase.ALL)}, not {phase!r}")
    if phase == Phase.DEV and benchmark.hidden:
        raise BoardError(
            f"{describe_benchmark(benchmark)} has hidden labels; a dev board would show them "
            "in its diagnostics. Import a split with public labels (benchmark import --public).")
    existing = session.exec(select(Board).where(
        Board.split_id == benchmark.id, Board.track == track, Board.phase == phase)).first()
    if existing is None:
        slug = slug or default_slug(benchmark, track, phase)
        if not SLUG_PATTERN.fullmatch(slug):
            raise BoardError(f"slug {slug!r} must be lower-case letters, digits, '.' and '-'")
        if board_by_slug(session, slug) is not None:
            raise BoardError(f"a board with slug {slug!r} exists already")
        existing = Board(slug=slug, split_id=benchmark.id, track=track, phase=phase,
                         release=release or default_release(benchmark, phase))
        session.add(existing)
        session.flush()
        refresh_requests.ask(session, existing.id)  # type: ignore[arg-type]
    if make_default or default_board(session) is None:
        set_default(session, existing)
    session.flush()
    return existing


def default_release(benchmark: Split, phase: str) -> str:
    """``ladder`` for a test board whose labels are hidden (each submission would otherwise
    read some of them back), ``full`` elsewhere: the dev phase is where teams iterate."""
    return Release.LADDER if phase == Phase.TEST and benchmark.hidden else Release.FULL


def board_views(board: Board, session: Session | None = None) -> str:
    """The view set of ``board`` (its metrics and views: the track, per benchmark family)."""
    from sqlalchemy.orm import object_session

    session = session or object_session(board)
    benchmark = session.get(Split, board.split_id, options=Split.without_files())
    return view_set(board.track, benchmark.name)


def board_family(board: Board | None, session: Session | None = None) -> str:
    """The benchmark family of ``board`` ("" for none): how its numbers print
    (:mod:`leaderboard.scoring.printing`)."""
    from sqlalchemy.orm import object_session

    from leaderboard.scoring.families import family_for

    if board is None:
        return ""
    session = session or object_session(board)
    return family_for(session.get(Split, board.split_id, options=Split.without_files()).name).name


def view_set(track: str, benchmark_name: str) -> str:
    """The views of a board: its track on SWORDS, ``lexsub-<track>`` on LS07 and CoInCo
    (the metrics and views themselves: :mod:`leaderboard.services.ranking.metric_info`)."""
    from leaderboard.scoring.families import SWORDS, family_for

    family = family_for(benchmark_name)
    return track if family is SWORDS else f"{family.views}-{track}"


def set_default(session: Session, board: Board) -> None:
    """Make ``board`` the one ``/`` shows; flushes."""
    for other in session.exec(select(Board).where(Board.is_default)).all():
        if other.id != board.id:
            other.is_default = False
            session.add(other)
    board.is_default = True
    session.add(board)
    session.flush()


def default_board(session: Session) -> Board | None:
    """The board ``/`` shows and uploads go to when they name none."""
    return session.exec(select(Board).where(Board.is_default)
                        .order_by(col(Board.id).desc())).first()


def board_by_slug(session: Session, slug: str) -> Board | None:
    """The board with this slug, or None (without a query for a slug no board can have: the
    error page of a refused ``?leaderboard=`` must not send it to the database)."""
    if not SLUG_PATTERN.fullmatch(slug):
        return None
    return session.exec(select(Board).where(Board.slug == slug)).first()


def board_or_default(session: Session, slug: str | None) -> Board | None:
    """The named board (:class:`BoardError` when unknown), or the default one."""
    if not slug:
        return default_board(session)
    board = board_by_slug(session, slug)
    if board is None:
        raise BoardError(f"no leaderboard {slug!r}; GET /api/v1/leaderboards lists them")
    return board


def import_board(session: Session, benchmark: Split) -> Board | None:
    """The generative board that importing the split made (None for a subset imported
    without one)."""
    return session.exec(select(Board).where(
        Board.split_id == benchmark.id, Board.track == Track.GENERATIVE)
        .order_by(Board.id)).first()


def list_boards(session: Session) -> list[tuple[Board, Split]]:
    """Every board with its split: the default first, then test before dev, generative before
    ranking, newest split first."""
    # Without the stored files (megabytes each): every board page lists the boards.
    rows = session.exec(select(Board, Split)
                        .join(Split, col(Split.id) == col(Board.split_id))
                        .options(*Split.without_files())).all()
    return sorted(rows, key=lambda r: (not r[0].is_default, r[0].phase != Phase.TEST,
                                       r[0].track != Track.GENERATIVE, -r[1].id, r[0].id))


def describe_benchmark(benchmark: Split) -> str:
    """``swords 1.1 test``; ``SemEval-2007 (LS07) test`` for a family read from the field's
    files (its version is this site's import of them)."""
    from leaderboard.scoring.families import SWORDS, family_for

    family = family_for(benchmark.name)
    if family is not SWORDS:
        return f"{family.title} {benchmark.split}"
    return f"{benchmark.name} {benchmark.version} {benchmark.split}"


def benchmark_title(benchmark: Split) -> str:
    """``swords v1.1`` or a family's own title (``SemEval-2007 (LS07)``), without the split."""
    from leaderboard.scoring.families import SWORDS, family_for

    family = family_for(benchmark.name)
    return f"{benchmark.name} v{benchmark.version}" if family is SWORDS else family.title


def board_title(board: Board, benchmark: Split) -> str:
    """``swords 1.1 test · generative``, with the phase when it is not the split's name."""
    title = f"{describe_benchmark(benchmark)} · {board.track}"
    if board.phase != benchmark.split and benchmark.hidden:
        title += f" · {board.phase} phase"
    elif not benchmark.hidden and board.phase != "dev":
        title += " · public labels"  # "test phase" on CoInCo "all" read as a hidden test
    return title


def board_summary(board: Board, benchmark: Split) -> dict[str, Any]:
    """The JSON form of ``GET /api/v1/leaderboards`` (without the URL)."""
    return {"slug": board.slug,
            "benchmark": {"name": benchmark.name, "version": benchmark.version,
                          "split": benchmark.split, "title": benchmark_title(benchmark)},
            "track": board.track, "phase": board.phase,
            "labels": "public" if board.labels_public or not benchmark.hidden else "hidden",
            "release": board.release,
            "default": board.is_default, "title": board_title(board, benchmark),
            "n_targets": benchmark.n_targets}
