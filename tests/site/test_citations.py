"""What a reader cites for a board: its own benchmark's BibTeX (never SWORDS's on another
family's board) beside the leaderboard's, on the board's ranking page, the about page and in
``GET /api/v1/leaderboards``; the footer's "How to cite" leads to the shown board's block."""

from __future__ import annotations

import re
from html import unescape

import pytest

from leaderboard.scoring.families import FAMILIES
from leaderboard.services.catalog.citations import CFF_PATH, leaderboard_bibtex
from leaderboard.services.catalog.lexsub import lexsub_board
from leaderboard.services.catalog.tsar import tsar_board
from tests.lexsub_files import write_coinco, write_semeval07
from tests.scoring.tsar.files import write_tsar


@pytest.fixture
def boards(session, tmp_path, seeded) -> dict[str, str]:
    """Family name -> the slug of one of its boards (SWORDS: the seeded default board)."""
    folder = write_coinco(write_semeval07(tmp_path))
    made = {"semeval07": lexsub_board(session, "semeval07", "trial", "generative",
                                      data_dir=folder),
            "coinco": lexsub_board(session, "coinco", "test", "ranking", data_dir=folder),
            "tsar2022": tsar_board(session, "en-test", root=write_tsar(tmp_path))}
    session.commit()
    return {"swords": "swords-demo-v1-test-generative",
            **{name: board.slug for name, board in made.items()}}


def _cite_block(html: str) -> list[str]:
    block = html.split('<section class="cite" id="cite"')[1].split("</section>")[0]
    return [unescape(e) for e in re.findall(r'<pre class="bibtex"[^>]*>(.*?)</pre>', block,
                                            flags=re.S)]


def test_each_board_cites_its_own_benchmark_and_the_leaderboard(client, boards):
    for name, slug in boards.items():
        html = client.get(f"/?leaderboard={slug}").get_data(as_text=True)
        entries = _cite_block(html)
        assert entries == [*FAMILIES[name].bibtex, leaderboard_bibtex("http://localhost/")]
        if name != "swords":
            assert "lee-etal-2021-swords" not in html.split('id="cite"')[1]
        # the footer leads to this board's block, not to SWORDS's
        footer = re.search(r'id="footer-cite" href="([^"]+)"', html).group(1)
        assert footer == ("/#cite" if name == "swords" else f"/?leaderboard={slug}#cite")


def test_ls07_gives_both_papers_of_the_task(client, boards):
    html = client.get(f"/?leaderboard={boards['semeval07']}").get_data(as_text=True)
    keys = [e.split(",")[0] for e in _cite_block(html)]
    assert keys == ["@inproceedings{mccarthy-navigli-2007-semeval",
                    "@article{mccarthy-navigli-2009-english", "@software{swords-leaderboard"]


def test_about_lists_every_benchmark_once_and_the_leaderboard(client, seeded):
    html = client.get("/about").get_data(as_text=True)
    section = html.split('<h2 id="cite">')[1]
    for name, family in FAMILIES.items():
        assert f'id="cite-{name}"' in section
        for bibtex in family.bibtex:
            key = bibtex.split(",")[0]
            assert section.count(key) == 1, key
    assert section.count("@software{swords-leaderboard,") == 1
    # every page without a board sends "How to cite" here
    assert 'id="footer-cite" href="/about#cite"' in html


def test_the_api_gives_each_board_its_citation(client, boards):
    listed = {b["slug"]: b["citation"] for b in
              client.get("/api/v1/leaderboards").get_json()["leaderboards"]}
    for name, slug in boards.items():
        assert listed[slug] == {"benchmark": name, "title": FAMILIES[name].title,
                                "bibtex": list(FAMILIES[name].bibtex),
                                "leaderboard": leaderboard_bibtex("http://localhost/")}


def test_the_leaderboard_entry_follows_citation_cff_and_the_public_url(app, client):
    entry = leaderboard_bibtex("https://lexsub.example.org/")
    assert entry.startswith("@software{swords-leaderboard,\n  title = {{SWORDS leaderboard: ")
    assert "  author = {{The SWORDS leaderboard contributors}},\n" in entry
    assert "  version = {0.1.0},\n  url = {https://lexsub.example.org/},\n" in entry
    served = client.get("/CITATION.cff")
    assert served.status_code == 200 and served.get_data() == CFF_PATH.read_bytes()
    app.config["LEADERBOARD"]["PUBLIC_URL"] = "https://lexsub.example.org"
    html = client.get("/about").get_data(as_text=True)
    assert "url = {https://lexsub.example.org/}" in html
