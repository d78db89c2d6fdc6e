"""Cached ranking responses: validators (ETag / Last-Modified, 304), gzip, invalidation when a
new snapshot is written, and personal pages kept out of the shared cache."""

from __future__ import annotations

import gzip
import json

from leaderboard.models import Submission
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.factories import login

URLS = ["/", "/?view=all&pos=VERB&sort=gap&dir=asc", "/api/v1/leaderboard",
        "/api/v1/leaderboard?view=lenient-c", "/leaderboard.csv", "/leaderboard.json"]


def test_etag_revalidation_answers_304_without_a_body(site):
    client, _ = site
    for url in URLS:
        first = client.get(url)
        assert first.status_code == 200, url
        etag = first.headers["ETag"]
        assert etag.startswith('W/"') and first.headers["Last-Modified"]
        assert first.headers["Cache-Control"] == "public, no-cache"
        again = client.get(url, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.data == b"", url
        assert again.headers["ETag"] == etag
        since = client.get(url, headers={"If-Modified-Since": first.headers["Last-Modified"]})
        assert since.status_code == 304, url
        stale = client.get(url, headers={"If-None-Match": 'W/"something-else"'})
        assert stale.status_code == 200 and stale.data == first.data, url


def test_each_query_has_its_own_body_and_etag(site):
    client, _ = site
    default, by_gap = client.get("/"), client.get("/?sort=gap&dir=desc")
    assert default.headers["ETag"] != by_gap.headers["ETag"]
    assert 'aria-sort="descending"' in by_gap.get_data(as_text=True)
    assert 'data-key="gap" data-type="num" aria-sort="descending"' in by_gap.get_data(
        as_text=True)
    assert 'data-key="gap" data-type="num" aria-sort' not in default.get_data(as_text=True)
    # the same query spelled with its defaults is the same representation
    assert client.get("/?view=strict-a&pos=ALL").headers["ETag"] == default.headers["ETag"]


def test_gzip_body_is_the_same_document(site):
    client, _ = site
    for url in ("/", "/api/v1/leaderboard"):
        plain = client.get(url)
        zipped = client.get(url, headers={"Accept-Encoding": "gzip, deflate"})
        assert zipped.headers["Content-Encoding"] == "gzip"
        assert "Accept-Encoding" in zipped.headers["Vary"]
        assert gzip.decompress(zipped.data) == plain.data
        assert len(zipped.data) < len(plain.data)
        assert zipped.headers["ETag"] == plain.headers["ETag"]
        assert "Content-Encoding" not in plain.headers


def test_bad_query_is_not_cached_and_answers_400(site):
    client, _ = site
    assert client.get("/?view=nope").status_code == 400
    response = client.get("/api/v1/leaderboard?sort=nothing")
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "bad_query"


def test_new_snapshot_invalidates_cached_page_and_json(app, client, session, seeded):
    page = client.get("/")
    html = page.get_data(as_text=True)
    api = client.get("/api/v1/leaderboard?entries=all")
    csv = client.get("/leaderboard.csv").get_data(as_text=True)
    assert "Secret system" not in html and "Secret system" not in csv
    assert "Secret system" not in [r["system"] for r in api.get_json()["rows"]]
    private = session.get(Submission, seeded.private_id)
    private.is_public = True
    session.add(private)
    session.commit()
    refresh_snapshot(session=session, board_id=seeded.board_id)
    session.commit()

    # the old validator no longer matches: the client gets the new ranking
    fresh = client.get("/", headers={"If-None-Match": page.headers["ETag"]})
    assert fresh.status_code == 200 and "Secret system" in fresh.get_data(as_text=True)
    after = client.get("/api/v1/leaderboard?entries=all",
                       headers={"If-None-Match": api.headers["ETag"]})
    assert after.status_code == 200
    assert after.headers["ETag"] != api.headers["ETag"]
    rows = json.loads(after.data)["rows"]
    assert "Secret system" in [r["system"] for r in rows]
    assert len(rows) == len(api.get_json()["rows"]) + 1
    assert "Secret system" in client.get("/").get_data(as_text=True)
    assert "Secret system" in client.get("/leaderboard.csv").get_data(as_text=True)


def test_logged_in_page_is_personal_and_not_shared(site_app):
    anonymous = site_app.test_client()
    shared = anonymous.get("/")
    member = site_app.test_client()
    login(member, "east-lab@example.org")
    own = member.get("/")
    text = own.get_data(as_text=True)
    assert own.status_code == 200 and "Log out" in text and "East Lab" in text
    assert "ETag" not in own.headers and own.headers["Cache-Control"] == "private, no-cache"
    # the member's page did not leak into the shared cache, nor the reverse
    again = anonymous.get("/").get_data(as_text=True)
    assert "Log out" not in again and again == shared.get_data(as_text=True)
    assert "Log in" in again


def test_one_etag_per_body_whichever_process_built_it(client, session, seeded):
    """``/`` and ``/?leaderboard=<the default board>`` must not share one weak ETag while
    their bodies differ (as they would if the filter form kept the query's ``leaderboard``
    in a hidden field, which is not part of the cache key), or a process that built one
    would serve it under the other's validator. Every fetch here is made as a fresh
    process would (caches cleared) and as a warm one would; two answers share an ETag
    exactly when their bodies are the same."""
    from itertools import combinations

    from leaderboard.models import Board
    from leaderboard.services.ranking.snapshot_reader import clear_caches

    slug = session.get(Board, seeded.board_id).slug
    urls = ["/", f"/?leaderboard={slug}", "/?view=strict-a&pos=ALL", "/?sort=gap",
            "/api/v1/leaderboard", f"/api/v1/leaderboard?leaderboard={slug}"]
    answers = []
    for order in (urls, urls[::-1]):
        for url in order:
            clear_caches()
            answers.append((url, client.get(url)))
        answers += [(url, client.get(url)) for url in order]
    assert all(response.status_code == 200 for _url, response in answers)
    for (url_a, a), (url_b, b) in combinations(answers, 2):
        same_tag = a.headers["ETag"] == b.headers["ETag"]
        assert same_tag == (a.data == b.data), (url_a, url_b)
    bodies = {url: {r.data for u, r in answers if u == url} for url in urls}
    assert all(len(variants) == 1 for variants in bodies.values()), "a URL changed its body"
    # The default board spelled out is the same page as the default board.
    assert bodies["/"] == bodies[f"/?leaderboard={slug}"]
