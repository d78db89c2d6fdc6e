"""score_submission on the hand-made split of conftest.TINY, every number worked by hand.

Gold after preparation (positive labels / labels without UNSURE):
  car:   automobile 8/10 (acceptable), vehicle 5/10 (conceivable only: 0.5 is not > 0.5),
         truck 1/9 (conceivable), train 0/10 (candidate only)
  run:   sprint 7/10, jog 6/10 (acceptable), hurry 2/10 (conceivable), walk 0/10
  apple: pear 0/10 (no positive weight: GAP -1, not a SemEval item)
  big:   large 9/10 (acceptable), huge 4/10 (conceivable); the submission abstains here
  house: "houses" is the target's lemma and "home" has only UNSURE: left out of everything
Submission (after lemmatizing, dropping the target lemma and deduplicating):
  car:   automobile, boat, truck          run: dash, jog, walk, sprint       apple: pear, plum
"""

from __future__ import annotations

import pytest

from leaderboard.scoring import TargetStats, score_submission, validate_submission
from leaderboard.scoring.swords.engine import normalise_list

SUBMISSION = {
    "car": [["automobile", 0.9], ["boat", 0.5], ["trucks", 0.5], ["automobiles", 0.1]],
    "run": ["dash", "jogged", "running", "walk", "sprint"],
    "apple": [["pear", 2], ["plum", 1]],
}


def _submit(tiny, entries: dict) -> dict:
    return {"substitutes_lemmatized": False,
            "substitutes": {tiny.ids[k]: v for k, v in entries.items()}}


@pytest.fixture(scope="module")
def result(tiny):
    return score_submission(tiny, _submit(tiny, SUBMISSION), bootstrap=200, seed=0)


def test_normalisation_lemmatizes_dedupes_and_drops_the_target(tiny):
    run = tiny.target_index[tiny.ids["run"]]
    car = tiny.target_index[tiny.ids["car"]]
    assert normalise_list([(s, -i) for i, s in enumerate(SUBMISSION["run"])], run) == [
        "dash", "jog", "walk", "sprint"]
    entries = [(s, float(x)) for s, x in SUBMISSION["car"]]
    assert normalise_list(entries, car) == ["automobile", "boat", "truck"]


def test_ties_keep_submission_order(tiny):
    car = tiny.target_index[tiny.ids["car"]]
    assert normalise_list([("truck", 0.5), ("boat", 0.5)], car) == ["truck", "boat"]
    assert normalise_list([("boat", 0.5), ("truck", 0.5)], car) == ["boat", "truck"]


def test_duplicates_keep_the_maximum_score(tiny):
    car = tiny.target_index[tiny.ids["car"]]
    # "trucks" (0.1) and "truck" (0.95) are one lemma: it ranks with 0.95, above boat
    assert normalise_list([("boat", 0.5), ("trucks", 0.1), ("truck", 0.95)], car) == [
        "truck", "boat"]


def test_the_scored_and_unscored_targets(tiny, result):
    assert [t.lemma for t in tiny.scored_targets] == ["car", "run", "apple", "big"]
    assert result.counts["targets_scored"] == 4
    assert result.counts["targets_answered"] == 3
    assert result.counts["mean_list_length"] == pytest.approx((3 + 4 + 2) / 3)


def test_pooled_generative_metrics(result):
    m = result.metrics
    # strict: 9 proposals in the top 10s, 3 acceptable hits, 4 conceivable hits;
    # gold sizes: acceptable 1+2+0+1 = 4, conceivable 3+3+0+2 = 8 (the abstention counts)
    assert m["strict_a_p@10"] == pytest.approx(100 * 3 / 9)
    assert m["strict_a_r@10"] == pytest.approx(100 * 3 / 4)
    assert m["strict_a_rs@10"] == pytest.approx(100 * 3 / 4)
    assert m["strict_a_f@10"] == pytest.approx(100 * 2 * (1 / 3) * (3 / 4) / (1 / 3 + 3 / 4))
    assert m["strict_c_p@10"] == pytest.approx(100 * 4 / 9)
    assert m["strict_c_r@10"] == pytest.approx(50.0)
    assert m["strict_c_f@10"] == pytest.approx(100 * 8 / 17)
    # not the per-target average of precisions (1/3 + 2/4 + 0) / 3 = 27.8
    assert m["strict_a_p@10"] != pytest.approx(100 * (1 / 3 + 2 / 4 + 0) / 3)


def test_lenient_keeps_only_candidates(result):
    m = result.metrics
    # lenient lists: car [automobile, truck], run [jog, walk, sprint], apple [pear]: 6 items
    assert m["lenient_a_p@10"] == pytest.approx(50.0)
    assert m["lenient_a_f@10"] == pytest.approx(60.0)
    assert m["lenient_c_p@10"] == pytest.approx(100 * 4 / 6)
    assert m["lenient_c_f@10"] == pytest.approx(100 * 4 / 7)


def test_precision_at_1(result):
    # top items: automobile (conceivable), dash (not a candidate), pear (0 votes)
    assert result.metrics["strict_c_p@1"] == pytest.approx(100 / 3)


def test_gap_counts_minus_one_for_no_positive_weight_and_reports_a_negative_mean_as_0(result):
    car = (8 / 1 + 9 / 3) / (8 + 13 / 2 + 14 / 3)  # boat (not a candidate) still takes rank 2
    run = (6 / 2 + 13 / 4) / (7 + 13 / 2 + 15 / 3)
    big = 0.0  # abstained, but it has positive weights: it counts as 0
    apple = -1.0  # no positive gold weight: the original GAP script's -1, in the mean
    assert car + run + big + apple < 0  # the original stops on its assertion
    assert result.metrics["gap"] == 0.0 and result.metrics["gap_rat"] == 0.0
    assert result.intervals["gap"] == [0.0, 0.0] or result.intervals["gap"][0] == 0.0
    assert result.by_pos["VERB"]["metrics"]["gap"] == pytest.approx(100 * run)
    assert result.by_pos["NOUN"]["metrics"]["gap"] == 0.0  # (car - 1) / 2 < 0
    [notice] = [w for w in result.warnings if w.startswith("GAP:")]
    assert "1 of 4 targets have no positive gold weight" in notice
    assert f"mean ({100 * (car + run + big + apple) / 4:.2f}) is negative" in notice


def test_gap_with_a_minus_one_target_and_a_positive_mean(tiny):
    # the oracle lists: car, run and big score 1, apple -1: (1 + 1 + 1 - 1) / 4
    oracle = {k: tiny.target_index[tiny.ids[k]].ranked_candidates()
              for k in ("car", "run", "big", "apple")}
    result = score_submission(tiny, _submit(tiny, oracle), bootstrap=0)
    assert result.metrics["gap"] == pytest.approx(50.0)
    assert result.metrics["gap_rat"] == pytest.approx(50.0)
    assert result.by_pos["NOUN"]["metrics"]["gap"] == 0.0  # (1 - 1) / 2
    assert result.by_pos["ADJ"]["metrics"]["gap"] == pytest.approx(100.0)
    [notice] = [w for w in result.warnings if w.startswith("GAP:")]
    assert notice.endswith("count in the mean.")


def test_best_and_oot(result):
    m = result.metrics
    car_best, run_best = (8 / 14 + 1 / 14) / 3, (6 / 15 + 7 / 15) / 4
    car_oot, run_oot = 9 / 14, 13 / 15
    # items: car, run, big (apple has no positive vote); attempted: car, run
    assert m["best_p"] == pytest.approx(100 * (car_best + run_best) / 2)
    assert m["best_r"] == pytest.approx(100 * (car_best + run_best) / 3)
    assert m["oot_p"] == pytest.approx(100 * (car_oot + run_oot) / 2)
    assert m["oot_r"] == pytest.approx(100 * (car_oot + run_oot) / 3)
    # modes: automobile, sprint, large; first guesses automobile (hit) and dash (miss)
    assert m["best_mode_p"] == pytest.approx(50.0)
    assert m["best_mode_r"] == pytest.approx(100 / 3)
    assert m["oot_mode_p"] == pytest.approx(100.0)
    assert m["oot_mode_r"] == pytest.approx(200 / 3)


def test_result_shape_and_intervals(result):
    d = result.to_dict()
    assert set(d) == {"metrics", "intervals", "by_pos", "warnings", "counts", "signature"}
    assert set(d["metrics"]) == set(d["intervals"])
    assert list(d["by_pos"]) == ["NOUN", "VERB", "ADJ"]
    for key, (lo, hi) in d["intervals"].items():
        assert lo <= hi, key
    assert d["signature"]["bootstrap"] == 200
    assert d["signature"]["split_checksum"] == result.target_stats.split_checksum
    assert any("abstention" in w for w in d["warnings"])


def test_per_pos_metrics_use_only_that_pos(result):
    verb = result.by_pos["VERB"]["metrics"]
    assert verb["strict_a_p@10"] == pytest.approx(50.0)  # jog, sprint out of 4
    assert verb["best_mode_p"] == 0.0
    adj = result.by_pos["ADJ"]["metrics"]
    assert adj["strict_a_r@10"] == 0.0 and adj["strict_a_p@10"] == 0.0


def test_target_stats_round_trip(result):
    stats = TargetStats.from_bytes(result.target_stats.to_bytes())
    assert stats.metrics() == pytest.approx(result.metrics)
    assert stats.metrics("VERB") == pytest.approx(result.by_pos["VERB"]["metrics"])


def test_score_accepts_a_validation_report(tiny):
    import json

    report = validate_submission(json.dumps(_submit(tiny, SUBMISSION)).encode(), tiny)
    assert report.ok
    assert score_submission(tiny, report, bootstrap=0).intervals == {}


def test_invalid_submission_is_refused(tiny):
    with pytest.raises(ValueError, match="invalid submission"):
        score_submission(tiny, {"substitutes": {"t:nope": ["x"]}})


def test_empty_submission_scores_zero_with_a_warning(tiny):
    result = score_submission(tiny, {"substitutes": {}}, bootstrap=50)
    assert all(v == 0.0 for v in result.metrics.values())
    assert all(iv == [0.0, 0.0] for iv in result.intervals.values())
    [notice] = [w for w in result.warnings if w.startswith("No substitute to score")]
    assert "every metric is reported as 0" in notice
