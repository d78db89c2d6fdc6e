"""Reference rows of a ranking board on the real v1.1 test split: Humans and Random."""

from __future__ import annotations

import re

import pytest

from tests.ops.splits import REFERENCE_DIR, SHARED, TEST_SPLIT


@pytest.mark.slow
@pytest.mark.skipif(not (TEST_SPLIT.exists() and REFERENCE_DIR.is_dir()),
                    reason="../shared/data/swords or reference-systems is absent")
def test_ranking_board_shows_humans_gap_on_the_subset_and_random_at_32_5(runner, client):
    result = runner.invoke(args=["reference", "import-shared", str(SHARED)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(args=["board", "create", "--benchmark", "swords", "--version", "1.1",
                                 "--split", "test", "--track", "ranking"])
    assert result.exit_code == 0, result.output
    # Random on v1.1 test (the SWORDS card's reference rows); the paper's on v1.0: 32.7.
    assert result.output.splitlines()[-1] == "  reference Random: GAP 32.51, GAP ratio 32.60"

    body = client.get("/api/v1/leaderboards/swords-v1.1-test-ranking/ranking").get_json()
    refs = {r["name"]: r for r in body["references"]}
    assert sorted(refs) == ["Humans", "Random"]  # the oracles' GAP is a generative one
    humans, random_row = refs["Humans"], refs["Random"]
    # The 'all' file on the 89-target subset: 66.61 (the paper's Humans* on v1.0: 66.2).
    assert humans["metrics"]["gap"]["value"] == 66.61
    assert humans["metrics"]["gap_rat"]["value"] == 66.61
    assert (humans["subset"], humans["split"], humans["n_targets"]) == (True, "test-subset", 89)
    assert (random_row["subset"], random_row["n_targets"]) == (False, 762)
    assert random_row["metrics"]["gap"]["value"] == 32.51
    assert random_row["metrics"]["gap"]["interval"] == [31.47, 33.62]

    page = client.get("/?leaderboard=swords-v1.1-test-ranking").get_data(as_text=True)
    assert 'aria-label="footnote: subset">*</a>' in page  # the Humans row's subset mark
    assert "89-target subset" in page
    assert '<span class="badge badge-random">baseline</span>' in page
    assert 'title="95% interval 31.47 to 33.62">32.5</span>' in page  # Random's GAP
    assert ">66.6</span>" in page  # Humans' GAP
    # The matrix of a ranking board: its footnote says what applies there
    # and links only pages that answer.
    matrix = client.get("/matrix?leaderboard=swords-v1.1-test-ranking")
    assert matrix.status_code == 200
    note = matrix.get_data(as_text=True).split('id="fn-subset"')[1].split("</p>")[0]
    assert "lenient" not in note and "not directly comparable" in note
    for href in re.findall(r'href="([^"]+)"', note):
        assert client.get(href.replace("&amp;", "&")).status_code == 200, href
