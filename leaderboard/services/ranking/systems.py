"""System and team pages: who may see a submission and its public aggregates (head-to-head
comparisons: :mod:`leaderboard.services.ranking.head_to_head`)."""

from __future__ import annotations

import shlex
from typing import Any

from sqlalchemy.orm import load_only
from sqlmodel import Session, col, select

from leaderboard.models import (
    Board,
    Result,
    Submission,
    SubmissionStatus,
    System,
    Team,
    Track,
)
from leaderboard.scoring.families import FAMILIES
from leaderboard.services.catalog.benchmarks import get_split
from leaderboard.services.ranking.anonymity import hidden_from, is_own
from leaderboard.services.ranking.ladder import NOT_HELD, held_message, visible_result
from leaderboard.services.ranking.ranking_table import shown_style
from leaderboard.services.ranking.set_apart import repeat_facts


def coverage_of(counts: dict[str, Any] | None) -> dict[str, int | None] | None:
    """How many of the split's targets a result answers (a non-empty list), gave an empty
    list for, and left out (None when the result predates that count; re-scoring fills it),
    from the stored ``Result.counts``; None without counts. Unanswered targets score 0."""
    if not counts or "targets_in_split" not in counts or "targets_answered" not in counts:
        return None
    total, answered = int(counts["targets_in_split"]), int(counts["targets_answered"])
    empty, missing = counts.get("targets_empty"), counts.get("targets_missing")
    # LS07's ranking board: instances with no candidates to rank (bar.n.v 48...) are left out
    no_candidates = int(counts.get("targets_no_candidates") or 0)
    out = {"targets": total, "answered": answered,
           "unanswered": max(total - no_candidates - answered, 0),
           "empty": None if empty is None else int(empty),
           "missing": None if missing is None else int(missing)}
    if no_candidates:
        out.update(answerable=total - no_candidates, no_candidates=no_candidates)
    return out


def coverage_text(coverage: dict[str, int | None] | None) -> str:
    """``answered 564 of 762 targets (74.0%); 0 empty lists, 198 missing``: the one wording
    of the ranking's mark, the system page and the legend."""
    if not coverage:
        return ""
    no_candidates = coverage.get("no_candidates") or 0
    total = (coverage.get("answerable") or coverage["targets"] or 0)
    answered = coverage["answered"] or 0
    share = f" ({100.0 * answered / total:.1f}%)" if total else ""
    text = f"answered {answered} of {total} {'answerable ' if no_candidates else ''}targets{share}"
    if coverage["empty"] is not None and coverage["missing"] is not None:
        text = f"{text}; {coverage['empty']} empty lists, {coverage['missing']} missing"
    else:
        text = f"{text}; {coverage['unanswered']} not answered"
    if no_candidates:
        text += (f"; {no_candidates} more have no candidates to rank and are not counted "
                 "(they score 0 for every system, as in lst_gap.py)")
    return text


def signature_of(result: Result) -> dict[str, Any]:
    """What makes a result reproducible: scorer version, split checksum (sha256 of the split's
    canonical JSON, as ``leaderboard score --json`` prints it), bootstrap seed and B."""
    return {"scorer_version": result.scorer_version, "split_checksum": result.split_checksum,
            "seed": result.bootstrap_seed, "bootstrap": result.bootstrap_samples}


def reproduce_command(*, name: str, version: str, split: str, track: str, seed: int,
                      bootstrap: int, filename: str = "") -> str:
    """The ``leaderboard score`` command that recomputes a result from its file: the split
    by the file name SWORDS releases use (``swords-v1.1_test.json.gz``), or ``name:split``
    for LS07/CoInCo (read from the field's own files)."""
    if hasattr(FAMILIES.get(name), "prepare_files"):
        spec, track_arg = f"{name}:{split}", ""
    else:
        spec = f"{name}-v{version}_{split}.json.gz"
        track_arg = " --track ranking" if track == Track.RANKING else ""
    file = shlex.quote(filename) if filename else "FILE"
    return (f"leaderboard score --split {spec}{track_arg} --bootstrap {bootstrap} "
            f"--seed {seed} --json --submission {file}")


def publicly_visible(submission: Submission, team: Team | None = None) -> bool:
    """Whether everybody may see a submission: public, not hidden, scored, not held by the
    Ladder, of a team that is not disabled (``team`` when the caller has it; without it the
    disabled check is skipped).

    A held submission is not public whatever its team chose: to everybody but its team and
    the hosts it answers exactly as a private one does, so that whether a probe was held is
    not one more bit read from the hidden labels."""
    return bool(submission.is_public and not submission.hidden
                and submission.status == SubmissionStatus.SCORED and not submission.held
                and not (team is not None and team.disabled))


def can_view(submission: Submission, viewer: Any, team: Team | None = None) -> bool:
    """Who may see a submission's page.

    Everybody: a :func:`publicly_visible` one (an invalid, failed, pending or held upload
    has nothing to show, and its name, description and file name are not public).
    Otherwise only its team and admins. ``team`` is the submission's team when the caller
    has it (without it, the disabled check is skipped).
    """
    if publicly_visible(submission, team):
        return True
    if viewer is None or not getattr(viewer, "is_authenticated", False):
        return False
    return bool(getattr(viewer, "is_admin", False)) or viewer.team_id == submission.team_id


def system_detail(*, session: Session, submission_id: int, viewer: Any) -> dict[str, Any] | None:
    """Everything a system page shows (public aggregates only), or None when the viewer may
    not see it or it does not exist: callers answer 404 alike, so private ids don't leak."""
    sub = session.get(Submission, submission_id)
    if sub is None:
        return None
    team = session.get(Team, sub.team_id)
    system = session.get(System, sub.system_id)
    # An anonymous system's uploads are named by their slug only: to anyone else their
    # integer ids answer as unknown ones do.
    if not can_view(sub, viewer, team) or hidden_from(system, viewer):
        return None
    # The hosts see a held result (to release it); nobody else sees a number of it.
    result = visible_result(session, sub, include_held=bool(getattr(viewer, "is_admin", False)))
    return {
        "id": sub.id, "system": sub.system_name, "team": team.name if team else "",
        "team_id": sub.team_id, "benchmark_id": sub.split_id,
        "board_id": sub.board_id,
        "system_slug": system.slug, "description": system.description,
        "anonymous": system.anonymous_tag if system.anonymous else None,
        "paper_url": system.paper_url, "code_url": system.code_url,
        "withdrawn": sub.withdrawn_at is not None,
        "date": sub.created_at.isoformat()[:10], "status": sub.status,
        # Only the team and the hosts get here for a held submission (can_view): they read
        # the whole reason, with the best it was measured against.
        "held": sub.held,
        "held_message": held_message(sub.release_detail or {}) if sub.held else "",
        "public": sub.is_public and not sub.hidden and not sub.held, "hidden": sub.hidden,
        "file_sha256": sub.file_sha256, "filename": sub.filename, "file_size": sub.file_size,
        "scorer_version": result.scorer_version if result else sub.scorer_version,
        "substitutes_lemmatized": sub.substitutes_lemmatized,
        "metrics": result.metrics if result else {},
        "intervals": result.intervals if result else {},
        "by_pos": result.by_pos if result else {},
        "result_id": result.id if result else None,
        "public_id": result.public_id if result else None,
        "bootstrap_samples": result.bootstrap_samples if result else None,
        "coverage": coverage_of(result.counts) if result else None,
        **repeat_facts(result.counts if result else None),
        "signature": signature_of(result) if result else None,
        "reproduce": _reproduce(session, sub, result) if result else None,
    }


def _reproduce(session: Session, sub: Submission, result: Result) -> str:
    bench, board = get_split(session, sub.split_id), session.get(Board, sub.board_id)
    return reproduce_command(name=bench.name, version=bench.version, split=bench.split,
                             track=board.track if board else Track.GENERATIVE,
                             seed=result.bootstrap_seed, bootstrap=result.bootstrap_samples,
                             filename=sub.filename)


def team_systems(*, session: Session, team_id: int, viewer: Any) -> list[Submission]:
    """A team's scored submissions the viewer may see, newest first: its anonymous systems'
    for its members and the hosts only (nobody else learns they are the team's, nor how
    many there are)."""
    team = session.get(Team, team_id)
    subs = session.exec(select(Submission).where(Submission.team_id == team_id,
                                                 Submission.status == SubmissionStatus.SCORED)
                        .order_by(col(Submission.created_at).desc())).all()
    masked: set[int] = set()
    if not is_own(viewer, team_id):
        masked = set(session.exec(select(System.id).where(
            System.team_id == team_id, col(System.anonymous).is_(True))).all())
    return [s for s in subs if can_view(s, viewer, team) and s.system_id not in masked]


def current_results(session: Session, submission_ids: list[int]) -> dict[int, Result]:
    """Current result per submission id (one query); held submissions have none. Only
    their metrics, intervals and counts (what flags a figure that relies on repeats) are
    read: the per-POS blocks and per-target stats are the bulk of a result's JSON, and a
    team page would decode them on every request without using them."""
    if not submission_ids:
        return {}
    rows = session.exec(select(Result)
                        .options(load_only(col(Result.submission_id), col(Result.metrics),
                                           col(Result.intervals), col(Result.counts),
                                           raiseload=True))
                        .join(Submission, col(Submission.id) == col(Result.submission_id))
                        .where(col(Result.submission_id).in_(submission_ids),
                               col(Result.is_current).is_(True), NOT_HELD)).all()
    return {r.submission_id: r for r in rows}


def team_tables(session: Session, subs: list[Submission]) -> list[dict[str, Any]]:
    """A team's systems grouped by leaderboard, each group with the columns of that board's
    track (F^10 and F_c^10 strict; GAP, GAP ratio and P@1 on a ranking board; best and oot
    on LS07/CoInCo), in the order the boards are listed elsewhere."""
    from leaderboard.services.catalog.boards import board_title, board_views, list_boards
    from leaderboard.services.ranking.metric_info import displayed, headlines

    groups = []
    for board, benchmark in list_boards(session):
        rows = [s for s in subs if s.board_id == board.id]
        if not rows:
            continue
        views = board_views(board, session)
        keys = headlines(views)[:2] if len(headlines(views)) > 1 else displayed(views)[:3]
        groups.append({"board": board, "title": board_title(board, benchmark),
                       "columns": list(keys), "submissions": rows,
                       "style": shown_style({"benchmark": {"name": benchmark.name}})})
    return groups
