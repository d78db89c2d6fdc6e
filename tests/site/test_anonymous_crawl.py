"""An anonymous entry on every public surface: no route, body or header links it to its
team (name, id, members, other systems, links, submission ids); after its reveal its name
appears at the same permalink."""

from __future__ import annotations

import re
from urllib.parse import quote

from sqlmodel import select

from leaderboard.models import Board, Result, Submission, System, Team
from tests.backends import ALL_DATABASES
from tests.site.anon_seed import (
    ANON_SYSTEM,
    CODE,
    DESCRIPTION,
    MEMBERS,
    OTHER_SYSTEM,
    PAPER,
    TEAM,
    public_ids_of_results,
    seed_anonymous,
)

#: What a rule's query string may take on the public pages (each value asked once).
QUERIES = {
    "public.ranking": ["", "?entries=all", "?view=all", "?view=lenient-c&pos=NOUN",
                       "?sort=team", "?q=anonymous", "?q=quokka"],
    "public.export_csv": ["", "?entries=all", "?view=all"],
    "public.export_json": ["", "?entries=all", "?view=all"],
    "public.matrix": ["", "?metric=gap"],
    "public.charts_page": ["", "?view=strict-c"],
    "public.history": ["", "?view=lenient-c"],
    "public.significance": ["", "?metric=gap", "?entries=all"],
    "api.significance": ["", "?entries=all"],
    "api.leaderboard": ["", "?entries=all", "?pos=NOUN"],
    "public.paper_table": ["", "?q=quokka", "?q=anonymous"],
}
#: Rules that need a token or a check id (not public) or serve fixed files.
SKIP = {"static", "api.list_submissions", "api.get_submission", "api.submission_targets",
        "api.validation_result", "downloads.split_inputs", "public.plotly_js",
        "public.plotly_css", "public.favicon"}


def _urls(app, session, anon) -> list[str]:
    """Every public GET route, its parameters expanded from the data."""
    subs = [int(i) for i in session.exec(select(Submission.id)).all()]
    slugs = [str(s) for s in session.exec(select(System.slug)).all()]
    teams = [int(t) for t in session.exec(select(Team.id)).all()]
    boards = [str(b) for b in session.exec(select(Board.slug)).all()]
    results = public_ids_of_results(session)
    public = [i for i in anon.seeded.public.values()]
    pairs = [(a, b) for a in public + anon.anon_ids for b in public + anon.anon_ids if a != b]
    urls = []
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods or rule.endpoint in SKIP or rule.rule.startswith(
                ("/account", "/admin")):
            continue
        args = set(rule.arguments)
        if not args:
            base = [rule.rule]
        elif args == {"submission_id"}:
            base = [rule.rule.replace("<int:submission_id>", str(i)) for i in subs]
        elif args == {"slug"} and "systems" in rule.rule:
            base = [rule.rule.replace("<slug>", s) for s in slugs]
        elif args == {"slug"}:
            base = [rule.rule.replace("<slug>", s) for s in boards]
        elif args == {"team_id"}:
            base = [rule.rule.replace("<int:team_id>", str(t)) for t in teams]
        elif args == {"public_id"}:
            base = [rule.rule.replace("<public_id>", r) for r in results]
        elif args == {"kind"}:
            base = [rule.rule.replace("<kind>", k) for k in ("tex", "bib", "md", "csv")]
        else:
            raise AssertionError(f"the crawl does not know how to fill {rule.rule}")
        queries = QUERIES.get(rule.endpoint, [""])
        if rule.endpoint in ("public.compare", "api.compare"):
            queries = [f"?a={a}&b={b}" for a, b in pairs] + ["?a=1&b=999"]
        if rule.endpoint == "public.significance":
            queries = queries + [f"?around={i}" for i in public + anon.anon_ids]
        if rule.endpoint == "public.system":
            queries = ["", *(f"?compare={i}" for i in anon.anon_ids)]
        urls += [b + q for b in base for q in queries]
    return urls


def _needles(anon) -> list[re.Pattern]:
    words = [TEAM, *MEMBERS, OTHER_SYSTEM, ANON_SYSTEM, PAPER, CODE, DESCRIPTION, "Zephyrine",
             "quokka-ranker", "2612.quokka"]
    team = anon.team_id
    patterns = [re.compile(re.escape(w), re.I) for w in words]
    patterns += [re.compile(re.escape(quote(w)), re.I) for w in words if quote(w) != w]
    patterns += [re.compile(rf"/teams/{team}\b"), re.compile(rf'"team_id": ?{team}\b'),
                 re.compile(rf"team_id={team}\b")]
    patterns += [re.compile(rf'"result_ids?": ?\[?([0-9, ]*, )?{rid}\b') for rid in anon.result_ids]
    for sid in anon.anon_ids + [anon.other_id]:
        patterns += [re.compile(rf"/systems/{sid}\b"), re.compile(rf"[?&;](a|b|around|compare)="
                                                                  rf"{sid}\b"),
                     re.compile(rf'value="{sid}"'), re.compile(rf'"(id|submission_id|a|b)": ?'
                                                              rf'{sid}\b'),
                     re.compile(rf'data-(id|sub|system|submission|a|b)[a-z-]*="{sid}"'),
                     re.compile(rf"#{sid}\b"),
                     re.compile(rf"(system|row|sys)-{sid}\b")]
    return patterns


def _scan(client, urls, needles, own_page: str = "") -> int:
    """Every URL's body and headers against every needle (the team's own page may name
    the team, nothing else); the number of answers read."""
    team_words = {re.escape(TEAM), re.escape("Zephyrine"), re.escape(quote(TEAM))}
    read, hits = 0, []
    for url in urls:
        response = client.get(url)
        assert response.status_code < 500 and response.status_code != 429, url
        text = response.get_data(as_text=True)
        headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
        for pattern in needles:
            if pattern.search(url) or (url == own_page and pattern.pattern in team_words):
                continue  # an answer may repeat what its URL asked; a team's page names it
            for where, body in (("body", text), ("headers", headers)):
                match = pattern.search(body)
                if match is not None:
                    hits.append(f"{url} {where} has {match.group(0)!r}: "
                                f"…{body[max(0, match.start() - 100):match.end() + 60]}…")
        read += 1
    assert not hits, f"{len(hits)} hits:\n" + "\n".join(hits[:60])
    return read


@ALL_DATABASES
def test_no_public_route_links_the_anonymous_entry_to_its_team(app, session):
    app.config["RATELIMIT_ENABLED"] = False  # the crawl asks for every grid at once
    anon = seed_anonymous(session)
    client = app.test_client()
    urls = _urls(app, session, anon)
    assert _scan(client, urls, _needles(anon), f"/teams/{anon.team_id}") > 100
    # the entry is on the board, under its anonymous name, with its numbers
    names = [r["system"] for r in client.get("/api/v1/leaderboard").get_json()["rows"]]
    assert f"Anonymous {anon.tag}" in names
    page = client.get(f"/systems/{anon.system_slug}").get_data(as_text=True)
    assert f"Anonymous {anon.tag}" in page and "bert-large" in page


def test_int_ids_of_the_anonymous_entry_answer_404_like_unknown_ones(app, session):
    anon = seed_anonymous(session)
    client = app.test_client()
    sid = anon.anon_ids[0]
    unknown = client.get("/systems/99999")
    hidden = client.get(f"/systems/{sid}")
    assert hidden.status_code == unknown.status_code == 404
    assert hidden.get_data() == unknown.get_data()
    other = anon.seeded.public["Contextual ranker"]
    assert client.get(f"/compare?a={other}&b={sid}").status_code == 404
    assert client.get(f"/api/v1/compare?a={other}&b={sid}").status_code == 404
    around, nowhere = client.get(f"/significance?around={sid}"), client.get(
        "/significance?around=99999")
    assert around.status_code == nowhere.status_code == 400
    assert around.get_data(as_text=True).replace(f"submission {sid} ", "N") == \
        nowhere.get_data(as_text=True).replace("submission 99999 ", "N")


def test_after_reveal_the_name_appears_at_the_same_permalink(app, session):
    anon = seed_anonymous(session)
    client = app.test_client()
    url = f"/systems/{anon.system_slug}"
    assert ANON_SYSTEM not in client.get(url).get_data(as_text=True)
    api = client.get(f"/api/v1/systems/{anon.system_slug}").get_json()
    assert (api["name"], api["team"], api["anonymous"]) == (f"Anonymous {anon.tag}", None, True)
    assert "paper_url" not in api["metadata"] and api["history"] == []
    from leaderboard.services.intake.systems import edit_system
    from leaderboard.services.ranking.snapshots import refresh_snapshot

    system = session.exec(select(System).where(System.slug == anon.system_slug)).one()
    edit_system(session=session, system=system, fields={"anonymous": False}, user_id=None,
                via="form")
    page = client.get(url).get_data(as_text=True)
    assert ANON_SYSTEM in page and TEAM in page and PAPER in page
    assert "named since" in page and "Public since" in page
    api = client.get(f"/api/v1/systems/{anon.system_slug}").get_json()
    assert (api["name"], api["team"]["name"], api["metadata"]["paper_url"]) == (
        ANON_SYSTEM, TEAM, PAPER)
    refresh_snapshot(session=session, board_id=anon.seeded.board_id)
    session.commit()
    names = [r["system"] for r in client.get("/api/v1/leaderboard").get_json()["rows"]]
    assert ANON_SYSTEM in names and f"Anonymous {anon.tag}" not in names


def test_beside_a_named_system_of_its_team_nothing_links_the_two(app, session):
    """The team's other system is public: the team page lists it alone (so the count and
    order are those of a team without the anonymous one), the anonymous entry's own pages
    name no team, and "best per team" keeps both (the anonymous one is a team of its own)."""
    anon = seed_anonymous(session, other_public=True)
    client = app.test_client()
    team_page = client.get(f"/teams/{anon.team_id}").get_data(as_text=True)
    assert OTHER_SYSTEM in team_page
    assert anon.system_slug not in team_page and f"Anonymous {anon.tag}" not in team_page
    assert team_page.count("<tr>") == 1 + 1  # its header row and the named system's
    record = session.exec(select(Result.public_id).where(
        Result.submission_id == anon.anon_ids[0])).one()
    # its neighbours on the board are named, but not their teams: one may be its own
    for url in (f"/systems/{anon.system_slug}", f"/results/{record}",
                f"/api/v1/results/{record}"):
        text = client.get(url).get_data(as_text=True)
        assert TEAM not in text and f"/teams/{anon.team_id}" not in text, url
    best = [r["system"] for r in client.get("/api/v1/leaderboard").get_json()["rows"]]
    assert OTHER_SYSTEM in best and f"Anonymous {anon.tag}" in best
