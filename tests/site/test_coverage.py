"""Coverage on the public pages: a system that abstains on part of the
split carries answered / empty / missing counts on the ranking, its page, the exports and
the API, so it never ranks beside a complete one without a hint."""

from __future__ import annotations

import csv
import io
import re

from leaderboard.models import Split, Team
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.site.seed import _store, demo_file


def _partial(session, seeded) -> tuple[int, int]:
    """A public system answering all but 5 targets: 2 empty lists, 3 left out."""
    strong = demo_file("demo_strong")
    targets = sorted(strong["substitutes"])
    subs = {t: v for t, v in strong["substitutes"].items() if t not in targets[:3]}
    subs.update({t: [] for t in targets[3:5]})
    bench = session.get(Split, seeded.split_id)
    row = _store(session, bench, session.get(Team, seeded.teams["East Lab"]), "Partial system",
                 {"substitutes_lemmatized": strong.get("substitutes_lemmatized", False),
                  "substitutes": subs})
    session.commit()
    refresh_snapshot(session=session, board_id=seeded.board_id)
    session.commit()
    return row.id, bench.n_targets


def test_coverage_on_ranking_system_page_exports_and_api(client, session, seeded):
    sub_id, n = _partial(session, seeded)
    answered = n - 5
    text = (f"answered {answered} of {n} targets ({100 * answered / n:.1f}%); "
            "2 empty lists, 3 missing")

    html = client.get("/?entries=all").get_data(as_text=True)
    rows = re.findall(r'<tr[^>]*>\s*<td class="col-rank.*?</tr>', html, flags=re.S)
    partial = next(r for r in rows if ">Partial system</a>" in r)
    assert (f'<abbr class="coverage" title="{text}">{answered}/{n}</abbr>') in partial
    full = next(r for r in rows if ">Contextual ranker</a>" in r)
    assert 'class="coverage"' not in full

    page = client.get(f"/systems/{sub_id}").get_data(as_text=True)
    assert (f'<dt>Coverage</dt><dd id="coverage">{text} (unanswered targets score 0)</dd>'
            in page)
    page = client.get(f"/systems/{seeded.public['Contextual ranker']}").get_data(as_text=True)
    assert f'<dd id="coverage">answered {n} of {n} targets (100.0%); 0 empty lists, 0 missing' \
           in page

    body = client.get("/api/v1/leaderboard?entries=all").get_json()
    by_name = {r["system"]: r for r in body["rows"]}
    assert by_name["Partial system"]["coverage"] == {
        "targets": n, "answered": answered, "unanswered": 5, "empty": 2, "missing": 3}
    assert by_name["Contextual ranker"]["coverage"]["unanswered"] == 0

    table = list(csv.DictReader(io.StringIO(
        client.get("/leaderboard.csv?entries=all").get_data(as_text=True))))
    row = next(r for r in table if r["system"] == "Partial system")
    assert (row["targets_in_split"], row["targets_answered"], row["targets_empty"],
            row["targets_missing"]) == (str(n), str(answered), "2", "3")
    ref = next(r for r in table if r["row_type"] == "oracle")
    assert ref["targets_answered"] == ""
    exported = client.get("/leaderboard.json?entries=all").get_json()
    row = next(r for r in exported if r["system"] == "Partial system")
    assert (row["targets_answered"], row["targets_empty"], row["targets_missing"]) == (
        answered, 2, 3)
