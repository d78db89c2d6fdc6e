"""CSV and JSON exports: same rows and order as the screen, intervals included."""

from __future__ import annotations

import csv
import io
import json


def test_csv_matches_screen_order_and_has_intervals(site):
    client, _ = site
    response = client.get("/leaderboard.csv?view=strict-c&sort=gap&dir=desc")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == (
        'attachment; filename="swords-leaderboard-strict-c-all.csv"')
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
