"""leaderboard reported add / add-shipped / list / remove, and the rows on the ranking page,
the API and the exports: a publication's numbers, exactly as printed, never ranked."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from sqlmodel import select

from leaderboard.models import Board, LeaderboardSnapshot, ReportedRow
from leaderboard.scoring.reported import REPORTED_DIR
from tests.backends import ALL_DATABASES
from tests.ops.splits import mini_split, to_bytes

GENERATIVE = REPORTED_DIR / "swords-naacl2021-generative.json"
RANKING = REPORTED_DIR / "swords-naacl2021-ranking.json"
WADA = "Wada et al. (DeBERTa-V3, decontextualised embeddings, reranked)"
GEN_SLUG, RANK_SLUG, DEV_SLUG = ("swords-v1.1-test-generative", "swords-v1.1-test-ranking",
                                 "swords-v1.1-dev-generative")


@pytest.fixture
def boards(runner, tmp_path) -> None:
    """A 'swords 1.1' test split with its generative (default) and ranking boards, and a dev
    split with its generative board: the shape `make run BENCHMARK=` sets up."""
    path = tmp_path / "mini.json"
    path.write_bytes(to_bytes(mini_split()))
    for args in (["benchmark", "import", str(path), "--name", "swords", "--version", "1.1",
                  "--split", "test", "--hidden", "--default"],
                 ["board", "create", "--benchmark", "swords", "--version", "1.1", "--split",
                  "test", "--track", "ranking"],
                 ["benchmark", "import", str(path), "--name", "swords", "--version", "1.1",
                  "--split", "dev", "--public"]):
        result = runner.invoke(args=args)
        assert result.exit_code == 0, result.output


def _rows(session, slug: str) -> dict[str, ReportedRow]:
    session.expire_all()
    board = session.exec(select(Board).where(Board.slug == slug)).one()
    return {r.name: r for r in session.exec(select(ReportedRow)
                                            .where(ReportedRow.board_id == board.id)).all()}


def _snapshot_reported(session, slug: str) -> list[dict]:
    session.expire_all()
    board = session.exec(select(Board).where(Board.slug == slug)).one()
    snap = session.exec(select(LeaderboardSnapshot).where(LeaderboardSnapshot.board_id
                                                          == board.id)
                        .order_by(LeaderboardSnapshot.id.desc())).first()
    return snap.data["reported"]


@ALL_DATABASES
def test_add_replaces_the_files_rows_and_refuses_the_other_track(runner, session, boards,
                                                                  tmp_path):
    result = runner.invoke(args=["reported", "add", str(GENERATIVE), "--leaderboard",
                                 GEN_SLUG])
    assert result.exit_code == 0, result.output
    assert result.output == (f"{GEN_SLUG}: 13 reported rows from "
                             "swords-naacl2021-generative.json\n")
    rows = _rows(session, GEN_SLUG)
    assert len(rows) == 13
    bert_k = rows["BERT-K"]
    # Table 4 of the paper, BERT-K: strict F 15.7, F_c 24.5; lenient F 31.7, F_c 54.8.
    assert (bert_k.metrics["strict_a_f@10"], bert_k.metrics["strict_c_f@10"],
            bert_k.metrics["lenient_a_f@10"], bert_k.metrics["lenient_c_f@10"]) == \
        (15.7, 24.5, 31.7, 54.8)
    assert (bert_k.benchmark_name, bert_k.benchmark_version, bert_k.benchmark_split,
            bert_k.origin, bert_k.url) == ("swords", "1.0", "test",
                                           "swords-naacl2021-generative.json",
                                           "https://arxiv.org/abs/2106.04102")
    assert rows["Humans"].benchmark_split == "test-subset"
    assert [r["name"] for r in _snapshot_reported(session, GEN_SLUG)][:3] == [
        "Humans", "CoInCo", "Thesaurus (reranked by BERT)"]

    # The same file again, one number corrected: its rows are replaced, not added to.
    doc = json.loads(GENERATIVE.read_text())
    doc["rows"] = [r for r in doc["rows"] if r["name"] == "BERT-K"]
    doc["rows"][0]["metrics"]["strict_a_f@10"] = 15.8
    edited = tmp_path / "swords-naacl2021-generative.json"
    edited.write_text(json.dumps(doc))
    result = runner.invoke(args=["reported", "add", str(edited), "--leaderboard", GEN_SLUG])
    assert result.exit_code == 0, result.output
    assert result.output.endswith("1 reported row from swords-naacl2021-generative.json, "
                                  "replacing 13\n")
    rows = _rows(session, GEN_SLUG)
    assert list(rows) == ["BERT-K"] and rows["BERT-K"].metrics["strict_a_f@10"] == 15.8
    assert [r["metrics"]["strict_a_f@10"] for r in _snapshot_reported(session, GEN_SLUG)] == \
        [15.8]

    # Generative rows on the ranking board: refused, naming the rows and tracks.
    result = runner.invoke(args=["reported", "add", str(GENERATIVE), "--leaderboard",
                                 RANK_SLUG])
    assert result.exit_code == 1
    assert "nothing stored; 13 problems" in result.output
    assert (f"'BERT-K' is a generative-track row; leaderboard '{RANK_SLUG}' is on the ranking "
            "track") in result.output
    assert _rows(session, RANK_SLUG) == {}

    result = runner.invoke(args=["reported", "add", str(RANKING), "--leaderboard", RANK_SLUG])
    assert result.exit_code == 0, result.output
    assert _rows(session, RANK_SLUG)["GloVe"].metrics == {"gap": 49.7}

    result = runner.invoke(args=["reported", "list", "--leaderboard", RANK_SLUG])
    assert result.exit_code == 0
    assert result.output.splitlines()[1] == (
        f"{RANK_SLUG}\tswords-naacl2021-ranking.json\tBERT\tswords v1.0 test\tgap 56.9")

    result = runner.invoke(args=["reported", "remove", "--leaderboard", RANK_SLUG, "--origin",
                                 "swords-naacl2021-ranking.json"])
    assert result.exit_code == 0, result.output
    assert result.output == f"{RANK_SLUG}: removed 7 reported rows from " \
                            "swords-naacl2021-ranking.json\n"
    assert _rows(session, RANK_SLUG) == {} and _snapshot_reported(session, RANK_SLUG) == []
    result = runner.invoke(args=["reported", "remove", "--leaderboard", RANK_SLUG, "--origin",
                                 "swords-naacl2021-ranking.json"])
    assert result.exit_code == 1 and "has no reported rows from" in result.output


@ALL_DATABASES
def test_an_invalid_file_lists_its_problems_and_stores_nothing(runner, session, boards,
                                                               tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({
        "format": 1, "citation": "A. Author. 2024. A paper.", "source": "Table 1",
        "benchmark": {"name": "swords", "version": "1.1", "split": "test"},
        "track": "generative",
        "rows": [{"name": "Good", "metrics": {"strict_a_f@10": 20.0}},
                 {"name": "Bad", "metrics": {"strict_f": 20.0, "gap": 120}}]}))
    result = runner.invoke(args=["reported", "add", str(bad), "--leaderboard", GEN_SLUG])
    assert result.exit_code == 1
    assert "bad.json: nothing stored; 4 problems:" in result.output
    for problem in ("rows[0] (Good): missing url", "rows[1] (Bad): missing url",
                    "rows[1] (Bad): unknown metric key 'strict_f'",
                    "rows[1] (Bad): gap = 120 is outside 0-100 (values are percent)"):
        assert f"  - {problem}" in result.output
    assert _rows(session, GEN_SLUG) == {}
    result = runner.invoke(args=["reported", "add", str(bad), "--leaderboard", "nope"])
    assert result.exit_code == 1 and "no leaderboard 'nope'" in result.output


@ALL_DATABASES
def test_add_shipped_puts_each_file_on_the_boards_of_its_split_and_track(runner, session,
                                                                          boards):
    for _ in range(2):  # a second run replaces, it does not duplicate
        result = runner.invoke(args=["reported", "add-shipped"])
        assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        f"{GEN_SLUG}: 13 reported rows from swords-naacl2021-generative.json, replacing 13",
        f"{RANK_SLUG}: 7 reported rows from swords-naacl2021-ranking.json, replacing 7",
        f"{GEN_SLUG}: 1 reported row from wada-coling2022.json, replacing 1",
        f"{RANK_SLUG}: 1 reported row from wada-coling2022.json, replacing 1"]
    generative, ranking = _rows(session, GEN_SLUG), _rows(session, RANK_SLUG)
    assert len(generative) == 14 and len(ranking) == 8
    assert _rows(session, DEV_SLUG) == {}
    assert generative[WADA].metrics == {"lenient_a_f@10": 33.61, "lenient_c_f@10": 65.84,
                                        "strict_a_f@10": 24.52, "strict_c_f@10": 39.9}
    assert ranking[WADA].metrics == {"gap_rat": 62.9}
    assert ranking["Humans"].metrics == {"gap": 66.2}


@ALL_DATABASES
def test_pages_api_and_exports_show_reported_rows_unranked(runner, client, boards):
    assert runner.invoke(args=["reported", "add-shipped"]).exit_code == 0

    html = client.get(f"/?leaderboard={RANK_SLUG}").get_data(as_text=True)
    rows = _reported_trs(html)
    assert len(rows) == 8
    wada = next(r for r in rows if WADA in r)
    # The ranking setting's 62.9 is a GAP ratio (--metrics gap_rat): it sits in that column,
    # the GAP column stays blank, and no other number is shown.
    assert _cells(wada) == {"gap_rat": "62.9"}
    assert '<td class="col-rank sticky">–</td>' in wada
    assert "reported, not re-scored" in wada and "swords v1.1 test" in wada
    assert ('<a href="https://github.com/twadada/lexsub_decontextualised" rel="nofollow noopener">'
            '<span title="Takashi Wada') in wada
    glove = next(r for r in rows if ">GloVe<" in r)
    assert _cells(glove) == {"gap": "49.7"} and "swords v1.0 test" in glove
    systems = html.split('<tbody id="systems">')[1]
    assert WADA not in systems and "GloVe" not in systems

    html = client.get("/").get_data(as_text=True)
    bert_k = next(r for r in _reported_trs(html) if ">BERT-K<" in r)
    # The default view (strict, acceptable) shows F, P, R, P@1 and GAP; the paper printed no
    # P@1 or GAP for BERT-K in Table 4 (P^1 comes from Table 8, the same 48.3).
    assert _cells(bert_k) == {"strict_a_f@10": "15.7", "strict_a_p@10": "10.4",
                              "strict_a_r@10": "31.8", "strict_c_p@1": "48.3"}
    assert ('<a href="https://arxiv.org/abs/2106.04102" rel="nofollow noopener"><span title="'
            'Mina Lee, Chris Donahue') in bert_k and ">Lee et al. 2021</span></a>" in bert_k
    assert "reported, not re-scored" in bert_k and "swords v1.0 test" in bert_k
    assert "Reported in publications" in html

    body = client.get(f"/api/v1/leaderboards/{RANK_SLUG}/ranking").get_json()
    by_name = {r["name"]: r for r in body["reported"]}
    assert len(by_name) == 8 and body["rows"] == []
    row = by_name[WADA]
    assert row["row_type"] == "reported" and row["status"] == "reported, not re-scored"
    assert row["url"] == "https://github.com/twadada/lexsub_decontextualised"
    assert row["citation"].startswith("Takashi Wada, Timothy Baldwin")
    assert row["benchmark"] == {"name": "swords", "version": "1.1", "split": "test"}
    assert row["metrics"]["gap_rat"] == {"value": 62.9, "interval": None, "tie_p": None,
                                         "tied": False}
    assert row["metrics"]["gap"]["value"] is None
    assert "rank" not in row
    default = client.get("/api/v1/leaderboard").get_json()
    bert_k = next(r for r in default["reported"] if r["name"] == "BERT-K")
    assert bert_k["metrics"]["strict_a_f@10"]["value"] == 15.7
    assert bert_k["benchmark"] == {"name": "swords", "version": "1.0", "split": "test"}

    text = client.get("/leaderboard.csv").get_data(as_text=True)
    bert = next(r for r in csv.DictReader(io.StringIO(text)) if r["system"] == "BERT-K")
    assert (bert["row_type"], bert["rank"], bert["strict_a_f@10"], bert["strict_a_f@10 lo"],
            bert["gap"]) == ("reported", "", "15.70", "", "")
    exported = client.get(f"/leaderboard.json?leaderboard={RANK_SLUG}").get_json()
    wada_row = next(r for r in exported if r["system"] == WADA)
    assert wada_row["row_type"] == "reported" and wada_row["rank"] is None
    assert wada_row["note"].startswith("reported, not re-scored; computed on swords v1.1 test;")
    # A board with no public system yet: its significance page is empty, not an error.
    page = client.get(f"/significance?leaderboard={RANK_SLUG}")
    assert page.status_code == 200
    assert f'id="board-shown" data-slug="{RANK_SLUG}"' in page.get_data(as_text=True)
    # An unknown leaderboard is a plain 404 page (its bar cannot name a board).
    missing = client.get("/?leaderboard=nope")
    assert missing.status_code == 404 and "board-bar" not in missing.get_data(as_text=True)
    # A part-of-speech view has no reported numbers to show.
    assert _reported_trs(client.get("/?pos=NOUN").get_data(as_text=True)) == []


def _reported_trs(html: str) -> list[str]:
    return re.findall(r'<tr class="ref ref-reported">.*?</tr>', html, flags=re.S)


def _cells(tr: str) -> dict[str, str]:
    """The non-blank metric cells of a reported row, by metric key."""
    return {k: v for k, v in re.findall(
        r'<td class="num" data-key="([^"]+)">(?:<span class="v"[^>]*>([^<]*)</span>)?</td>', tr)
        if v}


@ALL_DATABASES
def test_home_page_lists_every_board_and_follows_a_new_one(runner, client, boards):
    first = client.get("/")
    slugs = re.findall(r'<li><a href="[^"]*" data-slug="([^"]+)"', first.get_data(as_text=True))
    assert slugs == [GEN_SLUG, RANK_SLUG, DEV_SLUG]
    html = first.get_data(as_text=True)
    assert f'<li><a href="/" data-slug="{GEN_SLUG}" aria-current="true">' in html
    assert f'<li><a href="/?leaderboard={RANK_SLUG}" data-slug="{RANK_SLUG}">' in html
    assert "labels hidden · 0 submissions · default" in html
    assert "labels public · 0 submissions" in html
    # One benchmark: the bar names it once, the chips give split and track.
    assert '<span class="chip-title">dev · generative</span>' in html
    assert '<strong class="board-name">swords v1.1 test</strong>' in html
    # A new board makes no snapshot of the default one: the cached home page must still
    # list it (its key holds every board and their latest snapshots).
    result = runner.invoke(args=["board", "create", "--benchmark", "swords", "--version", "1.1",
                                 "--split", "dev", "--track", "ranking"])
    assert result.exit_code == 0, result.output
    second = client.get("/", headers={"If-None-Match": first.headers["ETag"]})
    assert second.status_code == 200
    slugs = re.findall(r'<li><a href="[^"]*" data-slug="([^"]+)"', second.get_data(as_text=True))
    assert slugs == [GEN_SLUG, RANK_SLUG, DEV_SLUG, "swords-v1.1-dev-ranking"]
    # The bar on a dev board says its labels are public.
    dev = client.get(f"/matrix?leaderboard={DEV_SLUG}").get_data(as_text=True)
    assert f'id="board-shown" data-slug="{DEV_SLUG}"' in dev
    assert '<span class="board-tag">dev phase</span>' in dev and "labels public" in dev
