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
    response = client.get("/leaderboard.json?pos=VERB&view=lenient-a")
    assert response.status_code == 200
    doc = json.loads(response.get_data(as_text=True))
    assert doc["pos"] == "VERB" and doc["view"] == "lenient-a"
    assert doc["headline"] == "lenient_a_f@10"
    assert list(doc["metrics"])[0] == "lenient_a_f@10"
    kinds = [r["row_type"] for r in doc["rows"]]
    assert kinds.count("system") == 5 and kinds[-3:] == ["human", "oracle", "oracle"]
    humans = doc["rows"][-3]
    assert humans["note"].startswith("computed on the 9-target test-subset split")
