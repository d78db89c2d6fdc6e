"""The ranking page at scale: 100 rows a page (50 in the all-metrics view); sort, filter and
POS over the whole board; a small board's page has no pager at all."""

from __future__ import annotations

import gzip
import io
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from leaderboard.db import make_engine, session_scope
from leaderboard.demo.synthetic import add_systems, synthetic_board
from leaderboard.models import Board
from leaderboard.services.ranking.snapshots import refresh_snapshot


@pytest.fixture(scope="module")
def big_board_file(tmp_path_factory, sqlite_schema) -> tuple[Path, int]:
    """230 public systems of 23 teams (synthetic results, 40 targets, B = 50) and their
    snapshot, built once for the module in a database file each test copies."""
    path = tmp_path_factory.mktemp("big-board") / "board.db"
    shutil.copyfile(sqlite_schema, path)
    engine = make_engine(f"sqlite:///{path}")
    with session_scope(engine) as session:
        board = synthetic_board(session, n_targets=40)
        add_systems(session, board, n_systems=230, n_teams=23, rng=np.random.default_rng(3),
                    n_targets=40, bootstrap=50)
        refresh_snapshot(session=session, board_id=board.id)
        board_id = board.id
    engine.dispose()
    return path, board_id


@pytest.fixture
def app_overrides(app_overrides, big_board_file):
    """This test's database starts as a copy of the module's big board."""
    shutil.copyfile(big_board_file[0], app_overrides["DATABASE_URL"].removeprefix("sqlite:///"))
    return app_overrides


@pytest.fixture
def big_board(session, big_board_file):
    return session.get(Board, big_board_file[1])


def _systems(html: str) -> list[str]:
    body = html.split('<tbody id="systems">')[1].split("</tbody>")[0]
    return re.findall(r'<th scope="row"[^>]*data-value="([^"]*)"', body)


def test_all_entries_come_100_a_page_in_rank_order(client, big_board):
    first = client.get("/?entries=all")
    assert first.status_code == 200
    html = first.get_data(as_text=True)
    names = _systems(html)
    assert len(names) == 100
    assert 'data-paged="true"' in html
    assert "Rows 1–100 of 230 · page 1 of 3" in html
    third = client.get("/?entries=all&page=3").get_data(as_text=True)
    assert len(_systems(third)) == 30 and "Rows 201–230 of 230 · page 3 of 3" in third
    second = _systems(client.get("/?entries=all&page=2").get_data(as_text=True))
    assert not set(names) & set(second) and len(set(names + second + _systems(third))) == 230
    ranks = [int(r) for r in re.findall(r'<td class="col-rank sticky num" data-value="(\d+)"',
                                        third)]
    assert ranks and min(ranks) >= 100  # page 3 holds the bottom of the board
    assert len(first.data) < 300_000


def test_the_all_metrics_view_comes_50_a_page(client, big_board):
    """23 metric columns: a page of 100 rows was 2,300 score cells. 50 rows a page, the same
    systems in the same order as the 5-column views' pages, and their own pager."""
    narrow = [_systems(client.get(f"/?entries=all&page={p}").get_data(as_text=True))
              for p in (1, 2)]
    pages = [client.get(f"/?view=all&entries=all&page={p}") for p in (1, 2, 3, 5)]
    assert [p.status_code for p in pages] == [200] * 4
    html = [p.get_data(as_text=True) for p in pages]
    wide = [_systems(h) for h in html]
    assert [len(w) for w in wide] == [50, 50, 50, 30]
    assert wide[0] + wide[1] == narrow[0] and wide[2] == narrow[1][:50]
    assert "Rows 1–50 of 230 · page 1 of 5" in html[0]
    assert "Rows 201–230 of 230 · page 5 of 5" in html[3]
    assert client.get("/?view=all&entries=all&page=6").status_code == 400
    # a row has a cell for each of the 23 metrics
    row = html[1].split('<tbody id="systems">')[1].split("</tr>")[0]
    assert row.count('<td class="num') == 24  # 23 metrics and the conservative rank


def test_sort_and_filter_apply_to_the_whole_board(client, big_board):
    by_name = _systems(client.get("/?entries=all&sort=system&dir=asc").get_data(as_text=True))
    assert by_name[:3] == ["System 000", "System 001", "System 002"]
    last = _systems(client.get("/?entries=all&sort=system&dir=asc&page=3")
                    .get_data(as_text=True))
    assert last[-1] == "System 229"
    found = client.get("/?entries=all&q=Team+05").get_data(as_text=True)
    assert sorted(_systems(found)) == [f"System {i:03d}" for i in range(5, 230, 23)]
    assert "pager" not in found.split("</table>")[1][:200]


def test_bad_and_past_the_end_pages_are_refused(client, big_board):
    assert client.get("/?entries=all&page=4").status_code == 400
    assert client.get("/?entries=all&page=0").status_code == 400
    assert client.get("/?entries=all&page=x").status_code == 400


def test_a_small_board_has_no_pager(client, big_board):
    html = client.get("/").get_data(as_text=True)  # best per team: 23 rows
    assert len(_systems(html)) == 23
    assert 'id="pager"' not in html and "data-paged" not in html


def test_the_matrix_comes_100_rows_a_page(client, big_board):
    first = client.get("/matrix").get_data(as_text=True)
    assert first.count('<tr><th scope="row" class="col-system sticky"><a href=') == 100
    assert "Rows 1–100 of 230 · page 1 of 3" in first
    third = client.get("/matrix?page=3").get_data(as_text=True)
    assert third.count('<tr><th scope="row" class="col-system sticky"><a href=') == 30
    assert client.get("/matrix?page=9").status_code == 400


def test_exports_are_made_once_per_snapshot(client, session, big_board):
    """An export is written chunk by chunk (the same file as in one piece), gzipped on
    request, made once per process and snapshot, and a client holding it gets a 304."""
    from leaderboard.services.ranking import snapshot_reader
    from leaderboard.services.ranking.exports import csv_chunks, json_chunks
    from leaderboard.services.ranking.snapshot_reader import ranking_rows

    table = ranking_rows(session=session, board_id=big_board.id, entries="all")
    whole = "".join(csv_chunks(table, size=10**6))
    assert "".join(csv_chunks(table, size=7)) == whole
    assert json.loads("".join(json_chunks(table, size=7))) == \
        json.loads("".join(json_chunks(table, size=10**6)))
    snapshot_reader.clear_caches()
    for path, kind in (("/leaderboard.csv?entries=all", "csv"),
                       ("/leaderboard.json?entries=all", "json")):
        etag = client.get(path, headers={"If-None-Match": "x"}).headers["ETag"]
        snapshot_reader.clear_caches()
        again = client.get(path, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.data == b""
        snapshot_reader.clear_caches()
        response = client.get(path)
        assert response.status_code == 200 and response.headers["ETag"] == etag
        made = [k for k in snapshot_reader._cache if k[1] == f"body:export.{kind}"]
        assert len(made) == 1
        body = response.get_data(as_text=True)
        frame = (pd.read_csv(io.StringIO(body)) if kind == "csv"
                 else pd.read_json(io.StringIO(body)))
        assert list(frame["row_type"]).count("system") == 230
        assert frame.loc[0, "system"] == table.rows[0]["system"]
        packed = client.get(path, headers={"Accept-Encoding": "gzip"})
        assert packed.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(packed.data).decode() == body
        assert snapshot_reader._cache[made[0]].body.decode() == body  # the same entry
    assert client.get("/leaderboard.csv?entries=all").get_data(as_text=True) == whole


def test_significance_window_around_a_system(client, session, big_board):
    """The 30 systems around a chosen one, read from the snapshot's band: the same numbers
    as the top-30 grid where they overlap, and as a direct paired comparison elsewhere."""
    from sqlmodel import select

    from leaderboard.models import LeaderboardSnapshot, Result
    from leaderboard.scoring.significance import p_beats_rows
    from leaderboard.services.ranking.resamples import Resamples

    key = "strict_a_f@10"
    data = session.exec(select(LeaderboardSnapshot)
                        .order_by(LeaderboardSnapshot.id.desc())).first().data
    order = data["neighbours"][key]["ids"]
    assert len(order) == 230 and len(data["neighbours"][key]["down"][0]) == 29
    chosen = order[100]
    window = client.get(f"/api/v1/significance?metric={key}&around={chosen}").get_json()
    assert window["first_rank"] == 86 and window["ranked"] == 230
    assert [s["id"] for s in window["systems"]] == order[85:115]
    # Two systems 20 ranks apart in the window, against their resamples directly.
    a, b = order[90], order[110]
    result_of = {r.submission_id: r.id for r in session.exec(select(Result)).all()
                 if r.is_current}
    rows = Resamples(session, [key], [key]).rows([result_of[a], result_of[b]], None, key)
    assert window["p_beats"][5][25] == round(float(p_beats_rows(rows[:1], rows[1:])[0]), 4)
    assert window["p_beats"][25][5] == round(float(p_beats_rows(rows[1:], rows[:1])[0]), 4)
    top = client.get(f"/api/v1/significance?metric={key}").get_json()
    first = client.get(f"/api/v1/significance?metric={key}&around={order[0]}").get_json()
    assert first["first_rank"] == 1 and first["p_beats"] == top["p_beats"]
    page = client.get(f"/significance?metric={key}&around={chosen}").get_data(as_text=True)
    assert "ranked 86–115 of 230" in page and 'class="chosen"' in page
    system_page = client.get(f"/systems/{chosen}").get_data(as_text=True)
    assert f"around={chosen}" in system_page
    for query in ("around=abc", "around=999999", f"metric=best_p&around={chosen}"):
        response = client.get(f"/api/v1/significance?{query}")
        assert response.status_code == 400, query  # not an id, not ranked, not a headline
    assert client.get("/significance?around=-1").status_code == 400
