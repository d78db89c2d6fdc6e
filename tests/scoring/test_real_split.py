"""On the real SWORDS test split (skipped when ../shared is absent)."""

from __future__ import annotations

import pytest

from leaderboard.scoring import (
    load_split,
    prepare_split,
    score_submission,
    validate_submission,
)

from .conftest import shared_file

pytestmark = pytest.mark.slow


def test_split_size(real_test):
    assert len(real_test.targets) == 762
    assert len(real_test.scored_targets) == 762


def test_oracle_scores_100_on_recall_and_gap_rat(real_test):
    oracle = {"substitutes": {t.target_id: t.ranked_candidates()
                              for t in real_test.scored_targets}}
    m = score_submission(real_test, oracle, bootstrap=0).metrics
    for key in ("strict_a_r@10", "strict_c_r@10", "lenient_a_r@10", "lenient_c_r@10",
                "gap_rat"):
        assert m[key] == pytest.approx(100.0, abs=0.1), key


def test_empty_submission_scores_zero(real_test):
    result = score_submission(real_test, {"substitutes": {}}, bootstrap=100)
    assert all(v == 0.0 for v in result.metrics.values())
    assert all(iv == [0.0, 0.0] for iv in result.intervals.values())


def test_same_seed_same_results(real_test):
    raw = shared_file("data", "reference-systems", "coinco_test.result.json.gz").read_bytes()
    report = validate_submission(raw, real_test)
    a = score_submission(real_test, report).to_dict()
    b = score_submission(real_test, report).to_dict()
    assert a == b
    assert a["intervals"] != score_submission(real_test, report, seed=1).to_dict()["intervals"]


# Our values (v1.1 data, scorer 1.1 with NLTK 3.5's lemmatizer); the paper's Table 4
# (v1.0 data) is within about 0.5 of each.
REFERENCE = [
    ("swords-v1.1_test.json.gz", "coinco_test", {
        "lenient_a_f@10": 33.91, "lenient_c_f@10": 63.57, "gap": 27.89}),
    ("swords-v1.1_test.json.gz", "thesaurus_test", {
        "lenient_a_f@10": 12.00, "lenient_c_f@10": 44.93}),
    ("swords-v1.1_test-subset.json.gz", "humans_acceptable_test-subset", {
        "lenient_a_f@10": 49.08}),
    ("swords-v1.1_test-subset.json.gz", "humans_conceivable_test-subset", {
        "lenient_c_f@10": 77.99}),
    ("swords-v1.1_test-subset.json.gz", "humans_all_test-subset", {"gap": 66.61}),
]
PAPER = {"coinco_test": {"lenient_a_f@10": 34.1, "lenient_c_f@10": 63.6},
         "thesaurus_test": {"lenient_a_f@10": 12.0, "lenient_c_f@10": 44.9},
         "humans_acceptable_test-subset": {"lenient_a_f@10": 48.8},
         "humans_conceivable_test-subset": {"lenient_c_f@10": 77.9},
         "humans_all_test-subset": {"gap": 66.2}}


@pytest.fixture(scope="module")
def subset(wordnet):
    path = shared_file("data", "swords", "swords-v1.1_test-subset.json.gz")
    return prepare_split(load_split(path), name="test-subset")


@pytest.mark.parametrize("split_name, system, expected", REFERENCE,
                         ids=[r[1] for r in REFERENCE])
def test_reference_systems_score_near_the_paper(real_test, subset, split_name, system,
                                                expected):
    prepared = real_test if split_name == "swords-v1.1_test.json.gz" else subset
    raw = shared_file("data", "reference-systems", f"{system}.result.json.gz").read_bytes()
    report = validate_submission(raw, prepared)  # thesaurus has 5 blanks: warnings, kept
    assert report.ok, report.errors[:3]
    m = score_submission(prepared, report, bootstrap=0).metrics
    print(system, {k: round(m[k], 2) for k in sorted(m)})
    for key, value in expected.items():
        assert m[key] == pytest.approx(value, abs=0.01), key
        if key in PAPER[system]:
            assert m[key] == pytest.approx(PAPER[system][key], abs=0.5), key
