"""No public route reveals the hidden gold: substitutes that appear in the demo split's gold
but in no demo submission must never show up in any public output."""

from __future__ import annotations

import re

from tests.site.seed import gold_only_substitutes


def _public_urls(seeded) -> list[str]:
    urls = ["/", "/about", "/matrix", "/charts", "/leaderboard.csv", "/leaderboard.json"]
    for view in ("strict-a", "strict-c", "lenient-a", "lenient-c", "all"):
        for pos in ("ALL", "NOUN", "VERB", "ADJ", "ADV"):
            urls += [f"/?view={view}&pos={pos}", f"/leaderboard.csv?view={view}&pos={pos}",
                     f"/leaderboard.json?view={view}&pos={pos}"]
        if view != "all":
            urls.append(f"/charts?view={view}")
    for metric in ("strict_a_f@10", "gap", "oot_p"):
        urls.append(f"/matrix?metric={metric}")
    ids = list(seeded.public.values())
    urls += [f"/systems/{i}" for i in ids] + [f"/compare?a={ids[0]}&b={i}" for i in ids[1:]]
    urls += [f"/api/v1/compare?a={ids[0]}&b={i}&pos=NOUN" for i in ids[1:]]
    urls += ["/significance", "/significance?metric=gap", "/api/v1/significance", "/history",
             "/history?view=lenient-c", "/?entries=all", "/leaderboard.json?entries=all"]
    urls += [f"/teams/{t}" for t in seeded.teams.values()]
    urls += ["/api/v1/leaderboard", "/api/v1/leaderboard?pos=NOUN"]
    return urls


def _permalinks(client, seeded) -> list[str]:
    """Each public result's record, page and JSON (its id is random: read off its system
    page)."""
    paths = []
    for sid in seeded.public.values():
        html = client.get(f"/systems/{sid}").get_data(as_text=True)
        public_id = re.search(r'id="permalink" href="[^"]*/results/([0-9a-f]+)"', html).group(1)
        paths += [f"/results/{public_id}", f"/api/v1/results/{public_id}"]
    return paths


def test_gold_only_substitutes_never_appear(site):
    client, seeded = site
    secrets = gold_only_substitutes()
    assert len(secrets) >= 5  # the scan means something only with real gold-only words
    pattern = re.compile(r"\b(" + "|".join(re.escape(s) for s in sorted(secrets)) + r")\b",
                         re.IGNORECASE)
    scanned = 0
    for url in _public_urls(seeded) + _permalinks(client, seeded):
        response = client.get(url)
        if url.startswith("/api/") and response.status_code == 404:
            continue  # the API leaderboard may not exist yet
        assert response.status_code == 200, url
        text = response.get_data(as_text=True)
        found = pattern.findall(text)
        assert not found, f"{url} shows gold-only substitutes {sorted(set(found))}"
        scanned += 1
    assert scanned > 50
