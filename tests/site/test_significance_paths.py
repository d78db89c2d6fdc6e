"""One significance rule everywhere: the same pair gives one verdict on the ranking's tie mark,
the compare page, the compare API, the exports and the conservative rank."""

from __future__ import annotations

import csv
import html as html_module
import io
import re

from leaderboard.scoring.significance import format_p

KEY = "strict_a_f@10"


def _verdicts(client, above: int, below: int, below_name: str) -> dict[str, bool]:
    """Whether ``above`` and ``below`` (neighbours on strict F^10, all entries) differ
    significantly, as each path says it."""
    out = {}
    html = client.get("/?entries=all").get_data(as_text=True)
    body = html.split('<tbody id="systems">')[1]
    row = next(r for r in body.split("<tr")[1:] if f'data-value="{below_name}"' in r)
    out["tie mark"] = "≈" not in row.split("</td>")[0]
    page = client.get(f"/compare?a={above}&b={below}").get_data(as_text=True)
    first = page.split('<tbody>')[1].split("</tr>")[0]
    assert "F<sup>10</sup> strict" in first
    out["compare page"] = "verdict-yes" in first
    api = client.get(f"/api/v1/compare?a={above}&b={below}").get_json()
    out["compare api"] = api["metrics"][KEY]["significant"]
    rows = list(csv.DictReader(io.StringIO(
        client.get("/leaderboard.csv?entries=all").get_data(as_text=True))))
    record = next(r for r in rows if r["system"] == below_name)
    out["csv"] = record["tied_with_next_better"] == "False"
    json_rows = client.get("/api/v1/leaderboard?entries=all").get_json()["rows"]
    record_json = next(r for r in json_rows if r["system"] == below_name)
    out["api leaderboard"] = not record_json["metrics"][KEY]["tied"]
    # the printed p agrees with the verdict too
    shown = re.search(r'data-p="([0-9.e-]+)">([^<]+)<', first)
    assert shown and html_module.unescape(shown.group(2)) == format_p(float(shown.group(1)))
    assert float(record_json["metrics"][KEY]["tie_p"]) == api["metrics"][KEY]["p_value"]
    return out


def test_one_verdict_for_a_tied_pair(site):
    client, seeded = site
    above, below = seeded.public["Ranker top-3"], seeded.public["Contextual ranker"]
    verdicts = _verdicts(client, above, below, "Contextual ranker")
    # Contextual ranker has one system above it, so its conservative rank is 2 exactly when
    # that one system is significantly better.
    json_rows = client.get("/api/v1/leaderboard?entries=all").get_json()["rows"]
    row = next(r for r in json_rows if r["system"] == "Contextual ranker")
    assert row["rank"] == 2
    verdicts["conservative rank"] = row["conservative_rank"] == 2
    assert set(verdicts.values()) == {False}, verdicts


def test_one_verdict_for_a_different_pair(site):
    client, seeded = site
    above, below = seeded.public["Contextual ranker"], seeded.public["Thesaurus baseline"]
    verdicts = _verdicts(client, above, below, "Thesaurus baseline")
    assert set(verdicts.values()) == {True}, verdicts
    json_rows = client.get("/api/v1/leaderboard?entries=all").get_json()["rows"]
    row = next(r for r in json_rows if r["system"] == "Thesaurus baseline")
    assert row["rank"] == 3 and row["conservative_rank"] == 3


def test_compare_api_shape_and_visibility(site):
    client, seeded = site
    a, b = seeded.public["Contextual ranker"], seeded.public["Frequency baseline"]
    doc = client.get(f"/api/v1/compare?a={a}&b={b}").get_json()
    assert doc["a"]["id"] == a and doc["b"]["system"] == "Frequency baseline"
    m = doc["metrics"][KEY]
    assert set(m) >= {"a", "b", "diff", "diff_interval", "p_beats", "p_value", "significant"}
    assert abs(m["diff"] - (m["a"] - m["b"])) < 1e-3
    assert m["diff_interval"][0] <= m["diff"] <= m["diff_interval"][1]
    assert abs(m["p_value"] - 2 * min(m["p_beats"], 1 - m["p_beats"])) < 1e-6
    reverse = client.get(f"/api/v1/compare?a={b}&b={a}").get_json()["metrics"][KEY]
    assert abs(reverse["p_beats"] - (1 - m["p_beats"])) < 1e-6
    assert reverse["p_value"] == m["p_value"] and reverse["significant"] == m["significant"]
    by_pos = client.get(f"/api/v1/compare?a={a}&b={b}&pos=NOUN").get_json()
    assert by_pos["pos"] == "NOUN"
    for bad in (seeded.private_id, seeded.hidden_id, 99999):
        response = client.get(f"/api/v1/compare?a={a}&b={bad}")
        assert response.status_code == 404
        assert response.get_json()["error"]["code"] == "not_found"
    assert client.get(f"/api/v1/compare?a={a}&b=x").status_code == 400
    assert client.get(f"/api/v1/compare?a={a}&b={b}&pos=XYZ").status_code == 400


def test_compare_page_summary(site):
    client, seeded = site
    a, b = seeded.public["Contextual ranker"], seeded.public["Frequency baseline"]
    doc = client.get(f"/api/v1/compare?a={a}&b={b}").get_json()
    s = doc["summary"]
    html = client.get(f"/compare?a={a}&b={b}").get_data(as_text=True)
    summary = re.sub(r"\s+", " ", html.split('id="h2h-summary">')[1].split("</p>")[0])
    assert (f"scores higher on {s['a_won']} of {s['metrics']} metrics "
            f"({s['a_won_significantly']} significantly)") in summary
    assert s["a_won"] + s["b_won"] + s["even"] == s["metrics"] == len(doc["metrics"])
    assert client.get("/compare").status_code == 200
    assert client.get("/compare?a=1&b=zz").status_code == 400


def test_significance_view_and_api(site):
    client, seeded = site
    doc = client.get("/api/v1/significance?metric=strict_a_f@10&top=4").get_json()
    names = [s["system"] for s in doc["systems"]]
    assert names == ["Ranker top-3", "Contextual ranker", "Thesaurus baseline",
                     "Thesaurus top-1"]
    p = doc["p_beats"]
    assert all(abs(p[i][j] + p[j][i] - 1) < 1e-3 for i in range(4) for j in range(4))
    # the tied pair shares a letter; the different pair does not
    letters = [s["letters"] for s in doc["systems"]]
    assert set(letters[0]) & set(letters[1]) and not set(letters[1]) & set(letters[2])
    assert doc["significant"][0][1] is False and doc["significant"][1][2] is True
    html = client.get("/significance?metric=strict_a_f@10").get_data(as_text=True)
    assert 'id="sig-figure"' in html and "Compact letter display" in html
    assert client.get("/significance?metric=nope").status_code == 400
    assert client.get("/api/v1/significance?top=1").status_code == 400
    assert client.get("/api/v1/significance?top=31").status_code == 400


def test_history_page(site):
    client, _ = site
    html = client.get("/history").get_data(as_text=True)
    assert 'id="history-figure"' in html and "Best so far" in html
    # the oracles provide lenient metrics only: their lines appear on the lenient views
    assert "CoInCo" not in html
    assert "CoInCo" in client.get("/history?view=lenient-a").get_data(as_text=True)
    assert client.get("/history?view=all").status_code == 400


def test_leaderboard_api_entries_and_q(site):
    client, _ = site
    best = client.get("/api/v1/leaderboard").get_json()
    assert best["entries"] == "best" and len(best["rows"]) == 3
    every = client.get("/api/v1/leaderboard?entries=all&q=ranker").get_json()
    assert [r["system"] for r in every["rows"]] == ["Ranker top-3", "Contextual ranker"]
    assert client.get("/api/v1/leaderboard?entries=some").status_code == 400
    assert client.get("/?q=" + "x" * 101).status_code == 400
