"""Snapshot computation agrees with the scoring engine's own rank intervals and comparisons."""

from __future__ import annotations

import numpy as np
from sqlmodel import select

from leaderboard.models import LeaderboardSnapshot, Result, ResultResamples, Submission
from leaderboard.scoring import TargetStats, compare, rank_intervals
from leaderboard.services.ranking import ranking_stats as rs
from leaderboard.services.ranking.snapshot_reader import ranking_rows
from leaderboard.services.ranking.snapshots import KEEP_SNAPSHOTS, refresh_snapshot


def _public_stats(session, seeded):
    ids = sorted(seeded.public.values())
    results = {r.submission_id: r for r in session.exec(select(Result)).all()}
    return ids, [TargetStats.from_bytes(results[i].target_stats) for i in ids]


def test_rank_intervals_match_the_engine(session, seeded):
    ids, stats = _public_stats(session, seeded)
    data = session.exec(select(LeaderboardSnapshot)).all()[-1].data
    order = [s["id"] for s in data["systems"]]
    for pos in (None, "NOUN"):
        expected = rank_intervals(stats, "strict_a_f@10", pos=pos)
        ranks = data["stats"][pos or "all"]["ranks"]["strict_a_f@10"]
        got = [(ranks["lo"][order.index(i)], ranks["hi"][order.index(i)]) for i in ids]
        assert got == expected


def test_tie_p_values_match_compare(session, seeded):
    table = ranking_rows(session=session, board_id=seeded.board_id, entries="all")
    ids, stats = _public_stats(session, seeded)
    by_id = dict(zip(ids, stats, strict=True))
    for above, below in zip(table.rows, table.rows[1:], strict=False):
        p = below["cells"][0]["p"]
        beats = compare(by_id[above["id"]], by_id[below["id"]], "strict_a_f@10")
        assert p == round(2 * min(beats, 1 - beats), 6)
    assert [r["system"] for r in table.rows][:2] == ["Ranker top-3", "Contextual ranker"]
    assert table.rows[1]["tied_with_next_better"] is True
    assert table.rows[2]["tied_with_next_better"] is False


def test_point_ranks_share_ties():
    assert rs.point_ranks(np.array([5.0, 7.0, 7.0, 1.0])).tolist() == [3, 1, 1, 4]


def test_best_per_team_ranks_only_the_shown_rows(session, seeded):
    best = ranking_rows(session=session, board_id=seeded.board_id)
    every = ranking_rows(session=session, board_id=seeded.board_id, entries="all")
    assert best.entries == "best" and len(best.rows) == 3 and len(every.rows) == 5
    assert len({r["team_id"] for r in best.rows}) == 3
    # each team's row is its best on the headline among all its entries
    for row in best.rows:
        mine = [r["headline"] for r in every.rows if r["team_id"] == row["team_id"]]
        assert row["headline"] == max(mine)
    assert sorted(r["rank"] for r in best.rows) == [1, 2, 3]
    assert max(r["rank_hi"] for r in best.rows) <= 3


def test_q_filters_rows_but_keeps_ranks(session, seeded):
    every = ranking_rows(session=session, board_id=seeded.board_id, entries="all")
    found = ranking_rows(session=session, board_id=seeded.board_id, entries="all",
                         q="thesaurus")
    assert [r["system"] for r in found.rows] == ["Thesaurus baseline", "Thesaurus top-1"]
    ranks = {r["id"]: r["rank"] for r in every.rows}
    assert all(r["rank"] == ranks[r["id"]] for r in found.rows)
    south = ranking_rows(session=session, board_id=seeded.board_id, q="SOUTH lab")
    assert [r["team"] for r in south.rows] == ["South Lab"] and south.total == 3


def test_references_are_merged_by_name_and_marked_subset(session, seeded):
    table = ranking_rows(session=session, board_id=seeded.board_id, view="lenient-a")
    names = [(r["name"], r["kind"], r["subset"]) for r in table.references]
    assert names == [("Humans", "human", True), ("CoInCo", "oracle", False),
                     ("Thesaurus", "oracle", False)]
    humans = table.references[0]
    # the two Humans rows each give half of the lenient keys; merged, all are there
    assert all(c["value"] is not None for c in humans["cells"][:3])
    assert table.rows[0]["pct_humans"] is not None


def test_publish_and_hide_change_the_ranking(session, seeded):
    private = session.get(Submission, seeded.private_id)
    private.is_public = True
    session.add(private)
    session.commit()
    refresh_snapshot(session=session, board_id=seeded.board_id)
    session.commit()
    table = ranking_rows(session=session, board_id=seeded.board_id, entries="all")
    assert "Secret system" in [r["system"] for r in table.rows]
    private.hidden = True
    session.add(private)
    refresh_snapshot(session=session, board_id=seeded.board_id)
    session.commit()
    table = ranking_rows(session=session, board_id=seeded.board_id, entries="all")
    assert "Secret system" not in [r["system"] for r in table.rows]
    kept = session.exec(select(LeaderboardSnapshot)).all()
    assert len(kept) == KEEP_SNAPSHOTS


def test_unreadable_stats_keep_the_row_without_intervals(session, seeded):
    """Without its cached resampled values (written when it was scored), a result whose
    statistics cannot be read stays on the ranking without intervals."""
    result = session.exec(select(Result).where(
        Result.submission_id == seeded.public["Thesaurus top-1"])).one()
    result.target_stats = b"not an npz"
    session.add(result)
    for row in session.exec(select(ResultResamples).where(
            ResultResamples.result_id == result.id)).all():
        session.delete(row)
    refresh_snapshot(session=session, board_id=seeded.board_id, full=True)
    session.commit()
    table = ranking_rows(session=session, board_id=seeded.board_id, entries="all")
    row = next(r for r in table.rows if r["system"] == "Thesaurus top-1")
    assert row["rank"] is not None and row["rank_lo"] is None
    assert next(r for r in table.rows if r["system"] == "Ranker top-3")["rank_lo"] == 1


def test_snapshot_of_an_older_format_is_recomputed_once(session, seeded):
    from leaderboard.services.ranking.snapshot_reader import clear_caches
    from leaderboard.services.ranking.snapshots import SNAPSHOT_FORMAT

    latest = session.exec(select(LeaderboardSnapshot).order_by(
        LeaderboardSnapshot.id.desc())).first()
    old = dict(latest.data, format=1)
    old.pop("best")
    latest.data = old
    session.add(latest)
    session.commit()
    clear_caches()
    table = ranking_rows(session=session, board_id=seeded.board_id)
    assert table.entries == "best" and len(table.rows) == 3  # best-per-team blocks are back
    newest = session.exec(select(LeaderboardSnapshot).order_by(
        LeaderboardSnapshot.id.desc())).first()
    assert newest.id != latest.id and "best" in newest.data
    assert newest.data["format"] == SNAPSHOT_FORMAT


def _snapshot_ids(session, board_id) -> list[int]:
    session.expire_all()
    return [s.id for s in session.exec(select(LeaderboardSnapshot).where(
        LeaderboardSnapshot.board_id == board_id)).all()]


def _refresh_jobs(app) -> list[str]:
    from rq import Queue

    from leaderboard.infra.queue import get_redis
    from leaderboard.ranker.placement import ranking_queue_name

    with app.app_context():
        queue = Queue(ranking_queue_name(app.config["LEADERBOARD"]["QUEUE_NAME"]),
                      connection=get_redis())
        return [j for j in queue.job_ids if j.startswith("refresh-")]


def test_a_request_on_a_board_without_snapshot_answers_at_once_without_computing(
        app, client, session, seeded):
    """A page never computes a ranking (on a large board that is long work); it says the
    board is updating and a worker's job writes the snapshot."""
    from leaderboard.ranker import refresh as ranking
    from leaderboard.services.ranking.snapshot_reader import clear_caches
    from leaderboard.worker import jobs

    for snapshot in session.exec(select(LeaderboardSnapshot)).all():
        session.delete(snapshot)
    session.commit()
    clear_caches()
    page = client.get("/")
    assert page.status_code == 200
    assert 'id="updating"' in page.get_data(as_text=True)
    api = client.get("/api/v1/leaderboard").get_json()
    assert api["updating"] is True and api["rows"] == []
    for path in ("/matrix", "/charts", "/history", "/significance", "/compare",
                 "/api/v1/significance", "/leaderboard.csv", "/leaderboard.json",
                 f"/systems/{seeded.public['Ranker top-3']}"):
        assert client.get(path).status_code == 200, path
    assert _snapshot_ids(session, seeded.board_id) == []  # nothing computed in the request
    assert len(_refresh_jobs(app)) == 1  # one job asked for, however many requests
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    assert ranking.refresh_snapshot_job(seeded.board_id) == "refreshed"
    after = client.get("/?entries=all").get_data(as_text=True)
    assert 'id="updating"' not in after and "Ranker top-3" in after


def test_an_old_format_snapshot_is_not_shown_and_not_recomputed_in_the_request(
        app, client, session, seeded):
    from leaderboard.services.ranking.snapshot_reader import clear_caches

    latest = session.exec(select(LeaderboardSnapshot).order_by(
        LeaderboardSnapshot.id.desc())).first()
    latest.data = dict(latest.data, format=1)
    session.add(latest)
    session.commit()
    clear_caches()
    before = _snapshot_ids(session, seeded.board_id)
    page = client.get("/").get_data(as_text=True)
    assert 'id="updating"' in page and "Ranker top-3" not in page
    assert _snapshot_ids(session, seeded.board_id) == before
    assert len(_refresh_jobs(app)) == 1
