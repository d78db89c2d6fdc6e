"""leaderboard reference add / import-shared: scored by the engine, stored, shown merged."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from leaderboard.models import LeaderboardSnapshot, ReferenceSystem
from leaderboard.services.catalog.benchmarks import find_benchmark
from leaderboard.services.catalog.boards import default_board
from leaderboard.services.catalog.references import METRIC_GROUPS, resolve_metric_keys
from tests.ops.splits import REFERENCE_DIR, SHARED, TEST_SPLIT, hid, mini_split, to_bytes


@pytest.fixture
def mini_benchmark(runner, tmp_path):
    path = tmp_path / "mini.json"
    path.write_bytes(to_bytes(mini_split()))
    result = runner.invoke(args=["benchmark", "import", str(path), "--name", "mini",
                                 "--version", "1", "--split", "test", "--default"])
    assert result.exit_code == 0, result.output


def _oracle_file(tmp_path):
    path = tmp_path / "oracle.json"
    path.write_text(json.dumps({"substitutes_lemmatized": True, "substitutes": {
        hid("t", "tgt1"): [["rapidly", 2.0], ["fast", 1.0]],
        hid("t", "tgt2"): [["peak", 2.0], ["top", 1.0]]}}))
    return path


def test_resolve_metric_keys():
    assert resolve_metric_keys("all") is None
    assert resolve_metric_keys("gap") == ["gap", "gap_rat"]
    assert "strict_c_p@1" in resolve_metric_keys("c")
    assert resolve_metric_keys("a,gap_rat") == METRIC_GROUPS["a"] + ["gap_rat"]
    with pytest.raises(ValueError, match="unknown metric 'f1'"):
        resolve_metric_keys("f1")


def test_reference_add_scores_and_stores(runner, session, mini_benchmark, tmp_path):
    result = runner.invoke(args=["reference", "add", "--name", "Oracle", "--kind", "oracle",
                                 "--file", str(_oracle_file(tmp_path)),
                                 "--note", "computed on 2 targets"])
    assert result.exit_code == 0, result.output
    # 'quickly': acceptable {rapidly}; 'summit': {peak, top}: every top-10 guess is a
    # candidate, 3 of 4 acceptable; GAP is perfect since the oracle ranks by gold votes.
    assert result.output == (
        "Oracle (oracle) on mini 1 test, all metrics: lenient_a_f@10 85.71, "
        "lenient_c_f@10 100.00, gap 100.00\n")
    row = session.exec(select(ReferenceSystem)).one()
    assert row.kind == "oracle" and row.note == "computed on 2 targets"
    assert row.metric_keys is None and row.scorer_version.startswith("1.")
    assert row.metrics["lenient_a_p@10"] == pytest.approx(75.0)
    assert set(row.by_pos) == {"NOUN", "ADV"}
    snapshot = session.exec(select(LeaderboardSnapshot)).all()[-1]
    assert [r["name"] for r in snapshot.data["references"]] == ["Oracle"]
    # Adding it again replaces the row instead of adding a second one.
    runner.invoke(args=["reference", "add", "--name", "Oracle", "--kind", "oracle",
                        "--file", str(_oracle_file(tmp_path)), "--metrics", "all"])
    assert len(session.exec(select(ReferenceSystem)).all()) == 1


def test_reference_add_refuses_bad_input(runner, mini_benchmark, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"substitutes": {"t:nope": ["x"]}}))
    result = runner.invoke(args=["reference", "add", "--name", "X", "--kind", "oracle",
                                 "--file", str(bad)])
    assert result.exit_code == 1
    assert result.output.startswith("Error: not a valid result file for mini 1 test: [")
    metrics = runner.invoke(args=["reference", "add", "--name", "X", "--kind", "oracle",
                                  "--file", str(_oracle_file(tmp_path)), "--metrics", "f1"])
    assert metrics.exit_code == 1 and "unknown metric 'f1'" in metrics.output
    kind = runner.invoke(args=["reference", "add", "--name", "X", "--kind", "robot",
                               "--file", str(bad)])
    assert kind.exit_code == 2 and "'robot' is not one of 'human', 'oracle'" in kind.output
    nobench = runner.invoke(args=["reference", "add", "--name", "X", "--kind", "oracle",
                                  "--file", str(bad), "--benchmark", "nope"])
    assert nobench.exit_code == 1 and "no such benchmark" in nobench.output


@pytest.mark.slow
@pytest.mark.skipif(not (TEST_SPLIT.exists() and REFERENCE_DIR.is_dir()),
                    reason="../shared/data/swords or reference-systems is absent")
def test_import_shared_reproduces_the_paper_rows(runner, session, app_overrides):
    result = runner.invoke(args=["reference", "import-shared", str(SHARED)])
    assert result.exit_code == 0, result.output
    rows = session.exec(select(ReferenceSystem)).all()
    assert sorted((r.name, r.kind) for r in rows) == [
        ("CoInCo", "oracle"), ("Humans", "human"), ("Humans", "human"), ("Humans", "human"),
        ("Humans", "human"), ("Thesaurus", "oracle")]
    test = find_benchmark(session, "swords", "1.1", "test")
    assert default_board(session).split_id == test.id and test.n_targets == 762
    snapshot = session.exec(select(LeaderboardSnapshot).where(
        LeaderboardSnapshot.split_id == test.id)).all()[-1]
    refs = {r["name"]: r for r in snapshot.data["references"]}
    humans = refs["Humans"]
    assert humans["subset"] is True
    # v1.1 numbers close to the paper's v1.0 ones (48.8 / 77.9 / 66.2; 34.1 / 63.6; 12.0 / 44.9)
    got = {n: [r["metrics"][k] for k in ("lenient_a_f@10", "lenient_c_f@10", "gap")]
           for n, r in refs.items()}
    assert got["Humans"] == pytest.approx([49.08, 77.99, 66.61], abs=0.01)
    assert got["CoInCo"][:2] == pytest.approx([33.91, 63.57], abs=0.01)  # scorer 1.1.0
    assert got["Thesaurus"][:2] == pytest.approx([12.00, 44.93], abs=0.01)
    # best/oot from the conceivable file (the paper's 3.4 / 54.0)
    assert [humans["metrics"][k] for k in ("best_p", "oot_p")] == pytest.approx([3.36, 53.81],
                                                                               abs=0.005)
    assert set(humans["metrics"]) == set(METRIC_GROUPS["a"] + METRIC_GROUPS["c"] + [
        "gap", "gap_rat"] + METRIC_GROUPS["semeval"])
