"""The Ladder on the real SWORDS test split, over HTTP, on both databases.

A team's new test result is released only when significantly better (one-sided paired
bootstrap on the headline) than its best released one; a held submission shows no number
derived from it on any route, to its team or to anybody else, and to anybody but its team
and the hosts it answers as a private submission does.
"""

from __future__ import annotations

import gzip
import io
import json
import re

import pytest
from sqlmodel import select

from leaderboard.models import Release, ReleaseState, Result, Submission
from leaderboard.services.catalog.benchmarks import import_benchmark
from leaderboard.services.catalog.boards import import_board
from leaderboard.services.ranking.snapshots import refresh_snapshot
from leaderboard.worker import jobs
from tests.backends import ALL_DATABASES
from tests.factories import login, make_team, make_token
from tests.ops.splits import REFERENCE_DIR, TEST_SPLIT

pytestmark = pytest.mark.skipif(not TEST_SPLIT.exists(),
                                reason=f"real SWORDS test split absent at {TEST_SPLIT}")


def _reference(name: str) -> dict:
    return json.loads(gzip.decompress((REFERENCE_DIR / f"{name}_test.result.json.gz")
                                      .read_bytes()))["substitutes"]


def _gold_best(target_id: str) -> list[list]:
    """The target's substitutes by their number of positive labels: a perfect list."""
    split = json.loads(gzip.decompress(TEST_SPLIT.read_bytes()))
    counts = {}
    for sid, sub in split["substitutes"].items():
        if sub["target_id"] == target_id:
            labels = split["substitute_labels"][sid]
            counts[sub["substitute"]] = sum(label.startswith("TRUE") for label in labels)
    ranked = sorted((c, w) for w, c in counts.items() if c > 0)[::-1][:10]
    return [[w, float(c)] for c, w in ranked]


def _file(substitutes: dict) -> bytes:
    return json.dumps({"substitutes_lemmatized": False, "substitutes": substitutes}).encode()


@pytest.fixture
def ladder_board(session):
    split = import_benchmark(session=session, raw=TEST_SPLIT.read_bytes(), name="swords",
                             version="1.1", split="test", hidden=True, make_default=True)
    return import_board(session, split)


def _submit(app, client, token: str, raw: bytes, name: str) -> dict:
    response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                           content_type="multipart/form-data",
                           data={"name": name, "public": "1",
                                 "file": (io.BytesIO(raw), "result.json")})
    assert response.status_code == 202, response.get_data(as_text=True)
    sid = response.get_json()["id"]
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    assert jobs.score_submission_job(sid) == "scored"
    body = client.get(f"/api/v1/submissions/{sid}",
                      headers={"Authorization": f"Bearer {token}"}).get_json()
    assert body["status"] == "scored"
    return body


NUMBER = re.compile(r"(?<![\d.])\d+\.\d+(?![\d.])")


def _numbers(text: str) -> set[str]:
    return set(NUMBER.findall(text))


def _forms_of(session, sid: int) -> set[str]:
    """Every way a page or the API could print the stored metrics, intervals and per-POS
    values: one and two decimals, and in full."""
    result = session.exec(select(Result).where(Result.submission_id == sid)).one()
    values = list(result.metrics.values())
    values += [v for iv in result.intervals.values() for v in iv]
    values += [v for block in result.by_pos.values() for v in block["metrics"].values()]
    return ({f"{v:.1f}" for v in values} | {f"{v:.2f}" for v in values}
            | {repr(float(v)) for v in values})


PUBLIC_ROUTES = ("/api/v1/leaderboard", "/api/v1/leaderboard?entries=all", "/?entries=all",
                 "/?entries=all&view=all", "/matrix", "/significance", "/history",
                 "/leaderboard.csv?entries=all", "/leaderboard.json?entries=all",
                 "/charts", "/charts?view=lenient-a", "/api/v1/significance",
                 "/teams/{team}")
PROBE_ROUTES = ("/systems/{sid}", "/compare?a={sid}&b={best}",
                "/api/v1/compare?a={sid}&b={best}", "/account/submissions",
                "/account/submissions/{sid}", "/api/v1/submissions/{sid}",
                "/api/v1/submissions", "/significance?around={sid}",
                "/api/v1/significance?around={sid}")


def _get(who, route: str, token: str | None) -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {token}"} if token and "/api/v1/sub" in route else {}
    response = who.get(route, headers=headers)
    return response.status_code, response.get_data(as_text=True)


def _public_numbers(app, client, team_id: int) -> dict:
    anonymous = app.test_client()
    return {(route, n): _numbers(_get(who, route.format(team=team_id), None)[1])
            for route in PUBLIC_ROUTES for n, who in enumerate((anonymous, client))}


def _assert_nothing_derived(app, client, session, token, *, before, sid, released, team_id,
                            name):
    """No route, anonymous or as the owner, prints a number derived from ``sid``'s result:
    the public pages print no number they did not print before it, and its own pages none of
    its values (those of the team's released results excepted: they are shown, rightly)."""
    best = released[-1]
    secret = _forms_of(session, sid) - set().union(*(_forms_of(session, r) for r in released))
    anonymous = app.test_client()
    for (route, n), numbers in _public_numbers(app, client, team_id).items():
        new = numbers - before[(route, n)]
        assert not new & secret, (route, sorted(new & secret))
        # Its team reads its name on the team page (held, no number); nobody else anywhere.
        if not (route.startswith("/teams") and n == 1):
            assert name not in _get((anonymous, client)[n], route.format(team=team_id),
                                    None)[1], route
    # The probe's own pages: no two-decimal or full value of it, and no one-decimal number
    # that the same page of the released best does not print too ("v1.1", "WordNet 3.0").
    fine = {f for f in secret if len(f.split(".")[1]) >= 2}
    for route in PROBE_ROUTES:
        same_of_best = _numbers(_get(client, route.format(sid=best, best=sid), token)[1])
        for who in (anonymous, client):
            status, text = _get(who, route.format(sid=sid, best=best), token)
            # 400: a held submission is not ranked, so it has no significance window.
            assert status in (200, 302, 400, 401, 404, 409), (route, status)
            leaked = (_numbers(text) & fine) | ((_numbers(text) - same_of_best) & secret)
            assert not leaked, (route, sorted(leaked))


@ALL_DATABASES
def test_ladder_holds_probes_and_releases_significant_gains(app, client, session, runner,
                                                            ladder_board, checks_worker):
    assert ladder_board.release == Release.LADDER  # the default of a hidden test board
    team, _user = make_team(session, name="Ladder Lab", email="lab@example.org")
    token = make_token(session, team)
    assert login(client, "lab@example.org").status_code == 302
    boards = client.get("/api/v1/leaderboards").get_json()["leaderboards"]
    assert [b["release"] for b in boards if b["slug"] == ladder_board.slug] == ["ladder"]
    assert "release: ladder" in client.get("/").get_data(as_text=True)

    thesaurus, coinco = _reference("thesaurus"), _reference("coinco")
    first = _submit(app, client, token, _file(thesaurus), "ladder-thesaurus")
    assert first["release"] == {"policy": "ladder", "state": "released"}  # first: always
    assert first["result"]["metrics"]

    better = _submit(app, client, token, _file(coinco), "ladder-coinco")
    assert better["release"]["state"] == "released"  # significantly better than thesaurus
    best_value = better["result"]["metrics"]["strict_a_f@10"]

    # A padding probe: junk everywhere but the targets whose labels it would read back.
    before = _public_numbers(app, client, team.id)
    probe_target = next(iter(coinco))
    probe = {t: (coinco[t] if n < 40 else [["qqjunk", 1.0]]) for n, t in enumerate(coinco)}
    held = _submit(app, client, token, _file(probe), "ladder-probe")
    assert held["release"]["state"] == "held" and held["result"] is None
    # Its warnings are those a dry run gives (the file's own), none from scoring against the
    # gold ("no hit at all for ...": a bit of the labels).
    dry = client.post("/api/v1/validate", headers={"Authorization": f"Bearer {token}"},
                      content_type="multipart/form-data",
                      data={"file": (io.BytesIO(_file(probe)), "r.json")}).get_json()
    assert set(held["warnings"]) <= {w["message"] for w in dry["warnings"]}
    nothing = _submit(app, client, token, _file({t: [["qqjunk", 1.0]] for t in coinco}),
                      "ladder-nothing")
    assert nothing["release"]["state"] == "held"
    assert not [w for w in nothing["warnings"] if "hit" in w], nothing["warnings"]
    assert held["release"]["against"] == {"id": better["id"], "system_name": "ladder-coinco",
                                          "metric": "strict_a_f@10", "value": best_value}
    assert held["release"]["message"] == (
        f"held: not significantly better than your best, ladder-coinco (#{better['id']}), "
        f"F^10 strict {best_value:.2f} (p ≥ 0.05, one-sided paired bootstrap)")
    row = session.get(Submission, held["id"])
    assert row.release_state == ReleaseState.HELD  # scored and stored, privately
    # Published but held: to anybody but the team it answers as a private or absent system
    # does, byte for byte (whether a probe was held is one more bit of the labels); the team
    # reads its page with the whole reason.
    anonymous = app.test_client()
    as_held, as_absent = (anonymous.get(f"/systems/{sid}") for sid in (held["id"], 10**9))
    assert as_held.status_code == as_absent.status_code == 404
    assert as_held.get_data() == as_absent.get_data()
    team_page = anonymous.get(f"/teams/{team.id}").get_data(as_text=True)
    assert "ladder-probe" not in team_page and "held" not in team_page
    own_page = client.get(f"/systems/{held['id']}").get_data(as_text=True)
    reason = own_page.split('id="release">')[1].split("</p>")[0]
    assert "held: not significantly better than your best, ladder-coinco" in reason
    assert "held: not significantly better than your best" in client.get(
        f"/teams/{team.id}").get_data(as_text=True)
    page = client.get(f"/account/submissions/{held['id']}").get_data(as_text=True)
    assert "Release (ladder policy): <strong>held: not significantly better than your best, " \
           "ladder-coinco" in page
    assert ">Results</h2>" not in page
    listing = client.get("/account/submissions").get_data(as_text=True)
    assert listing.count('<span class="held"') == 2  # the probe and the all-junk file
    # Any later event re-ranks the board (another team's result, a host action): the held
    # probe must stay off the ranking then too.
    refresh_snapshot(session=session, board_id=ladder_board.id)
    session.commit()
    _assert_nothing_derived(app, client, session, token, before=before, sid=held["id"],
                            released=[first["id"], better["id"]],
                            team_id=team.id, name="ladder-probe")

    # Slightly better (one target answered perfectly): not significant, held too.
    slightly = dict(coinco)
    slightly[probe_target] = _gold_best(probe_target)
    nudge = _submit(app, client, token, _file(slightly), "ladder-slightly")
    stored = session.exec(select(Result).where(Result.submission_id == nudge["id"])).one()
    assert stored.metrics["strict_a_f@10"] > best_value  # better, but not significantly
    assert nudge["release"]["state"] == "held" and nudge["result"] is None

    # The board keeps the team's released best.
    ranking = client.get("/api/v1/leaderboard?entries=all").get_json()
    names = {row["system"] for row in ranking["rows"]} if "rows" in ranking else None
    text = json.dumps(ranking)
    assert "ladder-coinco" in text and "ladder-thesaurus" in text
    assert "ladder-probe" not in text and "ladder-slightly" not in text, names

    # The host moves the board to ``full``: held submissions are released.
    result = runner.invoke(args=["board", "set-release", ladder_board.slug, "full"])
    assert result.exit_code == 0, result.output
    assert "3 held submission(s) released" in result.output
    body = client.get(f"/api/v1/submissions/{nudge['id']}",
                      headers={"Authorization": f"Bearer {token}"}).get_json()
    assert body["release"]["state"] == "released"
    assert body["result"]["metrics"]["strict_a_f@10"] == round(
        stored.metrics["strict_a_f@10"], 2)
    assert "ladder-slightly" in client.get("/api/v1/leaderboard?entries=all").get_data(
        as_text=True)


@ALL_DATABASES
def test_dry_run_on_a_hidden_split_returns_no_metric(client, session, ladder_board,
                                                    checks_worker):
    team, _user = make_team(session, name="Dry Lab", email="dry@example.org")
    token = make_token(session, team)
    response = client.post("/api/v1/validate", headers={"Authorization": f"Bearer {token}"},
                           content_type="multipart/form-data",
                           data={"file": (io.BytesIO(_file(_reference("coinco"))), "r.json")})
    assert response.status_code == 200
    body = response.get_json()
    assert body["ok"] is True
    text = json.dumps(body)
    for key in ("f@10", "gap", "p@1", "best_", "oot_", "metrics", "intervals"):
        assert key not in text, key
