"""Per-e-mail and site-wide limits beside the per-address ones.

Eight client addresses used to pass every per-address limit of login, sign-up and reset.
Each test sends from eight addresses (REMOTE_ADDR, or X-Forwarded-For behind a trusted
proxy) and expects the per-e-mail or global limit to stop them.
"""

from __future__ import annotations

import pytest
from sqlmodel import select

from leaderboard.models import Team
from leaderboard.web.account import limits
from tests.factories import DEFAULT_PASSWORD, csrf_token_from, make_team

ADDRESSES = [f"198.51.100.{i}" for i in range(1, 9)]


def _client(app, address: str, *, forwarded: bool = False):
    client = app.test_client()
    if forwarded:  # behind one trusted proxy (PROXY_FIX_HOPS=1): the proxy's own address
        client.environ_base["REMOTE_ADDR"] = "10.0.0.1"
        client.environ_base["HTTP_X_FORWARDED_FOR"] = address
    else:
        client.environ_base["REMOTE_ADDR"] = address
    return client


def _post(client, path: str, data: dict):
    token = csrf_token_from(client.get(path).get_data(as_text=True))
    return client.post(path, data={**data, "csrf_token": token})


def _login(client, email: str, password: str = "wrong password!"):
    return _post(client, "/account/login", {"email": email, "password": password})


@pytest.mark.parametrize("forwarded", [False, True], ids=["remote-addr", "x-forwarded-for"])
def test_failed_logins_on_one_account_from_eight_addresses_hit_its_limit(
        app_overrides, request, forwarded):
    app_overrides.update(LOGIN_ACCOUNT_RATE_LIMIT="5 per hour",
                         PROXY_FIX_HOPS=1 if forwarded else 0)
    app = request.getfixturevalue("app")
    session = request.getfixturevalue("session")
    make_team(session, email="victim@example.org")
    make_team(session, name="Bystander", email="other@example.org")
    responses = [_login(_client(app, address, forwarded=forwarded), "Victim@example.org")
                 for address in ADDRESSES]
    assert [r.status_code for r in responses] == [400] * 5 + [429] * 3
    assert limits.LOGIN_ACCOUNT_LIMITED in responses[-1].get_data(as_text=True)
    # Even the right password waits now; the reset link is the way in.
    fresh = _client(app, "203.0.113.99", forwarded=forwarded)
    assert _login(fresh, "victim@example.org", DEFAULT_PASSWORD).status_code == 429
    # Other accounts, from the same addresses, are not touched.
    assert _login(_client(app, ADDRESSES[0], forwarded=forwarded), "other@example.org",
                  DEFAULT_PASSWORD).status_code == 302
    # An unknown address is limited alike: the limit tells nothing about who is registered.
    unknown = [_login(_client(app, a, forwarded=forwarded), "nobody@example.org").status_code
               for a in ADDRESSES]
    assert unknown == [400] * 5 + [429] * 3


def test_successful_logins_do_not_use_up_the_account_limit(app_overrides, request):
    app_overrides.update(LOGIN_ACCOUNT_RATE_LIMIT="2 per hour")
    app = request.getfixturevalue("app")
    make_team(request.getfixturevalue("session"), email="a@example.org")
    codes = [_login(_client(app, address), "a@example.org", DEFAULT_PASSWORD).status_code
             for address in ADDRESSES]
    assert codes == [302] * 8


def test_failed_logins_site_wide_hit_the_global_limit(app_overrides, request):
    app_overrides.update(LOGIN_GLOBAL_RATE_LIMIT="6 per minute")
    app = request.getfixturevalue("app")
    codes = [_login(_client(app, address), f"user{i}@example.org").status_code
             for i, address in enumerate(ADDRESSES)]
    assert codes == [400] * 6 + [429] * 2
    assert limits.LOGIN_GLOBAL_LIMITED in _login(
        _client(app, "203.0.113.5"), "x@example.org").get_data(as_text=True)


def _signup(client, team: str, email: str):
    return _post(client, "/account/signup", {"team_name": team, "email": email,
                                             "password": DEFAULT_PASSWORD,
                                             "confirm": DEFAULT_PASSWORD})


def test_past_the_site_wide_signup_limit_a_flood_shuts_out_only_its_networks(
        app_overrides, request):
    """A flood of sign-ups from a few dozen addresses does not refuse every real sign-up.
    Past the site-wide limit the site is busy: one sign-up per network (/24, /48)
    an hour, counting the sign-ups before, so the flood's network gets no more and real
    users elsewhere still sign up; only the ceiling refuses everybody."""
    app_overrides.update(SIGNUP_GLOBAL_RATE_LIMIT="5 per hour",
                         SIGNUP_CEILING_RATE_LIMIT="13 per hour")
    app = request.getfixturevalue("app")

    def signup(address: str, n: str):
        return _signup(_client(app, address), f"Team {n}", f"{n}@example.org")

    flood = [signup(address, f"flood{i}") for i, address in enumerate(ADDRESSES)]
    assert [r.status_code for r in flood] == [200] * 5 + [429] * 3
    assert limits.SIGNUP_BUSY_LIMITED in flood[-1].get_data(as_text=True).replace("&#39;", "'")
    assert [signup(address, n).status_code for address, n in (
        ("203.0.113.7", "real1"), ("203.0.113.8", "real1b"),  # its /24 had its turn
        ("2001:db8:1::5", "real2"), ("2001:db8:1:ff::9", "real2b"),  # one /48
        ("192.0.2.9", "real3"))] == [200, 429, 200, 429, 200]
    ceiling = signup("198.18.0.1", "late")
    assert ceiling.status_code == 429
    assert limits.SIGNUP_GLOBAL_LIMITED in ceiling.get_data(as_text=True).replace("&#39;", "'")
    teams = request.getfixturevalue("session").exec(select(Team.name).order_by(Team.id)).all()
    assert teams == [f"Team flood{i}" for i in range(5)] + [
        "Team real1", "Team real2", "Team real3"]


def test_signup_limits_with_redis_unreachable_let_signups_through(app_overrides, request):
    app_overrides.update(REDIS_URL="redis://127.0.0.1:1/0")
    app = request.getfixturevalue("app")
    assert _signup(_client(app, ADDRESSES[0]), "No Redis", "nr@example.org").status_code == 200
    assert request.getfixturevalue("session").exec(select(Team.name)).all() == ["No Redis"]


@pytest.mark.parametrize(("address", "network"), [
    ("198.51.100.77", "198.51.100.0/24"), ("::ffff:198.51.100.77", "198.51.100.0/24"),
    ("2001:db8:1:ff::9", "2001:db8:1::/48"), ("unix-socket", "unix-socket"), (None, "-")])
def test_network_of(address, network):
    assert limits.network_of(address) == network


def test_signups_naming_one_email_from_eight_addresses_hit_its_limit(app_overrides, request):
    app_overrides.update(SIGNUP_EMAIL_RATE_LIMIT="3 per hour")
    app = request.getfixturevalue("app")
    codes = [_signup(_client(app, address), f"Same {i}", "SAME@example.org").status_code
             for i, address in enumerate(ADDRESSES)]
    assert codes[3:] == [429] * 5
    assert 429 not in codes[:3]


def _reset(client, email: str):
    return _post(client, "/account/reset", {"email": email})


def test_resets_of_one_email_from_eight_addresses_hit_its_limit(app_overrides, request):
    app_overrides.update(RESET_EMAIL_RATE_LIMIT="3 per hour")
    app = request.getfixturevalue("app")
    make_team(request.getfixturevalue("session"), email="a@example.org")
    responses = [_reset(_client(app, address), "a@example.org") for address in ADDRESSES]
    assert [r.status_code for r in responses] == [200] * 3 + [429] * 5
    assert "Too many password reset requests for this e-mail address" in (
        responses[-1].get_data(as_text=True))
    # Someone else's reset still goes through.
    assert _reset(_client(app, ADDRESSES[0]), "b@example.org").status_code == 200


def test_resets_from_eight_addresses_hit_the_global_limit(app_overrides, request):
    app_overrides.update(RESET_GLOBAL_RATE_LIMIT="4 per hour")
    app = request.getfixturevalue("app")
    codes = [_reset(_client(app, address), f"r{i}@example.org").status_code
             for i, address in enumerate(ADDRESSES)]
    assert codes == [200] * 4 + [429] * 4
