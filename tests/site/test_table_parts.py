"""Any ranking query answered from the snapshot's prepared table parts equals the table built
from the whole snapshot (issue 31 item 3): every view, POS, sort, direction, entries choice,
filter and page, with systems withdrawn since the snapshot (the read filter), set-apart
systems, a Humans reference and a publication's row; the API's pages and the matrix too."""

from __future__ import annotations

import copy
import itertools
import json
import random

import numpy as np
import pytest

from leaderboard.blueprints.public.prepared import snapshot_meta
from leaderboard.demo.synthetic import add_systems, synthetic_board
from leaderboard.models import LeaderboardSnapshot
from leaderboard.services.ranking.metric_info import POS_VALUES, default_view, track_of, views_for
from leaderboard.services.ranking.ranking_table import (
    BadQuery,
    build_matrix,
    build_table,
    matrix_of,
    matrix_page,
    page_of,
    page_size,
    page_window,
    paged,
    table_of,
    window_page,
)
from leaderboard.services.ranking.read_filter import filtered
from leaderboard.services.ranking.snapshots import refresh_snapshot
from leaderboard.services.ranking.table_source import (
    MissingPart,
    PartsSource,
    decode_part,
    encode_part,
    table_parts,
)


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory):
    """A 230-system snapshot (23 teams, so ``?entries=all`` has 3 pages) with 4 systems set
    apart on GAP and oot, a Humans reference and a reported row."""
    from sqlmodel import Session, SQLModel, create_engine

    engine = create_engine(f"sqlite:///{tmp_path_factory.mktemp('parts')}/db.sqlite")
    SQLModel.metadata.create_all(engine)
    with Session(engine) as session:
        board = synthetic_board(session, n_targets=40)
        add_systems(session, board, n_systems=230, n_teams=23, rng=np.random.default_rng(3),
                    n_targets=40, bootstrap=50)
        snapshot_id = refresh_snapshot(session=session, board_id=board.id).id
        session.commit()
        data = copy.deepcopy(session.get(LeaderboardSnapshot, snapshot_id).data)
    engine.dispose()
    for g in (0, 7, 100, 229):
        data["systems"][g]["flags"] = ["duplicate_answers"]
        data["systems"][g]["items_with_duplicates"] = 12 + g
    first = data["systems"][5]
    data["references"] = [{"name": "Humans", "kind": "human", "note": "", "subset": False,
                           "metrics": first["metrics"], "intervals": first["intervals"],
                           "by_pos": first["by_pos"]}]
    data["reported"] = [{"name": "A paper", "citation": "X et al.", "url": "", "source": "",
                         "note": "", "benchmark": data["benchmark"],
                         "metrics": {"strict_a_f@10": 99.0, "gap": 99.0}}]
    return data


def _source(data):
    """The parts as a web process reads them: as the ranker stores them, decoded."""
    parts = {key: decode_part(key[0], encode_part(key[0], value))
             for key, value in table_parts(data).items()}
    top = json.loads(json.dumps(snapshot_meta(data)))["top"]
    read: dict = {}

    def reader(wanted):
        read.update((key, parts[key]) for key in wanted if key in parts)

    return PartsSource(top, read, reader)


def _reads_of(source: PartsSource) -> list[list]:
    """Each read ``source`` makes from now on: the parts it asked for."""
    reads: list[list] = []
    inner = source._read
    source._read = lambda wanted: (reads.append(list(wanted)), inner(wanted))
    return reads


def _queries(data):
    views = views_for("generative")
    ids = [s["id"] for s in data["systems"]]
    best = data["best"]["strict_a_f@10"]["members"]
    hidden_sets = [frozenset(), frozenset({ids[best[0]], ids[3], ids[7]})]
    for key, view in views.items():
        sorts = ["rank", "date", "team", "system", *view.columns[:3], view.columns[-1]]
        for pos, sort, direction, entries, q, hidden in itertools.product(
                (None, "NOUN", "ADV"), sorts, ("asc", "desc"), ("best", "all"),
                ("", "team 1"), hidden_sets):
            yield key, pos, sort, direction, entries, q, hidden


def _window(data, key: str | None, page: int) -> tuple[int, int]:
    """The rows of ``page`` of view ``key`` (None: the default), as the ranking page asks."""
    track = track_of(data)
    return page_window(page, page_size(views_for(track)[key or default_view(track)]))


def test_every_query_from_the_parts_equals_the_whole_table(snapshot):
    source = _source(snapshot)
    queries = list(_queries(snapshot))
    checked = 0
    for key, pos, sort, direction, entries, q, hidden in random.Random(31).sample(queries, 160):
        data = filtered(snapshot, hidden) if hidden else snapshot
        whole = build_table(data, snapshot_id=9, view=key, pos=pos, sort=sort,
                            direction=direction, entries=entries, q=q)
        query = dict(snapshot_id=9, view=key, pos=pos, sort=sort, direction=direction,
                     entries=entries, q=q, hidden=hidden)
        assert table_of(source, **query) == whole, query
        for page in range(1, 5):
            try:
                expected = page_of(whole, page)
            except BadQuery:
                with pytest.raises(BadQuery):
                    window_page(table_of(source, **query, window=_window(snapshot, key, page)),
                                page)
                break
            got = window_page(table_of(source, **query, window=_window(snapshot, key, page)), page)
            assert got == expected, (query, page)
            checked += 1
        per_page, page = 17, 2
        api = table_of(source, **query, window=page_window(page, per_page))
        assert paged(api.to_dict(), page, per_page, api.matching) == paged(
            whole.to_dict(), page, per_page), query
    assert checked > 160   # pages 2 and 3 of ?entries=all among them


def test_set_apart_reported_and_humans_rows_are_read_from_the_parts(snapshot):
    data = copy.deepcopy(snapshot)
    data["board"] = {**(data.get("board") or {}), "views": "ranking"}   # GAP the headline
    source = _source(data)
    ids = [s["id"] for s in data["systems"]]
    for sort, entries, hidden in itertools.product(("rank", "gap", "date"), ("best", "all"),
                                                   (frozenset(), frozenset({ids[7]}))):
        query = dict(snapshot_id=9, sort=sort, entries=entries, hidden=hidden)
        whole = build_table(filtered(data, hidden) if hidden else data, snapshot_id=9,
                            sort=sort, entries=entries)
        assert table_of(source, **query) == whole, query
        got = window_page(table_of(source, **query, window=page_window(3)), 3) if (
            entries == "all") else None
        assert got is None or got == page_of(whole, 3)
    table = table_of(source, snapshot_id=9, entries="all")
    apart = [r["items_with_duplicates"] for r in table.rows if r["set_apart"]]
    assert sorted(apart) == [12, 19, 112, 241]
    assert all(r["set_apart"] for r in table.rows[-4:])   # below the ranked rows
    assert all(r["pct_humans"] is not None for r in table.rows)
    assert table.n_systems == 230
    # The publication's 99.0 beats every system: shown first, above rank 1.
    first = window_page(table_of(_source(snapshot), snapshot_id=9, entries="all",
                                 window=page_window(1)), 1)
    assert first.reported[0]["above_rank"] == 1 and first.reported[0]["place"] == 0


def test_a_query_reads_the_ties_of_its_views_columns_only(snapshot):
    """Each metric's ties are a part of their own: a shown block holds its ranks, and a
    query of a 5-column view reads those 5 metrics' ties of its block, in the one read that
    fetches its columns (a block held all 27 metrics': 78% of its bytes)."""
    from leaderboard.services.ranking.table_source import SHOWN, TIES

    parts = table_parts(snapshot)
    block = parts[(SHOWN, ("NOUN", ""))]
    assert set(block["stats"]) == {"ranks"} and block["members"] is None
    ties = {v[2] for (kind, v) in parts if kind == TIES and v[:2] == ("NOUN", "")}
    assert len(ties) == len(snapshot["stats"]["NOUN"]["ties"]) > 20
    assert parts[(TIES, ("NOUN", "", "gap"))] == snapshot["stats"]["NOUN"]["ties"]["gap"]
    best = snapshot["best"]["strict_a_f@10"]
    assert parts[(TIES, ("all", "strict_a_f@10", "gap"))] == best["stats"]["all"]["ties"]["gap"]

    source = _source(snapshot)
    reads = _reads_of(source)
    view = views_for("generative")["lenient-a"]
    table = table_of(source, snapshot_id=9, view="lenient-a", pos="NOUN", entries="all",
                     sort="gap")
    assert len(reads) == 1
    assert sorted(k[1][2] for k in reads[0] if k[0] == TIES) == sorted(view.columns)
    assert table == build_table(snapshot, snapshot_id=9, view="lenient-a", pos="NOUN",
                                entries="all", sort="gap")
    marked = [r for r in table.rows if r["tied_with_next_better"]]
    assert marked and marked[0]["rank_p"] is not None
    # A page marks ties on its headline and its sort column only: it reads those two, and
    # its rows' HTML is that of the table with every column's ties.
    from leaderboard.blueprints.public.render import _CACHE, rows_html

    for sort in ("gap", "rank", "date"):
        query = dict(snapshot_id=9, view="all", pos="ADV", entries="all", sort=sort)
        source = _source(snapshot)
        reads = _reads_of(source)
        page = window_page(table_of(source, **query, window=_window(snapshot, "all", 2),
                                    marked_only=True), 2)
        assert len(reads) == 1 and {k[1][2] for k in reads[0] if k[0] == TIES} <= {
            "strict_a_f@10", sort}
        whole = page_of(build_table(snapshot, **query), 2)
        links = dict(sys_base="/systems/", team_base="/teams/", headline_label="F")
        html = rows_html(page, **links)
        _CACHE.clear()   # kept by query: the whole table's rows are written anew
        assert html == rows_html(whole, **links)
        marks = html.count('class="tie"')
        assert marks == 0 if sort == "date" else marks > 10   # the date sort marks no tie

    source = _source(snapshot)
    reads = _reads_of(source)
    table_of(source, snapshot_id=9, view="lenient-a", pos="NOUN", entries="all", sort="gap")
    # A metric no block has ties of reads as none, once.
    stats = source.shown("strict_a_f@10", "all", "NOUN")[1]
    assert stats["ties"].get("no-such-metric") is None
    assert stats["ties"].get("no-such-metric", ()) == ()
    assert len(reads) == 2


def test_the_matrix_from_the_parts_equals_the_whole_one(snapshot):
    source = _source(snapshot)
    ids = [s["id"] for s in snapshot["systems"]]
    for metric, hidden in (("gap", frozenset()), ("best_p", frozenset(ids[:5])),
                           ("strict_a_f@10", frozenset({ids[100]}))):
        data = filtered(snapshot, hidden) if hidden else snapshot
        whole = build_matrix(data, metric)
        assert matrix_of(source, metric, hidden) == whole, metric
        for page in (1, 3):   # only the page's cells made
            assert matrix_of(source, metric, hidden, page) == matrix_page(whole, page)
        with pytest.raises(BadQuery):
            matrix_of(source, metric, hidden, 4)


def test_a_missing_part_says_so():
    with pytest.raises(MissingPart):
        PartsSource({}, {}, lambda wanted: None)


def test_a_column_part_reads_back_every_number_and_gap_exactly():
    """A column is stored as doubles: each value, bound and None comes back as it was
    (0.1 + 0.2 is not 0.3, -0.0 keeps its sign, 1e-300 and 1e300 stay), and a part of
    another kind is JSON."""
    from leaderboard.services.ranking.table_source import COLUMN, SHOWN

    values = [0.1 + 0.2, None, -0.0, 1e-300, 1e300, 52.18734123456789, 3]
    lows = [None] * 7
    highs = [1.0, 2.5, None, 4.0, 5.0, 6.0, 7.0]
    body = encode_part(COLUMN, [values, lows, highs])
    assert len(body) == 20 + 3 * 7 * 8
    back = decode_part(COLUMN, body)
    assert back == [values, lows, highs]
    assert repr(back[0][2]) == "-0.0" and back[0][0] == 0.30000000000000004
    assert all(type(v) is float for v in back[0] if v is not None)
    shown = {"members": [2, 0], "stats": {"ties": {}}}
    assert encode_part(SHOWN, shown) == b'{"members":[2,0],"stats":{"ties":{}}}'
    assert decode_part(SHOWN, encode_part(SHOWN, shown)) == shown
    with pytest.raises(ValueError):
        decode_part(COLUMN, b"json" + body[4:])


def test_page_cells_from_the_parts_equal_those_from_the_whole_snapshot(snapshot):
    """The page's score cells read the parts' bounds as flat lists (and keep each cell's
    HTML by its numbers): the same HTML as from the whole snapshot, tie marks, a Humans
    column and cells without a value included, the first time and from what was kept."""
    from leaderboard.blueprints.public.render import _score_cells

    source = _source(snapshot)
    compared = ties = 0
    for key, view in views_for("generative").items():
        for pos, sort in itertools.product((None, "ADV"), (view.headline, view.columns[-1])):
            query = dict(snapshot_id=9, view=key, pos=pos, sort=sort, entries="all")
            parts = table_of(source, **query, window=(40, 90))
            whole = page_of(build_table(snapshot, **query), 1)
            whole_rows = {r["id"]: r for r in build_table(snapshot, **query).rows}
            assert parts.rows and len(whole.rows) == (50 if key == "all" else 100)
            for row in parts.rows:
                expected = _score_cells(whole_rows[row["id"]], view.headline, sort, "42%")
                for _ in range(2):
                    assert _score_cells(row, view.headline, sort, "42%") == expected
                compared += 1
                ties += expected.count('class="tie"')
                assert expected.count('<td class="num pct">42%</td>') == 1
    assert compared > 1000 and ties > 0



def test_ranks_read_in_order_where_rounded_scores_are_equal(snapshot):
    """Rows are sorted on scores rounded to 2 decimals (what the page and the API print),
    ranks on the full scores: systems equal to 2 decimals are shown in rank order, not in
    upload order (rank 13 above rank 12 was seen at 1,000 systems)."""
    for key, view in views_for("generative").items():
        for pos, entries, sort, direction in itertools.product(
                (None, *POS_VALUES), ("all", "best"), ("rank", view.headline), ("asc", "desc")):
            query = dict(snapshot_id=9, view=key, pos=pos, entries=entries, sort=sort,
                         direction=direction)
            table = build_table(snapshot, **query)
            assert table_of(_source(snapshot), **query) == table
            ranks = [r["rank"] for r in table.rows if r["rank"] is not None]
            best_first = (sort, direction) in (("rank", "asc"), (view.headline, "desc"))
            assert ranks == sorted(ranks, reverse=not best_first), query
