"""Reference rows belong to the split they were scored on: a dev board
shows no Humans or oracle row scored on test, and says which it leaves out."""

from __future__ import annotations

import json
import re

import pytest
from sqlmodel import select

from leaderboard.models import Split, Team
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.factories import make_team
from tests.ops.splits import REFERENCE_DIR, SHARED, TEST_SPLIT, hid, mini_split, to_bytes
from tests.site.seed import _store

DEV_SLUG, TEST_SLUG = "swords-v1.1-dev-generative", "swords-v1.1-test-generative"
DEV_SPLIT = SHARED / "swords" / "swords-v1.1_dev.json.gz"


@pytest.fixture
def dev_and_test(runner, session, tmp_path) -> None:
    """The mini split imported as swords 1.1 test (default) and dev, an oracle reference row
    on test only, and one public system on the dev board."""
    path = tmp_path / "mini.json"
    path.write_bytes(to_bytes(mini_split()))
    oracle = tmp_path / "oracle.json"
    oracle.write_text(json.dumps({"substitutes_lemmatized": True, "substitutes": {
        hid("t", "tgt1"): [["rapidly", 2.0], ["fast", 1.0]],
        hid("t", "tgt2"): [["peak", 2.0], ["top", 1.0]]}}))
    for args in (["benchmark", "import", str(path), "--name", "swords", "--version", "1.1",
                  "--split", "test", "--hidden", "--default"],
                 ["benchmark", "import", str(path), "--name", "swords", "--version", "1.1",
                  "--split", "dev", "--public"],
                 ["reference", "add", "--name", "Humans", "--kind", "human", "--file",
                  str(oracle), "--benchmark", "swords", "--version", "1.1", "--split", "test"]):
        result = runner.invoke(args=args)
        assert result.exit_code == 0, result.output
    dev = session.exec(select(Split).where(Split.split == "dev")).one()
    team, _ = make_team(session, "Dev Lab")
    row = _store(session, dev, session.get(Team, team.id), "Dev system", {
        "substitutes_lemmatized": True,
        "substitutes": {hid("t", "tgt1"): [["rapidly", 1.0]], hid("t", "tgt2"): [["top", 1.0]]}})
    session.commit()
    refresh_snapshot(session=session, board_id=row.board_id)
    session.commit()


def test_dev_board_shows_no_reference_row_scored_on_test(client, dev_and_test):
    body = client.get(f"/api/v1/leaderboards/{DEV_SLUG}/ranking").get_json()
    assert body["references"] == []
    assert body["references_elsewhere"] == [
        {"name": "Humans", "kind": "human", "split": "test", "n_targets": 2}]
    assert body["rows"][0]["system"] == "Dev system"
    assert body["rows"][0]["pct_humans"] is None  # not a percentage of test Humans

    html = client.get(f"/?leaderboard={DEV_SLUG}").get_data(as_text=True)
    assert "<tr class=\"ref ref-human\">" not in html and "% Humans</abbr>" not in html
    note = re.search(r'<p class="footnote" id="references-elsewhere">(.*?)</p>', html, re.S)
    assert note is not None
    assert note.group(1) == ("Reference rows are shown only on the split they were scored on. "
                             "Not shown on this dev board: Humans (scored on test, 2 targets).")
    exported = client.get(f"/leaderboard.json?leaderboard={DEV_SLUG}").get_json()
    assert [r["row_type"] for r in exported] == ["system"]

    # The test board keeps its row and names nothing elsewhere.
    body = client.get(f"/api/v1/leaderboards/{TEST_SLUG}/ranking").get_json()
    assert [(r["name"], r["split"]) for r in body["references"]] == [("Humans", "test")]
    assert body["references_elsewhere"] == []
    assert 'id="references-elsewhere"' not in client.get("/").get_data(as_text=True)


@pytest.mark.slow
@pytest.mark.skipif(not (TEST_SPLIT.exists() and DEV_SPLIT.exists() and REFERENCE_DIR.is_dir()),
                    reason="../shared/data/swords or reference-systems is absent")
def test_real_dev_board_lists_no_test_reference_rows(runner, client):
    result = runner.invoke(args=["reference", "import-shared", str(SHARED)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(args=["benchmark", "import", str(DEV_SPLIT), "--name", "swords",
                                 "--version", "1.1", "--split", "dev", "--public"])
    assert result.exit_code == 0, result.output
    body = client.get(f"/api/v1/leaderboards/{DEV_SLUG}/ranking").get_json()
    assert body["benchmark"]["n_targets"] == 370
    assert body["references"] == []
    assert [(r["name"], r["split"], r["n_targets"]) for r in body["references_elsewhere"]] == [
        ("Humans", "test-subset", 89), ("CoInCo", "test", 762), ("Thesaurus", "test", 762)]
    html = client.get(f"/?leaderboard={DEV_SLUG}").get_data(as_text=True)
    assert "Not shown on this dev board: Humans (scored on test-subset, 89 targets), CoInCo " \
           "(scored on test, 762 targets), Thesaurus (scored on test, 762 targets)." in html
    test = client.get(f"/api/v1/leaderboards/{TEST_SLUG}/ranking").get_json()
    assert [(r["name"], r["split"]) for r in test["references"]] == [
        ("Humans", "test-subset"), ("CoInCo", "test"), ("Thesaurus", "test")]
