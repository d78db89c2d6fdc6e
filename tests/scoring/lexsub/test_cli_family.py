"""``leaderboard score --split semeval07:trial`` on a hand-made LS07 folder: lines matched
by the id, the instances with no candidates, and the command's
process-wide settings (resample cache, collector) put back when it ends; several files in
one process, and a reader that stops reading."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from leaderboard.commands.score import score_command
from leaderboard.scoring import bootstrap
from leaderboard.scoring.families import FAMILIES
from tests.lexsub_files import write_semeval07

ROOT = Path(__file__).resolve().parents[3]
LEADERBOARD = str(Path(sys.executable).with_name("leaderboard"))

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


def _run(args: list[str], folder) -> subprocess.CompletedProcess:
    env = {**os.environ, "LEADERBOARD_LEXSUB_DIR": str(folder),
           "LEADERBOARD_CACHE_DIR": str(folder / "cache")}
    return subprocess.run([LEADERBOARD, *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120)


def _ranked_files(folder) -> list[str]:
    files = []
    for i, text in enumerate(["RANKED\tbright.a 1\tclever 0.9\tsmart 0.1\n",
                              "RANKED\tbright.a 1\tsmart 2\tclever 1\r\n",
                              "RANKED\tbright.a 1\tsmart 1_0\tclever 2\t\r\n"
                              "RANKED\tnot.a 9\tx 1\n"]):
        path = folder / f"run{i}.ranked"
        path.write_bytes(text.encode("latin-1"))
        files.append(str(path))
    return files


def test_repeated_submission_scores_every_file_in_order(folder) -> None:
    """``--submission a --submission b c``: every file, the --submission ones first."""
    files = _ranked_files(folder)
    done = _run(["score", "--split", "semeval07:trial", "--bootstrap", "0", "--json",
                 "--submission", files[0], "--submission", files[2], files[1]], folder)
    assert done.returncode == 0, done.stderr
    docs = [json.loads(line) for line in done.stdout.splitlines()]
    assert [d["submission"] for d in docs] == [files[0], files[2], files[1]]


def test_a_batch_prints_what_single_runs_print(folder) -> None:
    """Several files in one process (float64 resamples kept, intervals of the printed metrics
    only, no POS block resampled) print what one process per file prints, and what the
    family's own scoring gives for the metrics and intervals printed."""
    pair = folder / "run.pair"
    pair.write_bytes(b"bright.a 1 :: smart\nbar.n.v 48 :: block;prevent\n"
                     b"bright.a 1 ::: smart;clever\nbar.n.v 48 ::: prevent;block;stop\n")
    for batch in (_ranked_files(folder), [str(pair), str(pair)]):
        args = ["score", "--split", "semeval07:trial", "--bootstrap", "40", "--json"]
        together = _run([*args, *batch], folder).stdout.splitlines()
        alone = [_run([*args, f], folder).stdout.strip() for f in batch]
        assert together == alone and len(together) == len(batch)
    family = FAMILIES["semeval07"]
    split = family.prepare_files("trial", folder, name="x", bootstrap=40)
    full = family.score(split, family.validate(pair.read_bytes(), split, track="generative"),
                        track="generative")
    doc = json.loads(together[0])
    assert doc["intervals"] == {k: full.intervals[k] for k in doc["intervals"]}
    assert doc["metrics"] == {k: full.metrics[k] for k in doc["metrics"]}


def test_a_reader_that_stops_reading_ends_the_command_without_a_traceback(folder) -> None:
    """``leaderboard score ... | head``: 300 files print more than a pipe holds, so the
    command writes after the reader has gone."""
    files = _ranked_files(folder)
    env = {**os.environ, "LEADERBOARD_LEXSUB_DIR": str(folder),
           "LEADERBOARD_CACHE_DIR": str(folder / "cache")}
    proc = subprocess.Popen([LEADERBOARD, "score", "--split", "semeval07:trial",
                             "--bootstrap", "0", *[files[0]] * 300], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=ROOT)
    assert proc.stdout.readline().startswith(b"== ")
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr
