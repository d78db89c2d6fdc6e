"""leaderboard benchmark import/list/export-inputs/load-demo, and the public inputs download."""

from __future__ import annotations

import gzip
import json

import pytest
from sqlmodel import select

from leaderboard.models import Split, Submission, SubmissionStatus, Team
from tests.ops.splits import TEST_SPLIT, mini_split, to_bytes

LABEL_WORDS = ("TRUE", "FALSE", "UNSURE", "TRUE_IMPLICIT", "FALSE_IMPLICIT")


@pytest.fixture
def split_file(tmp_path):
    path = tmp_path / "mini.json"
    path.write_bytes(to_bytes(mini_split()))
    return path


def _import(runner, path, *extra):
    return runner.invoke(args=["benchmark", "import", str(path), "--name", "mini",
                               "--version", "1", "--split", "test", *extra])


def test_import_and_list(runner, split_file, session):
    result = _import(runner, split_file, "--public", "--default")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("#1 mini 1 test: 2 targets (public, default)  checksum ")
    again = _import(runner, split_file)
    assert again.exit_code == 0 and again.output == result.output
    listed = runner.invoke(args=["benchmark", "list"])
    assert listed.output.startswith("#1 mini 1 test: 2 targets (public, default)")
    assert "scorer 1." in listed.output
    assert len(session.exec(select(Split)).all()) == 1


def test_import_refuses_bad_file_and_conflict(runner, tmp_path, split_file):
    bad = tmp_path / "bad.json"
    broken = mini_split()
    next(iter(broken["targets"].values()))["pos"] = "X"
    bad.write_bytes(to_bytes(broken))
    result = _import(runner, bad)
    assert result.exit_code == 1
    assert f"Error: {bad} is not a valid SWORDS split: target t:" in result.output
    assert "has POS 'X' (expected one of ADJ, ADV, NOUN, VERB)" in result.output
    assert _import(runner, split_file).exit_code == 0
    changed = mini_split()
    first_sid = next(iter(changed["substitute_labels"]))
    changed["substitute_labels"][first_sid] = ["FALSE"]
    bad.write_bytes(to_bytes(changed))
    conflict = _import(runner, bad)
    assert conflict.exit_code == 1
    assert "Error: mini 1 test already exists with different content" in conflict.output


def test_list_when_empty(runner):
    result = runner.invoke(args=["benchmark", "list"])
    assert result.output == "No benchmark imported yet (see `leaderboard benchmark import`).\n"


def _assert_no_labels(doc: dict, text: str) -> None:
    assert "substitute_labels" not in doc
    assert "substitute_labels" not in text
    for word in LABEL_WORDS:
        assert f'"{word}"' not in text
    for sub in doc["substitutes"].values():
        assert set(sub) == {"target_id", "substitute"}


def test_export_inputs_has_no_labels(runner, split_file, tmp_path):
    _import(runner, split_file)
    out = tmp_path / "inputs.json.gz"
    result = runner.invoke(args=["benchmark", "export-inputs", "mini", "--output", str(out)])
    assert result.exit_code == 0, result.output
    text = gzip.decompress(out.read_bytes()).decode()
    doc = json.loads(text)
    _assert_no_labels(doc, text)
    assert len(doc["targets"]) == 2 and len(doc["substitutes"]) == 6 and len(doc["contexts"]) == 2
    assert {t["pos"] for t in doc["targets"].values()} == {"ADV", "NOUN"}
    stdout = runner.invoke(args=["benchmark", "export-inputs", "mini", "--version", "1"])
    assert json.loads(stdout.output) == doc
    missing = runner.invoke(args=["benchmark", "export-inputs", "nope"])
    assert missing.exit_code == 1 and "Error: no benchmark nope" in missing.output


def test_public_download_of_inputs(runner, client, split_file):
    _import(runner, split_file)  # hidden: its inputs are still public
    response = client.get("/benchmarks/mini/1/test/inputs.json.gz")
    assert response.status_code == 200
    assert response.mimetype == "application/gzip"
    assert response.headers["Content-Disposition"] == (
        'attachment; filename="mini-1_test-inputs.json.gz"')
    text = gzip.decompress(response.data).decode()
    _assert_no_labels(json.loads(text), text)
    assert client.get("/benchmarks/mini/2/test/inputs.json.gz").status_code == 404


def test_load_demo_is_idempotent(runner, session):
    first = runner.invoke(args=["benchmark", "load-demo", "--no-enqueue"])
    assert first.exit_code == 0, first.output
    assert first.output.startswith("Demo loaded: #1 swords-demo 1 test:")
    assert runner.invoke(args=["benchmark", "load-demo", "--no-enqueue"]).exit_code == 0
    submissions = session.exec(select(Submission)).all()
    assert len(submissions) == 3
    assert all(s.is_public and s.status == SubmissionStatus.QUEUED for s in submissions)
    assert {t.name for t in session.exec(select(Team)).all()} == {
        "Demo Lab North", "Demo Lab South", "Demo Lab East"}


@pytest.mark.slow
@pytest.mark.skipif(not TEST_SPLIT.exists(), reason=f"{TEST_SPLIT} is absent")
def test_real_split_inputs_carry_no_labels(runner, client):
    result = runner.invoke(args=["benchmark", "import", str(TEST_SPLIT), "--name", "swords",
                                 "--version", "1.1", "--split", "test"])
    assert result.exit_code == 0, result.output
    response = client.get("/benchmarks/swords/1.1/test/inputs.json.gz")
    text = gzip.decompress(response.data).decode()
    doc = json.loads(text)
    _assert_no_labels(doc, text)
    assert len(doc["targets"]) == 762 and len(doc["substitutes"]) == 45705
