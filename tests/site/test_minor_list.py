"""Small fixes for LS07/CoInCo boards, over real requests: exports of reference rows,
plain-text refusals of an export, the LS07/CoInCo pages' own wording, the compare page's
board and the CLI's headline on LS07 boards.

The split is tests/lexsub_files.GOLD (4 instances), imported as the field's files are."""

from __future__ import annotations

import csv
import io

import pytest
from click.testing import CliRunner

from leaderboard.models import Split
from leaderboard.services.catalog.lexsub import lexsub_board
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.backends import ALL_DATABASES
from tests.lexsub_files import write_semeval07
from tests.ops.splits import REFERENCE_DIR, SHARED, TEST_SPLIT


@pytest.fixture
def boards(session, tmp_path):
    """{track: board} of a tiny LS07-format trial split, with their reference rows shown."""
    folder = write_semeval07(tmp_path)
    made = {track: lexsub_board(session, "semeval07", "trial", track, data_dir=folder)
            for track in ("ranking", "generative")}
    session.commit()
    for board in made.values():
        refresh_snapshot(session=session, board_id=board.id)
    session.commit()
    return made


@ALL_DATABASES
def test_reference_rows_carry_their_signature_and_split_size_in_the_exports(client, session,
                                                                           boards):
    bench = session.get(Split, boards["ranking"].split_id)
    for board, name in ((boards["ranking"], "Random"), (boards["generative"],
                                                        "Gold upper bound")):
        text = client.get(f"/leaderboard.csv?leaderboard={board.slug}").get_data(as_text=True)
        row = next(r for r in csv.DictReader(io.StringIO(text)) if r["system"] == name)
        # Scored by the site on the board's own split, with its seed 0 and B = 1000.
        assert (row["split_checksum"], row["bootstrap_seed"], row["bootstrap_samples"],
                row["targets_in_split"]) == (bench.checksum, "0", "1000", "4"), row
        assert row["scorer_version"]
        rows = client.get(f"/leaderboard.json?leaderboard={board.slug}").get_json()
        row = next(r for r in rows if r["system"] == name)
        assert (row["split_checksum"], row["bootstrap_seed"], row["bootstrap_samples"],
                row["targets_in_split"]) == (bench.checksum, 0, 1000, 4), row


def test_an_export_of_a_view_the_board_lacks_is_a_plain_text_400(client, boards):
    slug = boards["ranking"].slug
    for kind in ("csv", "json"):
        response = client.get(f"/leaderboard.{kind}?leaderboard={slug}&view=all")
        assert response.status_code == 400
        assert response.mimetype == "text/plain"
        # LS07's generative board has an 'all' view (SWORDS's track names are not LS07's)
        assert response.get_data(as_text=True) == (
            "view 'all' belongs to the generative track; this is a ranking-track "
            "leaderboard: use gap\n")
    # The page itself still answers with its HTML error page.
    page = client.get(f"/?leaderboard={slug}&view=all")
    assert page.status_code == 400 and page.mimetype == "text/html"


def test_leaderboard_score_marks_best_r_the_headline_of_an_ls07_generative_board(tmp_path,
                                                                                 monkeypatch):
    from leaderboard.commands.score import score_command
    from leaderboard.services.ranking.metric_info import default_sort

    monkeypatch.setenv("LEADERBOARD_LEXSUB_DIR", str(write_semeval07(tmp_path)))
    answers = tmp_path / "two.best"
    # Two of the four items: bright.a 1 earns smart's 3/5 of the votes; bright.a 2 vivid's 2/3
    # and shining's 1/3 over its two answers, 0.5.
    answers.write_bytes(b"bright.a 1 :: smart\nbright.a 2 :: vivid;shining\n")
    result = CliRunner().invoke(score_command, ["--split", "semeval07:trial", "--submission",
                                                str(answers), "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line[:1] in ("*", " ")]
    # best R = (0.6 + 0.5) / 4 items, best P = 1.1 / 2 answered; mode R 2 of 4, P 2 of 2.
    assert [line.lstrip("* ").split()[:2] for line in lines[1:5]] == [
        ["best_r", "27.50"], ["best_p", "55.00"], ["best_mode_r", "50.00"],
        ["best_mode_p", "100.00"]]
    marked = [line.split()[1] for line in lines[1:]
              if line.startswith("* ") and "headline" not in line]
    assert marked == ["best_r"] == [default_sort("lexsub-generative")]


@pytest.mark.slow
@pytest.mark.skipif(not (TEST_SPLIT.exists() and REFERENCE_DIR.is_dir()),
                    reason="../shared/data/swords or reference-systems is absent")
def test_the_humans_row_has_best_and_oot_on_the_all_view(runner, client):
    result = runner.invoke(args=["reference", "import-shared", str(SHARED)])
    assert result.exit_code == 0, result.output
    body = client.get("/api/v1/leaderboards/swords-v1.1-test-generative/ranking?view=all")
    humans = next(r for r in body.get_json()["references"] if r["name"] == "Humans")
    got = {k: humans["metrics"][k]["value"] for k in ("best_p", "best_r", "best_mode_p",
                                                       "oot_p", "oot_r", "oot_mode_p")}
    # The conceivable file on the 89-target subset, as `leaderboard score` gives it; the
    # paper's Humans row (v1.0): best 3.4, oot 54.0.
    assert got == {"best_p": 3.36, "best_r": 3.36, "best_mode_p": 31.37, "oot_p": 53.81,
                   "oot_r": 53.81, "oot_mode_p": 90.2}
    page = client.get("/?view=all").get_data(as_text=True)
    row = page.split('<tr class="ref ref-human">')[1].split("</tr>")[0]
    assert 'class="na"' not in row  # no "–" (not provided) left in the row
    assert ">3.4</span>" in row and ">53.8</span>" in row


RANKED = (b"RANKED\tbright.a 1\tclever 0.9\tsmart 0.5\tvivid 0.1\tshining 0.1\n"
          b"RANKED\tbright.a 2\tvivid 1\tshining 0.2\tsmart 0\tclever 0\n")
BEST = b"bright.a 1 :: smart\nbright.a 2 :: vivid;shining\n"


def _scored(app, session, board, team, raw: bytes, name: str) -> int:
    from leaderboard.services.intake.results import score_submission_now
    from leaderboard.services.intake.submissions import create_submission

    settings = app.config["LEADERBOARD"]
    accepted = create_submission(session=session, team=team, board=board, raw=raw,
                                 system_name=name, settings=settings, is_public=True)
    session.commit()
    sid = accepted.submission.id
    assert score_submission_now(engine_or_session=app.extensions["db_engine"],
                                submission_id=sid, settings=settings) == "scored"
    refresh_snapshot(session=session, board_id=board.id)
    session.commit()
    return sid


def _board_shown(html: str) -> str:
    return html.split('id="board-shown" data-slug="')[1].split('"')[0]


def test_ls07_pages_speak_of_their_own_split_and_reference_rows(app, client, session, boards):
    from tests.factories import make_team

    team, _ = make_team(session)
    _scored(app, session, boards["ranking"], team, RANKED, "Ranker")
    ranking = client.get(f"/?leaderboard={boards['ranking'].slug}").get_data(as_text=True)
    assert "trial split (4 instances)" in ranking.split('<p class="lede">')[1].split("</p>")[0]
    legend = ranking.split('id="legend-h"')[1]
    # The coverage mark's example on this 4-instance split: round(0.74 * 4) = 3 of 4.
    assert '<abbr class="coverage">3/4</abbr>' in legend and "564/762" not in legend
    assert "the split's instances" in legend and "resampling instances" in legend
    assert "% Humans" not in legend  # no Humans row on LS07
    for board, refs in ((boards["ranking"], "(Random) as dashed lines"),
                        (boards["generative"], "(Gold upper bound) as dashed lines")):
        charts = client.get(f"/charts?leaderboard={board.slug}").get_data(as_text=True)
        lede = charts.split('<p class="lede">')[1].split("</p>")[0]
        assert refs in lede, lede
        assert "Humans" not in lede and "89-target" not in lede


def test_compare_of_systems_on_two_boards_shows_the_board_of_system_a(app, client, session,
                                                                       boards):
    from tests.factories import make_team

    team, _ = make_team(session)
    a = _scored(app, session, boards["ranking"], team, RANKED, "Ranker")
    b = _scored(app, session, boards["generative"], team, BEST, "Guesser")
    # From A's page ("compare with"), without ?leaderboard=: A's board, not the default one.
    response = client.get(f"/compare?a={a}&b={b}")
    html = response.get_data(as_text=True)
    assert response.status_code == 409 and "on different leaderboards" in html
    assert _board_shown(html) == boards["ranking"].slug
    assert _board_shown(client.get(f"/compare?a={b}&b={a}").get_data(as_text=True)) == \
        boards["generative"].slug
    # An explicit ?leaderboard= wins; an unknown id leaves the default board.
    assert _board_shown(client.get(f"/compare?a={a}&b={b}&leaderboard="
                                   f"{boards['generative'].slug}").get_data(as_text=True)) == \
        boards["generative"].slug
    assert client.get(f"/compare?a=999&b={a}").status_code == 404


def test_submit_form_header_describes_the_chosen_board(client, session, boards):
    from tests.factories import login, make_team

    make_team(session, email="lab@example.org")
    login(client, "lab@example.org")
    slug = boards["ranking"].slug
    html = client.get(f"/account/submit?leaderboard={slug}").get_data(as_text=True)
    sections = {s.split('"')[0]: s.split("</section>")[0]
                for s in html.split('<section class="board-about" data-board="')[1:]}
    assert sorted(sections) == sorted(b.slug for b in boards.values())
    shown = sections[slug]
    assert shown.startswith(f'{slug}">')  # not hidden
    assert "Scored on <strong>SemEval-2007 (LS07) trial</strong>, 4 instances" in shown
    assert "RANKED lines as lst_gap.py reads them" in shown
    assert 'href="/benchmarks/semeval07/1/trial/inputs.json.gz"' in shown
    assert "swords" not in shown.lower() and ".json.gz</code>" not in shown
    other = sections[boards["generative"].slug]
    assert other.split(">")[0].endswith(" hidden")
    assert "score.pl's <code>.best</code> and <code>.oot</code> lines" in other
    assert '<label for="file">Result file</label>' in html
    # and the footer credits the chosen board's data, not SWORDS's
    assert "SemEval-2007 Task 10 data" in html.split('<footer')[1]
