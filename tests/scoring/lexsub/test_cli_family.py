"""``leaderboard score --split semeval07:trial`` on a hand-made LS07 folder (issue 32 items 7,
4 and 10): lines matched by the id, the instances with no candidates, and the command's
process-wide settings (resample cache, collector) put back when it ends."""

from __future__ import annotations

import gc
import json

import pytest
from click.testing import CliRunner

from leaderboard.commands.score import score_command
from leaderboard.scoring import bootstrap
from tests.lexsub_files import write_semeval07

GOLD = ["bright.a 1 :: smart 3;clever 2;", "bar.n.v 48 :: prevent 3;block 1;"]
POOLS = {"bright.a": ["smart", "clever"]}


@pytest.fixture
def folder(tmp_path, monkeypatch):
    write_semeval07(tmp_path, GOLD, POOLS)
    monkeypatch.setenv("LEADERBOARD_LEXSUB_DIR", str(tmp_path))
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def _json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.output.strip().splitlines()[-1])


def test_xml_spelling_scores_by_id_through_the_cli(folder) -> None:
    answers = folder / "run.best"
    answers.write_bytes(b"bar.n 48 :: prevent\nbright.a 1 :: clever\n")
    threshold = gc.get_threshold()
    doc = _json(CliRunner().invoke(score_command, [
        "--split", "semeval07:trial", "--bootstrap", "0", "--json", str(answers)]))
    # best1: bar 3/3, bright 2/3 (no .oot lines: coverage reads the .best ones)
    assert doc["metrics"]["best1"] == pytest.approx(100 * (1 + 2 / 3) / 2)
    assert doc["metrics"]["coverage_r"] == pytest.approx(100 * (3 / 4 + 2 / 5) / 2)
    assert doc["counts"]["targets_answered"] == 2
    assert not any("have no answer" in w for w in doc["warnings"])
    assert gc.get_threshold() == threshold and gc.get_freeze_count() == 0


def test_ranking_file_counts_no_candidates_and_caches_resamples(folder) -> None:
    ranked = folder / "run.ranked"
    ranked.write_bytes(b"RANKED\tbright.a 1\tclever 0.9\tsmart 0.1\nRANKED\tbar.n.v 48\n")
    bootstrap.resample_counts.cache_clear()  # drawn in this process before: draw it here
    doc = _json(CliRunner().invoke(score_command, [
        "--split", "semeval07:trial", "--bootstrap", "20", "--json", str(ranked)]))
    # GAP bright.a 1: clever (2) first: (2/1 + 5/2) / (3/1 + 5/2) = 4.5 / 5.5; bar.n.v 48: 0
    assert doc["metrics"]["gap"] == pytest.approx(100 * (4.5 / 5.5) / 2)
    assert doc["counts"]["targets_no_candidates"] == 1
    assert doc["counts"]["targets_answered"] == 1
    assert list((folder / "cache").glob("resamples-2-20-0-0-numpy*.npy"))
    assert bootstrap.DISK_CACHE is None
