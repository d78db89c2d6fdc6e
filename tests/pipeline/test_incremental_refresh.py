"""An incremental ranking refresh gives the same snapshot as a full one.

Random sequences of the changes a board sees (a new public result, a hidden one, a re-scored
one, an unhidden one, several at once) on synthetic results; after each, the refresh that
starts from the previous snapshot's state must equal ``compute_snapshot_data`` from nothing:
every rank, rank interval, conservative rank, tie p-value, best-per-team block and pairwise
matrix. Both databases.
"""

from __future__ import annotations

import numpy as np
import pytest
from sqlmodel import select

from leaderboard.demo.synthetic import add_result, synthetic_board
from leaderboard.models import Board, RankingState, Split, Submission, Team
from leaderboard.services.ranking import board_state, snapshots
from leaderboard.services.ranking.board_state import load_board_state
from leaderboard.services.ranking.snapshots import compute_snapshot_data, refresh_snapshot
from tests.backends import ALL_DATABASES

N_TARGETS, BOOTSTRAP = 80, 200


def _without_time(data: dict) -> dict:
    return {k: v for k, v in data.items() if k != "generated_at"}


def _full(session, board: Board) -> dict:
    bench = session.get(Split, board.split_id)
    return _without_time(compute_snapshot_data(session, board, bench)[0])


@pytest.fixture
def kept_states():
    board_state.keep_states()  # as a worker: the next refresh takes the states it wrote
    yield
    board_state.keep_states(False)
    board_state.forget_kept()


@ALL_DATABASES
@pytest.mark.parametrize("seed", [1, 2])
def test_incremental_refresh_equals_a_full_one(session, seed, kept_states):
    rng = np.random.default_rng(seed)
    board = synthetic_board(session, n_targets=N_TARGETS)
    teams = [Team(name=f"Team {i}") for i in range(6)]
    session.add_all(teams)
    session.flush()
    made = 0

    def add(skill: float | None = None) -> None:
        nonlocal made
        add_result(session, board, team_id=teams[made % 6].id, name=f"System {made}",
                   skill=rng.uniform(0.3, 0.6) if skill is None else skill, rng=rng,
                   n_targets=N_TARGETS, bootstrap=BOOTSTRAP)
        made += 1

    for _ in range(24):
        add()
    session.commit()
    refresh_snapshot(session=session, board_id=board.id, full=True)
    session.commit()
    incremental_steps = 0
    for step in range(14):
        shown = session.exec(select(Submission).where(Submission.board_id == board.id,
                                                      Submission.hidden.is_(False))).all()
        hidden = session.exec(select(Submission).where(Submission.board_id == board.id,
                                                       Submission.hidden.is_(True))).all()
        for _ in range(int(rng.integers(1, 4))):
            action = rng.choice(["add", "hide", "rescore", "unhide"])
            if action == "add":
                add()
            elif action == "hide" and len(shown) > 3:
                row = shown.pop(int(rng.integers(len(shown))))
                row.hidden = True
                session.add(row)
            elif action == "rescore" and shown:
                row = shown[int(rng.integers(len(shown)))]
                add_result(session, board, team_id=row.team_id, name=row.system_name,
                           skill=rng.uniform(0.3, 0.6), rng=rng, n_targets=N_TARGETS,
                           bootstrap=BOOTSTRAP, submission=row)
            elif action == "unhide" and hidden:
                row = hidden.pop()
                row.hidden = False
                session.add(row)
        session.commit()
        # Read from the database: the states this process keeps are left for the refresh.
        previous = load_board_state(session, board.id, cached=False)
        assert previous is not None
        used = snapshots._plan(previous, previous.meta["signature"] and
                               tuple(previous.meta["signature"]), previous.meta["views"],
                               [r.id for _, r, _ in snapshots.public_submissions(
                                   session, board.id)])
        incremental_steps += used is not None
        snapshot = refresh_snapshot(session=session, board_id=board.id)
        session.commit()
        kept = board_state._LAST_WRITTEN[board.id][2]
        stored = load_board_state(session, board.id, cached=False)
        assert {k: v.to_bytes() for k, v in kept.states.items()} == \
            {k: v.to_bytes() for k, v in stored.states.items()}  # what the next step takes
        assert _without_time(snapshot.data) == _full(session, board), f"step {step}"
    assert incremental_steps >= 10  # the comparison was of the incremental path
    data = snapshot.data
    ranks = data["stats"]["all"]["ranks"]["strict_a_f@10"]
    assert all(lo <= r <= hi for r, lo, hi in zip(ranks["rank"], ranks["lo"], ranks["hi"],
                                                  strict=True))
    assert any(c > 1 for c in ranks["conservative"])  # some systems are significantly better
    assert session.exec(select(RankingState)).all()  # the state is kept beside the snapshot


def _one_team_board(session, rng: np.random.Generator, n: int) -> tuple[Board, Team]:
    """A board with ``n`` public results S0.. of one team, committed."""
    board = synthetic_board(session, n_targets=N_TARGETS)
    team = Team(name="Team A")
    session.add(team)
    session.flush()
    for i in range(n):
        add_result(session, board, team_id=team.id, name=f"S{i}", skill=rng.uniform(0.3, 0.6),
                   rng=rng, n_targets=N_TARGETS, bootstrap=BOOTSTRAP)
    session.commit()
    return board, team


def test_board_rebuild_command_gives_the_incremental_snapshot(runner, session):
    rng = np.random.default_rng(7)
    board, team = _one_team_board(session, rng, 10)
    refresh_snapshot(session=session, board_id=board.id)
    add_result(session, board, team_id=team.id, name="S10", skill=0.5, rng=rng,
               n_targets=N_TARGETS, bootstrap=BOOTSTRAP)
    session.commit()
    incremental = refresh_snapshot(session=session, board_id=board.id)
    session.commit()
    result = runner.invoke(args=["board", "rebuild", board.slug])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{board.slug}: 11 system(s) ranked from nothing in ")
    session.expire_all()
    rebuilt = load_board_state(session, board.id)
    assert _without_time(rebuilt.data) == _without_time(incremental.data)
    assert runner.invoke(args=["board", "rebuild"]).exit_code == 2  # names nothing


def test_only_a_worker_keeps_the_states_it_wrote(session):
    """A web process that refreshes a board (an admin action) keeps no rank states; a
    worker (``keep_states``) keeps them for its next refresh, which takes them once."""
    rng = np.random.default_rng(3)
    board, team = _one_team_board(session, rng, 4)
    refresh_snapshot(session=session, board_id=board.id)
    session.commit()
    assert board_state._LAST_WRITTEN[board.id][2] is None
    board_state.keep_states()
    try:
        add_result(session, board, team_id=team.id, name="S4", skill=0.5, rng=rng,
                   n_targets=N_TARGETS, bootstrap=BOOTSTRAP)
        session.commit()
        refresh_snapshot(session=session, board_id=board.id)  # re-ranks what S4 overlaps
        session.commit()
        kept = board_state._LAST_WRITTEN[board.id][2]
        assert kept is not None and kept.states["strict_a_f@10|all"].ranks is not None
        assert load_board_state(session, board.id) is kept  # handed out once
        again = load_board_state(session, board.id)
        assert again is not kept and again.states["strict_a_f@10|all"].ranks is None
    finally:
        board_state.keep_states(False)
        board_state.forget_kept()


@ALL_DATABASES
def test_a_burst_of_50_changes_is_incremental_and_equals_a_full_one(session, kept_states):
    """A burst costs its changes: 47 new results, 2 hidden and one
    re-scored on a board of 40, together 51 changed results (far past the old max(8, 25%)
    bound), update the kept state instead of rebuilding it, and give the full rebuild's
    snapshot."""
    rng = np.random.default_rng(50)
    board = synthetic_board(session, n_targets=N_TARGETS)
    teams = [Team(name=f"Team {i}") for i in range(8)]
    session.add_all(teams)
    session.flush()
    for i in range(40):
        add_result(session, board, team_id=teams[i % 8].id, name=f"System {i}",
                   skill=rng.uniform(0.3, 0.6), rng=rng, n_targets=N_TARGETS,
                   bootstrap=BOOTSTRAP)
    session.commit()
    refresh_snapshot(session=session, board_id=board.id, full=True)
    session.commit()
    shown = session.exec(select(Submission).where(Submission.board_id == board.id)
                         .order_by(Submission.id)).all()
    for row in shown[:2]:
        row.hidden = True
        session.add(row)
    add_result(session, board, team_id=shown[5].team_id, name=shown[5].system_name,
               skill=0.45, rng=rng, n_targets=N_TARGETS, bootstrap=BOOTSTRAP,
               submission=shown[5])
    for i in range(40, 87):
        add_result(session, board, team_id=teams[i % 8].id, name=f"System {i}",
                   skill=rng.uniform(0.3, 0.6), rng=rng, n_targets=N_TARGETS,
                   bootstrap=BOOTSTRAP)
    session.commit()
    previous = load_board_state(session, board.id, cached=False)
    now = [r.id for _, r, _ in snapshots.public_submissions(session, board.id)]
    removed, added = snapshots._plan(previous, tuple(previous.meta["signature"]),
                                     previous.meta["views"], now)
    assert (len(removed), len(added)) == (3, 48)  # the re-scored result: one out, one in
    snapshot = refresh_snapshot(session=session, board_id=board.id)
    session.commit()
    assert board_state.last_written(board.id).incremental
    assert board_state.last_written(board.id).origin == "memory"  # a warm refresh
    assert len(snapshot.data["systems"]) == 85
    assert _without_time(snapshot.data) == _full(session, board)
