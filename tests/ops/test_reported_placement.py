"""A publication's number that beats a ranked system is shown at its place: unfolded, among
the systems, still "reported, not re-scored" and unranked."""

from __future__ import annotations

import csv
import io
import re

import pytest
from sqlmodel import select

from leaderboard.models import Split, Team
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.factories import make_team
from tests.ops.splits import hid, mini_split, to_bytes
from tests.site.seed import _store

WADA = "Wada et al. (DeBERTa-V3, decontextualised embeddings, reranked)"


@pytest.fixture
def ranked(runner, session, tmp_path) -> None:
    """swords 1.1 test (mini) with the shipped reported rows, a strong system (every
    acceptable substitute first) and a weak one (only wrong guesses: F^10 0)."""
    path = tmp_path / "mini.json"
    path.write_bytes(to_bytes(mini_split()))
    for args in (["benchmark", "import", str(path), "--name", "swords", "--version", "1.1",
                  "--split", "test", "--hidden", "--default"], ["reported", "add-shipped"]):
        result = runner.invoke(args=args)
        assert result.exit_code == 0, result.output
    bench = session.exec(select(Split)).one()
    t1, t2 = hid("t", "tgt1"), hid("t", "tgt2")
    for team_name, system, subs in (
            ("Strong Lab", "Strong system", {t1: [["rapidly", 1.0]], t2: [["peak", 1.0]]}),
            ("Weak Lab", "Weak system", {t1: [["slowly", 1.0]], t2: [["valley", 1.0]]})):
        team, _ = make_team(session, team_name)
        row = _store(session, bench, session.get(Team, team.id), system,
                     {"substitutes_lemmatized": True, "substitutes": subs})
    session.commit()
    refresh_snapshot(session=session, board_id=row.board_id)
    session.commit()


def _systems_body(html: str) -> str:
    return html.split('<tbody id="systems">')[1].split("</tbody>")[0]


def test_reported_row_that_beats_a_system_is_shown_at_its_place(client, ranked):
    body = client.get("/api/v1/leaderboard").get_json()
    assert [(r["system"], r["rank"]) for r in body["rows"]] == [("Strong system", 1),
                                                                ("Weak system", 2)]
    strong = body["rows"][0]["metrics"]["strict_a_f@10"]["value"]
    assert body["rows"][1]["metrics"]["strict_a_f@10"]["value"] == 0.0
    reported = {r["name"]: r for r in body["reported"]}
    wada = reported[WADA]
    assert wada["metrics"]["strict_a_f@10"]["value"] == 24.52 < strong
    assert (wada["above_rank"], wada["place"], wada["status"]) == (
        2, 1, "reported, not re-scored")
    assert "rank" not in wada
    # A row the publication printed no strict F^10 for beats nobody and stays folded.
    blank = next(r for r in body["reported"] if r["metrics"]["strict_a_f@10"]["value"] is None)
    assert (blank["above_rank"], blank["place"]) == (None, None)

    html = client.get("/").get_data(as_text=True)
    systems = _systems_body(html)
    names = [re.search(r'<th scope="row"[^>]*>(?:<a [^>]*>|<span[^>]*>)([^<]*)<', tr).group(1)
             for tr in re.findall(r"<tr[ >].*?</tr>", systems, flags=re.S)]
    assert names[0] == "Strong system" and names[-1] == "Weak system"
    assert WADA in names[1:-1]
    inline = re.search(r'<tr class="ref ref-reported reported-inline" title="reported, not '
                       r're-scored: would rank above rank 2; unranked"><td class="col-rank '
                       r'sticky" data-value="1.5">–</td>[^\n]*?' + re.escape(WADA) + r'.*?</tr>',
                       systems, flags=re.S)
    assert inline is not None
    assert ('<td class="muted reported-status">reported, not re-scored</td>'
            in inline.group(0))
    # One decimal as every other cell; the published 24.52 in the title.
    assert ('<td class="num" data-key="strict_a_f@10" data-value="24.52"><span class="v" '
            'title="24.52 as published">24.5</span>') in inline.group(0)
    # Rows beaten by the last system (blank headline) stay in the folded group.
    folded = html.split('<tbody class="references reported">')[1].split("</tbody>")[0]
    assert WADA not in folded and blank["name"] in folded
    assert 'class="reported-toggle">' in folded  # nothing out of place: still folded

    rows = list(csv.DictReader(io.StringIO(client.get("/leaderboard.csv").get_data(
        as_text=True))))
    exported = next(r for r in rows if r["system"] == WADA)
    assert (exported["row_type"], exported["rank"], exported["above_rank"]) == (
        "reported", "", "2")


def test_out_of_headline_order_the_group_unfolds(client, ranked):
    html = client.get("/?sort=date&dir=desc").get_data(as_text=True)
    assert WADA not in _systems_body(html)
    folded = html.split('<tbody class="references reported">')[1].split("</tbody>")[0]
    assert WADA in folded and 'class="reported-toggle" checked>' in folded
