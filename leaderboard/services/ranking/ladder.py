"""The Ladder (Blum & Hardt 2015): what a board releases of a new result.

Under ``Release.LADDER`` a team's new result is released only when it is significantly better
than that team's best released result on the board: on the board's headline, paired on the
shared bootstrap resamples, one-sided (:func:`~leaderboard.scoring.significance.
p_one_sided` against ``ALPHA``). A held result is stored, but nobody except the hosts sees a
number derived from it; its team learns one bit ("held") and the best it is measured against.
A padding probe therefore reads at most one bit per submission from hidden labels.

The decision is serialised per team and board (:func:`decide` holds a
:mod:`~leaderboard.infra.txlock` lock until the transaction storing it commits): five first uploads
scored at once by five workers otherwise all read "no released best" and were all released.

"The team" is the team and every team sharing a verified mailbox with it
(:func:`ladder_teams`): one person gets one free first result per board, not one per team.
New accounts cannot share a mailbox (``accounts.claim_mailbox``); accounts made before that
rule can, and a new team on such a mailbox is compared with the other team's best.

Every reader of results goes through :func:`visible_result` (one result) or
:data:`NOT_HELD` (queries), so a held result cannot leak from one route and not another.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlmodel import Session, col, select

from leaderboard.infra import txlock
from leaderboard.models import (
    Board,
    Release,
    ReleaseState,
    Result,
    Submission,
    SubmissionStatus,
    User,
    utcnow,
)
from leaderboard.scoring import TargetStats
from leaderboard.scoring.bootstrap import shared_counts
from leaderboard.scoring.printing import printed, shown
from leaderboard.scoring.significance import ALPHA, p_beats, p_one_sided
from leaderboard.services.catalog.boards import board_family, board_views
from leaderboard.services.ranking.metric_info import LABELS, default_sort

log = logging.getLogger(__name__)

#: Query condition: the submission's numbers may be shown (released, or scored before the
#: policy existed).
NOT_HELD = col(Submission.release_state) != ReleaseState.HELD


def visible_result(session: Session, submission: Submission, *,
                   include_held: bool = False) -> Result | None:
    """The submission's current result when scored and not held (``include_held``: the
    hosts' pages)."""
    if submission.status != SubmissionStatus.SCORED:
        return None
    if submission.held and not include_held:
        return None
    return session.exec(select(Result).where(Result.submission_id == submission.id,
                                             col(Result.is_current).is_(True))
                        .order_by(col(Result.id).desc())).first()


def ladder_teams(session: Session, team_id: int) -> list[int]:
    """The teams whose released results are ``team_id``'s on the Ladder: itself and each team
    with a verified member on a mailbox that a verified member of ``team_id`` is on."""
    verified = col(User.email_verified_at).is_not(None)
    mailboxes = select(User.mailbox).where(User.team_id == team_id, verified, User.mailbox != "")
    linked = session.exec(select(User.team_id).where(
        col(User.mailbox).in_(mailboxes), verified, col(User.team_id).is_not(None))).all()
    return sorted({team_id, *linked})


def _best_released(session: Session, submission: Submission, teams: list[int],
                   headline: str) -> tuple[Submission, Result] | None:
    rows = session.exec(
        select(Submission, Result)
        .join(Result, col(Result.submission_id) == col(Submission.id))
        .where(col(Submission.team_id).in_(teams),
               Submission.board_id == submission.board_id,
               Submission.id != submission.id,
               col(Submission.hidden).is_(False),
               Submission.status != SubmissionStatus.INVALID,
               col(Result.is_current).is_(True), NOT_HELD)).all()
    scored = [(s, r) for s, r in rows if headline in (r.metrics or {})]
    if not scored:
        return None
    return max(scored, key=lambda sr: (float(sr[1].metrics[headline]), -sr[0].id))


def hold_ladder(session: Session, teams: list[int], board_id: int) -> None:
    """Serialise Ladder decisions of ``teams`` on ``board_id`` until the session's
    transaction ends: whoever decides next for any of them reads the release this one
    stores. Two teams on one mailbox each lock both."""
    txlock.hold(session, *(f"ladder:{board_id}:{team_id}" for team_id in teams))


def decide(session: Session, submission: Submission, result: Result,
           board: Board) -> tuple[str, dict[str, Any]]:
    """The release state of ``submission``'s first result and what the team is told.

    Under ``full``, and for a team's first result on the board: released. Otherwise the
    comparison with the team's best released result decides. A result that cannot be paired
    with it (other resamples) is held, for the hosts to release: comparing it another way
    would read more than one bit.

    Takes the Ladder locks of the team (and of the teams on its verified mailboxes, whose
    released results count as its own) on the board (:func:`hold_ladder`) before reading
    their released results; the caller commits the decision in the same transaction. The
    best of another team on the mailbox is named to nobody: the detail says only that it is
    on the mailbox.
    """
    if board.release != Release.LADDER:
        return ReleaseState.RELEASED, {}
    headline = default_sort(board_views(board, session))
    teams = ladder_teams(session, submission.team_id)
    hold_ladder(session, teams, board.id)
    best = _best_released(session, submission, teams, headline)
    if best is None:
        return ReleaseState.RELEASED, {"first": True}
    best_sub, best_result = best
    detail: dict[str, Any] = {"metric": headline, "metric_label": LABELS.get(headline, headline),
                              "alpha": ALPHA}
    if best_sub.team_id == submission.team_id:
        detail.update(against_id=best_sub.id, against_system=best_sub.system_name,
                      against_value=printed(best_result.metrics[headline],
                                            board_family(board, session)))
    else:
        detail["mailbox"] = True
    try:
        new = TargetStats.from_bytes(result.target_stats)
        old = TargetStats.from_bytes(best_result.target_stats)
        counts = shared_counts([new, old])
        if counts.shape[0] == 0:
            raise ValueError("scored without bootstrap resamples")
    except ValueError as exc:
        log.warning("submission %s not paired with %s: %s", submission.id, best_sub.id, exc)
        return ReleaseState.HELD, {**detail, "not_comparable": True}
    p = p_one_sided(p_beats(new.resampled(counts)[headline], old.resampled(counts)[headline]))
    if p < ALPHA:
        return ReleaseState.RELEASED, detail
    return ReleaseState.HELD, detail


def held_message(detail: dict[str, Any]) -> str:
    """What the team, the API and the CLI read about a held submission: the released best it
    was measured against, and only that p did not reach alpha (the exact p would carry
    nearly as much about the labels as the score itself)."""
    if not detail:
        return "held"
    if detail.get("mailbox"):
        # Another team's result: named to nobody here (a mailbox shared from before the
        # one-account rule; that team's members may not be this team's).
        best = (f"the best released result of another team on your verified mailbox "
                f"(one first result per mailbox and board), {detail.get('metric_label', '')}")
    else:
        best = (f"your best, {detail.get('against_system', '')} (#{detail.get('against_id')}), "
                f"{detail.get('metric_label', '')} {shown(detail.get('against_value', 0))}")
    if detail.get("not_comparable"):
        return (f"held: could not be compared with {best} (other bootstrap settings); "
                "the hosts can release it")
    return (f"held: not significantly better than {best} "
            f"(p ≥ {detail.get('alpha', ALPHA):g}, one-sided paired bootstrap)")


def release_dict(submission: Submission, board: Board) -> dict[str, Any]:
    """The ``release`` block of the API's submission JSON."""
    state = submission.release_state or (ReleaseState.RELEASED
                                         if submission.status == SubmissionStatus.SCORED
                                         else "")
    out: dict[str, Any] = {"policy": board.release, "state": state}
    if submission.held:
        detail = submission.release_detail or {}
        out.update({"message": held_message(detail),
                    "against": {"id": detail.get("against_id"),
                                "system_name": detail.get("against_system"),
                                "metric": detail.get("metric"),
                                "value": detail.get("against_value")}})
    return out


def release_submission(session: Session, submission: Submission) -> bool:
    """Release a held submission (host); True when it was held. Commits nothing."""
    if not submission.held:
        return False
    submission.release_state = ReleaseState.RELEASED
    submission.release_detail = {**(submission.release_detail or {}),
                                 "released_by_host_at": utcnow().isoformat()}
    session.add(submission)
    return True


def set_release(session: Session, board: Board, policy: str) -> int:
    """Set ``board``'s policy; ``full`` releases every held submission of the board. Returns
    how many were released. Commits nothing; the caller refreshes the ranking."""
    if policy not in Release.ALL:
        raise ValueError(f"release must be one of {', '.join(Release.ALL)}, not {policy!r}")
    board.release = policy
    session.add(board)
    released = 0
    if policy == Release.FULL:
        for sub in session.exec(select(Submission).where(
                Submission.board_id == board.id,
                Submission.release_state == ReleaseState.HELD)).all():
            released += release_submission(session, sub)
    return released
