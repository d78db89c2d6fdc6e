"""Per-target diagnostics on the hand-made split of conftest.TINY, every number by hand.

Gold (see test_engine.py): car: automobile 8/10 (acceptable), vehicle 5/10 and truck 1/9
(conceivable), train 0/10; run: sprint 7/10, jog 6/10 (acceptable), hurry 2/10, walk 0/10;
apple: pear 0/10; big: large 9/10 (acceptable), huge 4/10; house: not scored.
Submission (test_engine.SUBMISSION) after normalisation:
  car: automobile, boat, truck   run: dash, jog, walk, sprint   apple: pear, plum   big: -
"""

from __future__ import annotations

import json

import pytest

from leaderboard.scoring import score_submission, validate_submission
from leaderboard.scoring.swords.diagnostics import (
    ACCEPTABLE,
    CONCEIVABLE,
    NOT_CONCEIVABLE,
    NOT_IN_GOLD,
    MissedSubstitute,
    diagnose,
    target_diagnostics,
    worst_targets,
)

from .test_engine import SUBMISSION, _submit


@pytest.fixture(scope="module")
def submission(tiny):
    report = validate_submission(json.dumps(_submit(tiny, SUBMISSION)), tiny)
    assert report.ok
    return report.submission


@pytest.fixture(scope="module")
def diag(tiny, submission):
    return {d.lemma: d for d in diagnose(tiny, submission.entries)}


def test_only_scored_targets_in_split_order(tiny, submission):
    assert [d.lemma for d in diagnose(tiny, submission.entries)] == [
        "car", "run", "apple", "big"]


def test_car_top_labels_scores_and_submitted_forms(diag):
    car = diag["car"]
    assert [(s.rank, s.substitute, s.submitted, s.label, s.score, s.votes) for s in car.top] == [
        (1, "automobile", "automobile", ACCEPTABLE, 0.8, 8),
        (2, "boat", "boat", NOT_IN_GOLD, None, None),
        (3, "truck", "trucks", CONCEIVABLE, pytest.approx(1 / 9), 1),
    ]
    assert car.missed == []
    assert (car.answered, car.list_length, car.n_acceptable, car.n_conceivable) == (
        True, 3, 1, 3)
    # P = 1/3, R = 1/min(1, 10) = 1, F = 2 (1/3) / (4/3) = 1/2
    assert (car.hits, car.n_top, car.gold_a_k) == (1, 3, 1)
    assert car.precision == pytest.approx(100 / 3)
    assert car.recall == pytest.approx(100.0)
    assert car.f == pytest.approx(50.0)
    # gap: votes 8, -, 1 -> (8/1 + 9/3) / (8/1 + 13/2 + 14/3) = 11 / (115/6) = 66/115
    assert car.gap == pytest.approx(100 * 66 / 115)
    # gap_rat: (4/5 + (41/45)/3) / (4/5 + 13/20 + (127/90)/3) = (149/135) / (1037/540)
    assert car.gap_rat == pytest.approx(100 * 596 / 1037)


def test_run_not_conceivable_and_metrics(diag):
    run = diag["run"]
    assert [(s.substitute, s.submitted, s.label) for s in run.top] == [
        ("dash", "dash", NOT_IN_GOLD), ("jog", "jogged", ACCEPTABLE),
        ("walk", "walk", NOT_CONCEIVABLE), ("sprint", "sprint", ACCEPTABLE)]
    assert run.top[2].score == 0.0 and run.top[2].votes == 0
    # P = 2/4, R = 2/2, F = 2/3; gap: (6/2 + 13/4) / (7 + 13/2 + 15/3) = 6.25/18.5 = 25/74
    assert (run.precision, run.recall) == (50.0, 100.0)
    assert run.f == pytest.approx(200 / 3)
    assert run.gap == pytest.approx(100 * 25 / 74)
    # gap_rat: (0.6/2 + 1.3/4) / (0.7 + 1.3/2 + 1.5/3) = 0.625/1.85 = 25/74 as well
    assert run.gap_rat == pytest.approx(100 * 25 / 74)


def test_no_acceptable_gold_and_no_positive_weight(diag):
    apple = diag["apple"]
    assert [(s.substitute, s.label) for s in apple.top] == [
        ("pear", NOT_CONCEIVABLE), ("plum", NOT_IN_GOLD)]
    assert (apple.precision, apple.recall, apple.f, apple.f_defined) == (0.0, 0.0, 0.0, False)
    assert apple.gap is None and apple.gap_rat is None


def test_abstention_misses_every_acceptable(diag):
    big = diag["big"]
    assert (big.answered, big.list_length, big.top) == (False, 0, [])
    assert big.missed == [MissedSubstitute("large", 0.9, 9, None)]
    assert (big.precision, big.recall, big.f, big.f_defined) == (0.0, 0.0, 0.0, True)
    assert (big.gap, big.gap_rat) == (0.0, 0.0)


def test_missed_beyond_the_top_10_gives_its_rank(tiny):
    run = tiny.target_index[tiny.ids["run"]]
    filler = ["apple", "bean", "corn", "date", "egg", "fig", "grape", "ham", "ice", "jam"]
    entries = [(w, -i) for i, w in enumerate(filler + ["sprint"])]
    d = target_diagnostics(run, [(w, float(x)) for w, x in entries])
    assert d.list_length == 11 and len(d.top) == 10
    assert all(s.label == NOT_IN_GOLD for s in d.top)
    # sprint (0.7) first, then jog (0.6); sprint sits at rank 11, jog was never proposed
    assert d.missed == [MissedSubstitute("sprint", 0.7, 7, 11),
                        MissedSubstitute("jog", 0.6, 6, None)]
    assert (d.hits, d.f) == (0, 0.0)


def test_pooling_the_counts_gives_the_engine_metrics(tiny, submission, diag):
    m = score_submission(tiny, submission, bootstrap=0).metrics
    rows = list(diag.values())
    hits, n_top, gold = (sum(getattr(d, k) for d in rows) for k in ("hits", "n_top", "gold_a_k"))
    assert (hits, n_top, gold) == (3, 9, 4)
    assert m["strict_a_p@10"] == pytest.approx(100 * hits / n_top)
    assert m["strict_a_r@10"] == pytest.approx(100 * hits / gold)
    # The mean counts a target with no positive weight (GAP undefined here) as -1 (spec
    # section 4); this tiny split's mean is then negative, which the engine reports as 0.
    gaps = [-100.0 if d.gap is None else d.gap for d in rows]
    assert sum(gaps) / len(gaps) == pytest.approx(100 * (66 / 115 + 25 / 74 + 0 - 1) / 4)
    assert sum(gaps) < 0 and m["gap"] == 0.0


def test_worst_targets_by_f_and_gap(diag):
    rows = list(diag.values())
    assert [d.lemma for d in worst_targets(rows)] == ["big", "car", "run", "apple"]
    assert [d.lemma for d in worst_targets(rows, "f", best_first=True)] == [
        "run", "car", "big", "apple"]
    assert [d.lemma for d in worst_targets(rows, "gap")] == ["big", "run", "car", "apple"]
    assert [d.lemma for d in worst_targets(rows, "gap", limit=2)] == ["big", "run"]


def test_worst_targets_filtered_by_pos(diag):
    rows = list(diag.values())
    assert [d.lemma for d in worst_targets(rows, "f", pos="NOUN")] == ["car", "apple"]
    assert [d.lemma for d in worst_targets(rows, "gap", pos="VERB")] == ["run"]
    assert worst_targets(rows, pos="ADV") == []


def test_ties_keep_split_order(tiny):
    run = tiny.target_index[tiny.ids["run"]]
    big = tiny.target_index[tiny.ids["big"]]
    rows = [target_diagnostics(run, []), target_diagnostics(big, [])]
    assert [d.lemma for d in worst_targets(rows)] == ["run", "big"]
    assert [d.lemma for d in worst_targets(rows, best_first=True)] == ["run", "big"]


def test_unknown_sort_key_is_refused(diag):
    with pytest.raises(ValueError, match="cannot sort by 'p'"):
        worst_targets(list(diag.values()), "p")


def test_to_dict_is_json_ready(diag):
    d = diag["car"].to_dict()
    assert d["top"][1] == {"rank": 2, "substitute": "boat", "submitted": "boat",
                           "label": "not_in_gold", "score": None, "votes": None}
    assert d["gap"] == pytest.approx(100 * 66 / 115)
    json.dumps(d)


@pytest.mark.slow
def test_on_the_real_dev_split_the_counts_pool_to_the_engine(wordnet):
    from leaderboard.scoring import load_split, prepare_split
    from leaderboard.scoring.swords.ranking_track import random_ranking_submission

    from .conftest import shared_file

    split = load_split(shared_file("data", "swords", "swords-v1.1_dev.json.gz"))
    prepared = prepare_split(split, name="dev", bootstrap=0)
    report = validate_submission(json.dumps(random_ranking_submission(split, seed=3)), prepared)
    rows = diagnose(prepared, report.submission.entries)
    assert len(rows) == len(prepared.scored_targets) == 370
    m = score_submission(prepared, report, bootstrap=0).metrics
    hits, n_top, gold = (sum(getattr(d, k) for d in rows) for k in ("hits", "n_top", "gold_a_k"))
    assert m["strict_a_p@10"] == pytest.approx(100 * hits / n_top)
    assert m["strict_a_r@10"] == pytest.approx(100 * hits / gold)
    gaps = [d.gap for d in rows if d.gap is not None]
    assert m["gap"] == pytest.approx(sum(gaps) / len(gaps))
    worst = worst_targets(rows, "gap", pos="VERB")
    assert {d.pos for d in worst} == {"VERB"}
    assert [d.gap for d in worst] == sorted(d.gap for d in worst)
