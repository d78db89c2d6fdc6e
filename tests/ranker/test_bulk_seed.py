"""The perf scripts' bulk seeding writes the rows the application would: every upload joined
to its team's system (a bulk insert skips the ORM listener that does it otherwise), so the
ranker's snapshot of a seeded board lists each system under its page's slug."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from sqlmodel import select

from leaderboard.models import Submission, System
from leaderboard.services.ranking.snapshot_reader import latest_snapshot, load_data
from leaderboard.services.ranking.snapshots import refresh_snapshot

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "perf"))
from bulk_seed import seed  # noqa: E402


def test_a_seeded_board_has_one_system_per_upload_and_a_snapshot_of_them(session):
    board = seed(session, 12, 4, np.random.default_rng(1))
    subs = session.exec(select(Submission).order_by(Submission.id)).all()
    systems = {s.id: s for s in session.exec(select(System)).all()}
    assert len(subs) == 12 and len(systems) == 12
    for sub in subs:
        system = systems[sub.system_id]
        assert (system.team_id, system.name) == (sub.team_id, sub.system_name)
    refresh_snapshot(session=session, board_id=board.id)
    session.commit()
    data = load_data(session, latest_snapshot(session, board.id))
    assert sorted(e["system_slug"] for e in data["systems"]) == sorted(
        s.slug for s in systems.values())
