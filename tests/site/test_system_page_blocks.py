"""A system page: what it shows is current on every request; the compare selector's options
come from the shown snapshot less the systems withdrawn since."""

from __future__ import annotations

import re

from leaderboard.models import Submission, System
from leaderboard.services.intake.admin import set_hidden
from tests.factories import login


def _options(html: str) -> list[int]:
    select = html.split('id="compare-select"')[1].split("</select>")[0]
    return [int(v) for v in re.findall(r'<option value="(\d+)">', select)]


def test_every_other_public_system_is_in_the_selector(client, seeded):
    public = sorted(seeded.public.values())
    for sid in public:
        first = client.get(f"/systems/{sid}")
        assert first.status_code == 200
        again = client.get(f"/systems/{sid}")
        assert again.get_data() == first.get_data()
        # every other public system in the selector, never the page's own
        assert _options(again.get_data(as_text=True)) == [i for i in public if i != sid]


def test_what_the_page_shows_is_current(client, session, seeded):
    sid = seeded.public["Contextual ranker"]
    assert "A sharper description" not in client.get(f"/systems/{sid}").get_data(as_text=True)
    system = session.get(System, session.get(Submission, sid).system_id)
    system.description = "A sharper description"
    session.add(system)
    session.commit()
    html = client.get(f"/systems/{sid}").get_data(as_text=True)
    assert "A sharper description" in html


def test_a_withdrawn_system_leaves_the_selector(client, session, seeded):
    sid = seeded.public["Contextual ranker"]
    other = seeded.public["Thesaurus baseline"]
    assert other in _options(client.get(f"/systems/{sid}").get_data(as_text=True))
    set_hidden(session, submission_id=other, hidden=True, reason="probing", actor_id=None)
    html = client.get(f"/systems/{sid}").get_data(as_text=True)
    assert other not in _options(html) and _options(html)
    assert client.get(f"/systems/{other}").status_code == 404


def test_the_layout_stays_the_viewers_own(client, seeded):
    """The content is everybody's; the header (who is logged in, the logout form) is not."""
    sid = seeded.public["Contextual ranker"]
    anonymous = client.get(f"/systems/{sid}").get_data(as_text=True)
    login(client, "east-lab@example.org")
    own = client.get(f"/systems/{sid}").get_data(as_text=True)
    assert "Log out" in own and "Log out" not in anonymous
    content = lambda html: html.split('<main')[1].split("</main>")[0]  # noqa: E731
    assert content(own) == content(anonymous)
