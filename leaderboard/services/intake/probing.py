"""Signs of label probing for the admin queue-health page (docs/hosts/security.md).

Two patterns: a team whose scored submission differs from one of its earlier ones on only a
few targets (the score difference then tells about those targets' hidden labels), and
several teams created from one client address (each new team brings a fresh quota).

Comparing submissions re-reads their stored files: a worker does it (``probing_job``, in a
child under hard limits) and keeps the flags in Redis for FLAGS_TTL seconds; the admin page
shows them, or says they are being computed (:func:`stored_flags`).
"""

from __future__ import annotations

import pickle
import zlib
from dataclasses import dataclass
from datetime import timedelta

from redis import Redis
from rq import Queue
from rq.job import Job
from sqlalchemy import func
from sqlmodel import Session, col, select

from leaderboard.models import Split, Submission, SubmissionStatus, Team, utcnow
from leaderboard.scoring.swords.gold import GZIP_MAGIC
from leaderboard.scoring.swords.parse import TooLarge, decode_typed, gunzip_capped

PROBING_FUNCTION = "leaderboard.worker.jobs.probing_job"
#: Seconds the flags a worker computed are shown before a newer computation is asked for.
FLAGS_TTL = 300

#: A submission is flagged when it differs from an earlier one of its team on at most this
#: many targets, or on fewer than this share of the split's targets.
MAX_DIFFERING_TARGETS = 5
MAX_DIFFERING_SHARE = 0.02


@dataclass
class NearDuplicate:
    """``submission_id`` differs from the team's earlier ``earlier_id`` on ``differing``
    targets of ``n_targets``."""

    team_id: int
    team_name: str
    submission_id: int
    earlier_id: int
    differing: int
    n_targets: int


def _answers(raw: bytes, cap: int) -> dict[str, tuple] | None:
    """Target id -> its answer (substitutes and scores as submitted); None if unreadable."""
    try:
        data = gunzip_capped(raw, cap) if raw[:2] == GZIP_MAGIC else raw
    except (TooLarge, zlib.error):
        return None
    typed = decode_typed(data)
    if typed is None:
        return None
    return {tid: tuple(items) for tid, items in typed.substitutes.items() if items}


def differing_targets(a: dict[str, tuple], b: dict[str, tuple]) -> int:
    """Targets answered differently (or answered by only one of the two)."""
    return sum(1 for tid in a.keys() | b.keys() if a.get(tid) != b.get(tid))


def near_duplicates(session: Session, *, days: int = 30, per_team: int = 10,
                    cap: int = 200 * 1024 * 1024) -> list[NearDuplicate]:
    """Scored submissions of the last ``days`` (the newest ``per_team`` of each team and
    split) that differ from an earlier one of the same team on few targets."""
    since = utcnow() - timedelta(days=days)
    rows = session.exec(select(Submission.id, Submission.team_id, Submission.split_id)
                        .where(Submission.status == SubmissionStatus.SCORED,
                               col(Submission.created_at) >= since)
                        .order_by(Submission.team_id, Submission.split_id,
                                  col(Submission.id).desc())).all()
    groups: dict[tuple[int, int], list[int]] = {}
    for sid, team_id, split_id in rows:
        group = groups.setdefault((team_id, split_id), [])
        if len(group) < per_team:
            group.append(sid)
    flags: list[NearDuplicate] = []
    for (team_id, split_id), ids in groups.items():
        if len(ids) < 2:
            continue
        n_targets = session.get(Split, split_id).n_targets
        limit = max(MAX_DIFFERING_TARGETS, MAX_DIFFERING_SHARE * n_targets)
        answers = {}
        for sid in sorted(ids):  # oldest first
            raw = session.exec(select(Submission.file_bytes).where(Submission.id == sid)).one()
            answers[sid] = _answers(raw, cap)
        team = session.get(Team, team_id)
        ordered = [sid for sid in sorted(ids) if answers[sid] is not None]
        for i, sid in enumerate(ordered[1:], start=1):
            best = min(((differing_targets(answers[sid], answers[e]), e)
                        for e in ordered[:i]), default=None)
            if best is not None and best[0] <= limit:
                flags.append(NearDuplicate(team_id, team.name if team else "?", sid, best[1],
                                           best[0], n_targets))
    return sorted(flags, key=lambda f: -f.submission_id)


def address_clusters(session: Session, *, min_teams: int = 2) -> list[tuple[str, list[Team]]]:
    """Client addresses from which at least ``min_teams`` teams signed up, with the teams."""
    addresses = session.exec(select(Team.signup_ip).where(col(Team.signup_ip).is_not(None))
                             .group_by(Team.signup_ip)
                             .having(func.count() >= min_teams)).all()
    return [(ip, list(session.exec(select(Team).where(Team.signup_ip == ip)
                                   .order_by(Team.id)).all())) for ip in addresses]


def _flags_key(queue_name: str) -> str:
    return f"leaderboard:probing:{queue_name}"


def store_flags(connection: Redis, queue_name: str, flags: list[NearDuplicate]) -> None:
    """Worker side: keep the computed flags for the admin page."""
    connection.set(_flags_key(queue_name), pickle.dumps(flags), ex=FLAGS_TTL)


def stored_flags(connection: Redis, queue_name: str,
                 checks_queue: str) -> list[NearDuplicate] | None:
    """The flags a worker computed in the last FLAGS_TTL seconds; None (and a job queued on
    ``checks_queue`` to compute them) when there are none."""
    raw = connection.get(_flags_key(queue_name))
    if raw is not None:
        return pickle.loads(raw)  # written by our workers only
    job_id = f"probing-{queue_name}"
    if not Job.exists(job_id, connection=connection):
        Queue(checks_queue, connection=connection).enqueue(
            PROBING_FUNCTION, queue_name, job_id=job_id, job_timeout=600, result_ttl=0,
            failure_ttl=300, description="label-probing flags")
    return None
