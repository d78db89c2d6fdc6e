"""Re-scoring after a scorer change: re-queue scored submissions, re-score reference rows.

Old results stay in the database (``Result.is_current`` false); pages show the latest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from redis import Redis
from sqlmodel import Session, col, select

from leaderboard.infra.queue import enqueue_scoring
from leaderboard.models import Split, Submission, SubmissionStatus, utcnow
from leaderboard.scoring import SCORER_VERSION
from leaderboard.services.catalog import benchmarks, references
from leaderboard.services.ranking import snapshots


@dataclass
class RescoreReport:
    """What one re-scoring pass did."""

    benchmarks_prepared: list[int] = field(default_factory=list)
    requeued: list[int] = field(default_factory=list)
    references: list[int] = field(default_factory=list)

    def summary(self) -> str:
        return (f"{len(self.requeued)} submission(s) re-queued, "
                f"{len(self.references)} reference row(s) re-scored, "
                f"{len(self.benchmarks_prepared)} split(s) prepared again "
                f"(scorer {SCORER_VERSION})")


def stale_submissions(session: Session, *, force: bool = False) -> list[Submission]:
    """Scored submissions whose scorer version is older than ours (every scored one with
    ``force``)."""
    query = select(Submission).where(Submission.status == SubmissionStatus.SCORED)
    if not force:
        query = query.where(Submission.scorer_version != SCORER_VERSION)
    return list(session.exec(query.order_by(col(Submission.id))).all())


def rescore_all(*, session: Session, connection: Redis, queue_name: str, job_timeout: int = 900,
                force: bool = False) -> RescoreReport:
    """Prepare stale splits again, re-score reference rows, then re-queue submissions.

    Each submission row is committed as queued before its job is enqueued (the job claims
    queued rows only), so a crash in between leaves work the reconciler re-enqueues.
    """
    report = RescoreReport()
    report.benchmarks_prepared = [b.id for b in benchmarks.reprepare_stale(session)]
    session.commit()
    rescored = references.rescore_references(session, force=force)
    report.references = [r.id for r in rescored]
    # A reference row shows on every board of its benchmark name and version: one refresh
    # per such family, however many of its splits had rows re-scored.
    splits = [session.get(Split, split_id) for split_id in {r.split_id for r in rescored}]
    families = {(b.name, b.version): b for b in splits if b is not None}
    for benchmark in families.values():
        snapshots.refresh_boards_of(session, benchmark)
    session.commit()
    rows = stale_submissions(session, force=force)
    now = utcnow()
    for row in rows:
        row.status, row.progress, row.queued_at = SubmissionStatus.QUEUED, "", now
        row.failure_reason = f"re-scoring with scorer {SCORER_VERSION}"
        session.add(row)
    session.commit()
    for row in rows:
        # A new run number gives a new job id, so the old finished job is never reused.
        enqueue_scoring(row.id, connection=connection, queue_name=queue_name,
                        run=row.attempts + 1, job_timeout=job_timeout)
        report.requeued.append(row.id)
    return report
