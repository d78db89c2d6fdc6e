"""``leaderboard score --split tsar2022:en-test FILE`` through click's CliRunner, on a tiny
folder named by $LEADERBOARD_TSAR_DIR: our values and the script's floors for the file."""

from __future__ import annotations

import json

from click.testing import CliRunner

from leaderboard.commands.score import score_command
from tests.scoring.tsar.files import SYSTEM, write_tsar


def test_score_prints_our_values_and_the_scripts_floors(tmp_path, monkeypatch):
    monkeypatch.setenv("LEADERBOARD_TSAR_DIR", str(write_tsar(tmp_path / "data")))
    run = tmp_path / "run.tsv"
    run.write_bytes("".join(SYSTEM.splitlines(keepends=True)[:2]).encode("utf-8"))
    result = CliRunner().invoke(score_command, ["--split", "tsar2022:en-test", str(run),
                                                "--bootstrap", "50", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output.splitlines()[-1])
    assert doc["benchmark"] == "tsar2022" and doc["track"] == "generative"
    assert round(doc["metrics"]["acc@1"], 2) == 66.67      # 2 of the split's 3
    assert doc["official"]["acc@1"] == 1.0                 # 2 of the file's 2, as the script
    assert doc["official"]["map@3"] == 0.6111              # (5/9 + 2/3) / 2
    assert doc["counts"]["targets_missing"] == 1 and doc["by_pos"] == {}
    table = CliRunner().invoke(score_command, ["--split", "tsar2022:en-test", "--submission",
                                               str(run), "--bootstrap", "0"])
    assert table.exit_code == 0, table.output
    # printed as every surface prints it: the fraction floored, as tsar_eval.py does
    assert "acc@1" in table.output and " 66.66 " in table.output
    assert "tsar_eval.py would print" in table.output and "acc@1 1.0000" in table.output


def test_a_wrong_split_name_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("LEADERBOARD_TSAR_DIR", str(write_tsar(tmp_path / "data")))
    run = tmp_path / "run.tsv"
    run.write_bytes(SYSTEM.encode("utf-8"))
    result = CliRunner().invoke(score_command, ["--split", "tsar2022:fr-test", str(run)])
    assert result.exit_code == 2 and "en-trial" in result.output
