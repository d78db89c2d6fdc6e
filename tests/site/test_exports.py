"""CSV and JSON exports: same rows and order as the screen, intervals included."""

from __future__ import annotations

import csv
import io
import json

import pandas as pd


def test_csv_matches_screen_order_and_has_intervals(site):
    client, _ = site
    response = client.get("/leaderboard.csv?view=strict-c&sort=gap&dir=desc")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == (
        'attachment; filename="swords-demo-v1-test-generative-strict-c-all.csv"')
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    systems = [r for r in rows if r["row_type"] == "system"]
    gaps = [float(r["gap"]) for r in systems]
    assert gaps == sorted(gaps, reverse=True)
    for r in systems:
        assert float(r["gap lo"]) <= float(r["gap"]) <= float(r["gap hi"])
        assert r["rank"] and r["conservative_rank"] and r["rank_lo"]
    assert {"strict_c_f@10", "strict_c_f@10 lo", "strict_c_f@10 hi",
            "strict_c_f@10 tie_p"} <= set(rows[0])


def test_json_export_by_pos(site):
    client, _ = site
    response = client.get("/leaderboard.json?pos=VERB&view=lenient-a&entries=all")
    assert response.status_code == 200
    rows = json.loads(response.get_data(as_text=True))
    kinds = [r["row_type"] for r in rows]
    assert kinds.count("system") == 5 and kinds[-3:] == ["human", "oracle", "oracle"]
    assert list(rows[0])[:2] == ["row_type", "rank"] and "lenient_a_f@10 lo" in rows[0]
    humans = rows[-3]
    assert humans["note"].startswith("computed on the 9-target test-subset split")
    best = json.loads(client.get("/leaderboard.json?pos=VERB&view=lenient-a").data)
    assert [r["row_type"] for r in best].count("system") == 3


def test_csv_content_type_names_the_charset_once(site):
    client, _ = site
    response = client.get("/leaderboard.csv")
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"


def test_pandas_reads_the_json_export_by_url(site_app):
    import pandas as pd

    from tests.live_site import serving

    with serving(site_app) as base:
        frame = pd.read_json(f"{base}/leaderboard.json?entries=all")
        csv_frame = pd.read_csv(f"{base}/leaderboard.csv?entries=all")
    assert list(frame["row_type"]).count("system") == 5
    assert list(frame.columns) == list(csv_frame.columns)
    assert frame.loc[0, "system"] == csv_frame.loc[0, "system"] == "Ranker top-3"


FORMULA_TEAM = '=HYPERLINK("http://evil.example/x","Click")'
FORMULA_SYSTEM = "@SUM(1+1)*cmd|' /C calc'!A0"


def test_csv_neutralises_formula_names_and_keeps_numbers(app, client, session, seeded):
    from leaderboard.models import Submission, Team
    from leaderboard.services.ranking.snapshots import refresh_snapshot

    team = session.get(Team, seeded.teams["North Lab"])
    team.name = FORMULA_TEAM
    system = session.get(Submission, seeded.public["Frequency baseline"])
    system.system_name = FORMULA_SYSTEM
    session.add_all([team, system])
    session.commit()
    refresh_snapshot(session=session, board_id=seeded.board_id)
    session.commit()
    text = client.get("/leaderboard.csv?entries=all").get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    teams = {r["team"] for r in rows}
    assert "'" + FORMULA_TEAM in teams and FORMULA_TEAM not in teams
    names = {r["system"] for r in rows}
    assert "'" + FORMULA_SYSTEM in names and FORMULA_SYSTEM not in names
    # No cell of the file starts a formula; metric cells are still plain numbers.
    for row in rows:
        assert not any(v.startswith(("=", "+", "-", "@", "\t", "\r")) for v in row.values() if v)
    assert float(rows[0]["gap"]) > 0
    # JSON is not a spreadsheet format: names stay as given there.
    rows = json.loads(client.get("/leaderboard.json?entries=all").get_data(as_text=True))
    assert FORMULA_TEAM in {r["team"] for r in rows}


def test_neutralise_only_touches_text():
    from leaderboard.services.ranking.exports import neutralise_cell

    texts = ["-1.5", "+x", "\tTab", "\rCR", "ok", "@SUM(1)", "=1"]
    assert [neutralise_cell(t) for t in texts] == [
        "'-1.5", "'+x", "'\tTab", "'\rCR", "ok", "'@SUM(1)", "'=1"]
    assert [neutralise_cell(v) for v in (-1.5, -3, 0.0, None, True)] == [-1.5, -3, 0.0, None,
                                                                          True]


def test_csv_numeric_columns_are_numbers_pandas_reads_as_floats():
    """0.0496 is significant (< 0.05): "%.2f" would print "0.05"; the screen's "< 0.001" is not
    a number. The CSV prints p with six significant digits, and pd.read_csv gives floats
    (exports a program can read)."""
    from leaderboard.services.ranking.exports import to_csv
    from leaderboard.services.ranking.metric_info import VIEWS
    from leaderboard.services.ranking.ranking_table import RankingTable

    view = VIEWS["strict-a"]
    p_values = {"strict_a_f@10": 0.0496, "strict_a_p@10": 0.0504, "strict_a_r@10": 0.0004}

    def cells(p: dict[str, float]) -> list[dict]:
        return [{"key": k, "value": 40.0, "interval": [38.0, 42.0], "p": p.get(k)}
                for k in view.columns]

    rows = [{"rank": 1, "system": "A", "team": "T", "id": 1, "cells": cells({})},
            {"rank": 2, "system": "B", "team": "T", "id": 2, "cells": cells(p_values)}]
    table = RankingTable(view=view, pos=None, sort="rank", direction="asc", rows=rows,
                         references=[], benchmark={}, generated_at=None, snapshot_id=None)
    text = to_csv(table)
    first, second = csv.DictReader(io.StringIO(text))
    assert second["strict_a_f@10 tie_p"] == "0.0496"
    assert second["strict_a_p@10 tie_p"] == "0.0504"
    assert second["strict_a_r@10 tie_p"] == "0.0004"
    assert first["strict_a_f@10 tie_p"] == "" and second["strict_a_f@10"] == "40.00"
    frame = pd.read_csv(io.StringIO(text))
    for key in view.columns:
        for column in (key, f"{key} lo", f"{key} hi", f"{key} tie_p"):
            assert frame[column].dtype == "float64", (column, frame[column].dtype)
    assert frame["strict_a_r@10 tie_p"][1] == 0.0004


def _frame(table, rows) -> pd.DataFrame:
    """The export's rows as a pandas frame, as the export made it before it was written
    without one: the columns of :func:`export_columns`, whole numbers as ``Int64``."""
    from leaderboard.services.ranking.exports import INT_COLUMNS, export_columns, export_record

    frame = pd.DataFrame.from_records([export_record(row, kind) for row, kind in rows],
                                      columns=export_columns(table))
    for column in INT_COLUMNS:
        frame[column] = frame[column].astype("Int64")
    return frame


def _pandas_csv(table, size: int) -> str:
    """The CSV as pandas writes the frame, chunk by chunk, text cells neutralised."""
    from leaderboard.services.ranking.exports import export_rows, neutralise_cell

    rows, out = export_rows(table), []
    for start in range(0, max(len(rows), 1), size):
        frame = _frame(table, rows[start:start + size])
        for column in frame.columns:
            if column.endswith(" tie_p"):
                frame[column] = [None if pd.isna(p) else f"{float(p):.6g}"
                                 for p in frame[column]]
            if not pd.api.types.is_numeric_dtype(frame[column]):
                frame[column] = frame[column].map(neutralise_cell)
        frame.columns = [neutralise_cell(c) for c in frame.columns]
        out.append(frame.to_csv(index=False, header=start == 0, float_format="%.2f"))
    return "".join(out)


def _pandas_json(table, size: int) -> list[dict]:
    """The JSON export as pandas wrote the frame, read back: scores rounded to 2 decimals,
    p-values to 6 by its JSON writer."""
    from leaderboard.services.ranking.exports import export_rows

    rows, out = export_rows(table), []
    for start in range(0, max(len(rows), 1), size):
        frame = _frame(table, rows[start:start + size])
        for column in frame.columns:
            if pd.api.types.is_float_dtype(frame[column]) and not column.endswith(" tie_p"):
                frame[column] = frame[column].round(2)
        out += json.loads(frame.to_json(orient="records", double_precision=6))
    return out


def test_csv_is_what_pandas_writes_of_the_frame(session, seeded):
    """Every view, POS and entries choice of a board with references, formula-like and
    quoted names and unranked rows: the CSV equals pandas' ``to_csv`` of the frame byte for
    byte, in one chunk and in chunks of 3 rows (pandas infers each chunk's types apart); the
    JSON export reads as pandas' ``to_json`` of it, line for line (each row's text as
    ``json.dumps`` writes what was read back)."""
    from leaderboard.models import Submission, Team
    from leaderboard.services.ranking.exports import csv_chunks, json_chunks
    from leaderboard.services.ranking.metric_info import views_for
    from leaderboard.services.ranking.snapshot_reader import ranking_rows
    from leaderboard.services.ranking.snapshots import refresh_snapshot

    team = session.get(Team, seeded.teams["North Lab"])
    team.name = FORMULA_TEAM
    system = session.get(Submission, seeded.public["Frequency baseline"])
    system.system_name = 'say "hi", then\nleave'
    session.add_all([team, system])
    session.commit()
    refresh_snapshot(session=session, board_id=seeded.board_id)
    session.commit()
    checked = 0
    for view in views_for("generative"):
        for pos in (None, "VERB", "ADV"):
            for entries in ("all", "best"):
                table = ranking_rows(session=session, board_id=seeded.board_id, view=view,
                                     pos=pos, entries=entries, sort="date")
                for size in (500, 3):
                    assert "".join(csv_chunks(table, size)) == _pandas_csv(table, size)
                    text = "".join(json_chunks(table, size))
                    expected = _pandas_json(table, size)
                    assert text == "[" + ",".join(f"\n{json.dumps(r)}" for r in expected) + "\n]\n"
                    checked += 1
    text = "".join(csv_chunks(ranking_rows(session=session, board_id=seeded.board_id,
                                           entries="all")))
    assert '"say ""hi"", then\nleave"' in text and "'" + FORMULA_TEAM.replace('"', '""') in text
    assert checked == 2 * 3 * 2 * len(views_for("generative"))


def test_a_system_line_is_what_the_csv_writer_writes_of_its_cells():
    """The CSV writes a system row's line field by field (no ``csv.writer`` call per row):
    the same text as the writer gives of the generic path's cells, for a set-apart row whose
    reason has commas and quotes, flags, coverage, a signature, % of Humans, missing values
    and intervals, a negative zero, and a name the writer quotes; a second export (the
    numbers' text then comes from the memo) is the same again."""
    from leaderboard.services.ranking.exports import to_csv
    from leaderboard.services.ranking.metric_info import VIEWS
    from leaderboard.services.ranking.ranking_table import RankingTable
    from leaderboard.services.ranking.table_rows import RowCells, TableRow

    view = VIEWS["strict-a"]
    n = len(view.columns)
    values = [[40.123, -0.0, None, 0.0] for _ in range(n)]
    intervals = [[(38.005, 42.5), (-0.004, 0.0), None, (-0.004, 0.0)] for _ in range(n)]
    ties = [[0.0496, None, 1e-7, None] for _ in range(n)]
    cells = RowCells([(k, values[j], intervals[j], ties[j])
                      for j, k in enumerate(view.columns)], ("swords", 1))
    base = {"rank": 1, "rank_lo": 1, "rank_hi": 3, "conservative_rank": None,
            "tied_with_next_better": True, "team": "=Team", "team_id": 1, "date": "2026-01-02",
            "paper_url": None, "code_url": None, "headline": 40.12, "pct_humans": 52.25,
            "coverage": {"targets": 10, "answered": 9, "empty": 1, "missing": 0},
            "signature": {"scorer_version": "1.2", "split_checksum": "ab", "seed": 7,
                          "bootstrap": 1000}, "flags": ["repeats", "odd"],
            "items_with_duplicates": 1234}
    fields = [{**base, "id": 5, "system": 'say "hi", then\nleave',
               "set_apart": 'repeats answers on 1,234 items; "score.pl" counts each'},
              {**base, "id": 6, "system": "plain", "set_apart": "", "flags": [],
               "pct_humans": None, "coverage": None, "signature": None, "rank": None,
               "items_with_duplicates": None},
              {**base, "id": 7, "system": "-x", "set_apart": ""},
              {**base, "id": 8, "system": "zero", "set_apart": ""}]
    rows = [TableRow(f, cells, g, g) for g, f in enumerate(fields)]
    table = RankingTable(view=view, pos=None, sort="rank", direction="asc", rows=rows,
                         references=[], benchmark={}, generated_at=None, snapshot_id=None)
    # The generic path: the same rows with their cell dicts made (export_record, the writer).
    generic = [TableRow(dict(r), cells, r.g, r.i) for r in rows]
    for r in generic:
        r["cells"]  # noqa: B018 - made now: the row then goes through the generic path
    expected = to_csv(RankingTable(view=view, pos=None, sort="rank", direction="asc",
                                   rows=generic, references=[], benchmark={},
                                   generated_at=None, snapshot_id=None))
    assert to_csv(table) == expected
    assert to_csv(table) == expected
    line = expected.splitlines()[1]
    assert line.startswith('system,1,1,3,,True,"say ""hi"", then')
    assert '"repeats answers on 1,234 items; ""score.pl"" counts each",repeats odd,1234,' \
        "40.12,38.01,42.50,0.0496," in expected
    assert ",-0.00,-0.00,0.00," in expected and ",0.00,-0.00,0.00," in expected
    assert ",'-x,'=Team," in expected
