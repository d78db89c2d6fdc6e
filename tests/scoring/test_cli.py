"""``leaderboard score`` and ``leaderboard wordnet`` through click's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from leaderboard.commands.score import score_command
from leaderboard.commands.wordnet import wordnet_group
from leaderboard.scoring import METRIC_KEYS

DEMO = Path(__file__).resolve().parents[2] / "leaderboard" / "demo"


@pytest.fixture
def split_file(tmp_path, tiny_split) -> Path:
    path = tmp_path / "split.json"
    path.write_text(json.dumps(tiny_split))
    return path


def _run(*args: str):
    return CliRunner().invoke(score_command, list(args))


def test_json_output_shape(wordnet):
    res = _run("--split", str(DEMO / "demo_split.json"),
               "--submission", str(DEMO / "submissions" / "demo_weak.json"),
               "--bootstrap", "100", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert set(doc) == {"metrics", "intervals", "by_pos", "warnings"}
    assert list(doc["metrics"]) == list(METRIC_KEYS)
    assert all(len(doc["intervals"][k]) == 2 for k in METRIC_KEYS)
    assert set(doc["by_pos"]) == {"NOUN", "VERB", "ADJ", "ADV"}
    assert set(doc["by_pos"]["ADV"]) == {"metrics", "intervals"}
    assert doc["warnings"] and "4 of 13" in doc["warnings"][0]


def test_table_output(wordnet):
    res = _run("--split", str(DEMO / "demo_split.json"),
               "--submission", str(DEMO / "submissions" / "demo_strong.json"),
               "--bootstrap", "50")
    assert res.exit_code == 0, res.output
    assert "lenient_a_f@10" in res.stdout and "Per part of speech" in res.stdout
    assert "13 of 13 targets answered" in res.stdout


def test_same_seed_same_numbers(wordnet):
    args = ("--split", str(DEMO / "demo_split.json"), "--submission",
            str(DEMO / "submissions" / "demo_baseline.json"), "--json", "--seed", "7")
    assert _run(*args).stdout == _run(*args).stdout


def test_invalid_submission_exits_2_with_errors(wordnet, split_file, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"substitutes": {"t:nope": [["x", NaN]]}}')
    res = _run("--split", str(split_file), "--submission", str(bad), "--json")
    assert res.exit_code == 2
    doc = json.loads(res.stdout)
    assert [e["code"] for e in doc["errors"]] == ["unknown_target"]
    res = _run("--split", str(split_file), "--submission", str(bad))
    assert res.exit_code == 2 and "unknown_target" in res.output


def test_not_json_exits_2(wordnet, split_file, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("hello")
    res = _run("--split", str(split_file), "--submission", str(bad), "--json")
    assert res.exit_code == 2 and json.loads(res.stdout)["errors"][0]["code"] == "not_json"


def test_wordnet_check(wordnet):
    res = CliRunner().invoke(wordnet_group, ["check"])
    assert res.exit_code == 0 and "WordNet 3.0 OK" in res.output


def test_wordnet_install_writes_the_table(wordnet, tmp_path, monkeypatch):
    table = tmp_path / "table.json.gz"
    res = CliRunner().invoke(wordnet_group, ["install", "--table", str(table)])
    assert res.exit_code == 0, res.output
    assert f"written to {table}" in res.output and table.stat().st_size > 100_000
    res = CliRunner().invoke(wordnet_group, ["install", "--source", str(tmp_path),
                                             "--table", str(tmp_path / "other.json.gz")])
    assert res.exit_code == 1 and "lacks index.noun" in res.output
    monkeypatch.setenv("LEADERBOARD_WORDNET_TABLE", str(tmp_path / "other.json.gz"))
    from leaderboard.scoring.lemmatize import reset_wordnet

    reset_wordnet()
    try:
        res = CliRunner().invoke(wordnet_group, ["check"])
        assert res.exit_code == 1 and "leaderboard wordnet install" in res.output
    finally:
        monkeypatch.undo()
        reset_wordnet()
