"""Analysis computed on demand is counted: a comparison or significance
grid not yet cached costs one from the caller's budget (per address, per account, and for
anonymous readers together); cached answers are free; past a budget, a 429 that says why
and when to come back, as a page or in the API's envelope."""

from __future__ import annotations

from itertools import permutations

import pytest

from tests.factories import login, make_team


@pytest.fixture
def app_overrides(app_overrides):
    app_overrides.update(ANALYSIS_RATE_LIMIT="3 per minute",
                         ANALYSIS_GLOBAL_RATE_LIMIT="100 per minute")
    return app_overrides


def _pairs(seeded) -> list[tuple[int, int]]:
    return list(permutations(sorted(seeded.public.values()), 2))


def test_new_comparisons_are_counted_and_cached_ones_are_free(app, client, session, seeded):
    pairs = _pairs(seeded)
    for a, b in pairs[:3]:
        assert client.get(f"/compare?a={a}&b={b}").status_code == 200
    a, b = pairs[3]
    refused = client.get(f"/compare?a={a}&b={b}")
    assert refused.status_code == 429
    text = refused.get_data(as_text=True)
    assert "Too many new comparisons from your address: at most 3 per 1 minute" in text
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    # Computed already (by anybody): served, page or API, whatever the budget.
    a, b = pairs[0]
    assert client.get(f"/compare?a={a}&b={b}").status_code == 200
    assert client.get(f"/api/v1/compare?a={a}&b={b}").status_code == 200
    # The API shares the address's budget and answers in its envelope.
    a, b = pairs[4]
    api = client.get(f"/api/v1/compare?a={a}&b={b}&pos=NOUN")
    assert api.status_code == 429
    error = api.get_json()["error"]
    assert error["code"] == "rate_limited" and "from your address" in error["message"]
    assert api.headers["Retry-After"] == str(error["retry_after"])
    # A member has a budget of their own account.
    make_team(session, "Member Lab", email="member@example.org")
    member = app.test_client()
    assert login(member, "member@example.org").status_code == 302
    a, b = pairs[5]
    assert member.get(f"/compare?a={a}&b={b}").status_code == 200


def test_many_addresses_share_one_anonymous_budget(app, client, session, seeded,
                                                   app_overrides):
    app.config["LEADERBOARD"].update(ANALYSIS_RATE_LIMIT="100 per minute",
                                     ANALYSIS_GLOBAL_RATE_LIMIT="2 per minute")
    pairs = _pairs(seeded)
    answers = []
    for n, (a, b) in enumerate(pairs[:3]):
        visitor = app.test_client()
        visitor.environ_base["REMOTE_ADDR"] = f"10.0.0.{n + 1}"
        answers.append(visitor.get(f"/compare?a={a}&b={b}"))
    assert [r.status_code for r in answers] == [200, 200, 429]
    assert "The site is computing as many new comparisons" in answers[2].get_data(as_text=True)
    make_team(session, "Member Lab", email="member@example.org")
    member = app.test_client()
    assert login(member, "member@example.org").status_code == 302
    a, b = pairs[3]
    assert member.get(f"/compare?a={a}&b={b}").status_code == 200


def test_significance_builds_one_grid_per_window(app, client, seeded):
    """Every system of one window shares its table and chart: five ``around`` values on a
    five-system board cost one computation; another grid is a new one."""
    app.config["LEADERBOARD"]["ANALYSIS_RATE_LIMIT"] = "1 per minute"
    for sid in seeded.public.values():
        page = client.get(f"/significance?around={sid}")
        assert page.status_code == 200
        # the page still names the system asked for
        assert f'<input type="hidden" name="around" value="{sid}">' in page.get_data(
            as_text=True)
    again = client.get(f"/api/v1/significance?around={seeded.public['Contextual ranker']}")
    assert again.status_code == 429  # the API's tables are cached apart from the pages'
    assert client.get("/significance?metric=strict_c_f@10").status_code == 429
    # Work per request stays bounded: at most 30 systems a grid.
    assert client.get("/api/v1/significance?top=31").status_code == 400
