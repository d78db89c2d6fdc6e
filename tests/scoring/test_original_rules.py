"""Hand-worked cases where NLTK 3.5's lemmatizer or the original's rules decide the numbers."""

from __future__ import annotations

import pytest

from leaderboard.scoring import prepare_split, score_submission
from leaderboard.scoring.swords.engine import normalise_list

from .conftest import TINY, labels, make_split

#: "businessess" is in the real v1.1 test gold (target "companies"); NLTK 3.5 lemmatizes it
#: to "business" and merges its labels into business's, newer NLTK keeps it apart.
COMPANIES = [("Two companies merged.", "companies", "NOUN", [
    ("business", labels(3, 2)), ("firm", labels(5, 0)), ("corporation", labels(4, 1)),
    ("businessess", labels(1, 4)), ("companies", labels(5, 0)),
])]


@pytest.fixture(scope="module")
def companies(wordnet):
    prepared = prepare_split(make_split(COMPANIES), name="companies", bootstrap=0)
    return prepared, prepared.targets[0]


def test_businessess_merges_into_business(companies):
    _, target = companies
    # companies -> company is the target's own lemma and is dropped;
    # business 3/5 + businessess 1/5 = 4/10: conceivable, no longer acceptable
    assert target.lemma == "company"
    assert target.candidates == ["business", "firm", "corporation"]
    assert target.positives == [4, 5, 4] and target.n_labels == [10, 5, 5]
    assert target.acceptable == {"firm", "corporation"}
    assert target.conceivable == {"firm", "corporation", "business"}


def test_a_tiny_submission_on_the_businessess_split(companies):
    prepared, target = companies
    sub = {"substitutes": {target.target_id: ["businesses", "firms", "enterprise"]}}
    m = score_submission(prepared, sub, bootstrap=0).metrics
    # ranked lemmas: business (conceivable), firm (acceptable), enterprise (not a candidate)
    assert m["strict_a_p@10"] == pytest.approx(100 / 3)
    assert m["strict_a_r@10"] == pytest.approx(50.0)      # firm of {firm, corporation}
    assert m["strict_c_p@10"] == pytest.approx(200 / 3)
    assert m["strict_c_r@10"] == pytest.approx(200 / 3)
    assert m["strict_c_p@1"] == pytest.approx(100.0)      # business is conceivable
    assert m["lenient_a_p@10"] == pytest.approx(50.0)     # [business, firm]
    assert m["lenient_c_p@10"] == pytest.approx(100.0)
    # GAP, votes: ideal 5, 4, 4 -> 5/1 + 9/2 + 13/3; system business (4), firm (5) -> 4/1 + 9/2
    assert m["gap"] == pytest.approx(100 * (4 + 9 / 2) / (5 + 9 / 2 + 13 / 3))
    # score.pl: votes firm 5, corporation 4, business 4 (13); mode firm
    assert m["best_p"] == pytest.approx(100 * (4 / 13 + 5 / 13) / 3)
    assert m["oot_p"] == pytest.approx(100 * 9 / 13)
    assert m["best_mode_p"] == 0.0 and m["oot_mode_p"] == 100.0


@pytest.fixture(scope="module")
def tiny_split_prepared(wordnet):
    prepared = prepare_split(make_split(TINY), name="tiny", bootstrap=0)
    prepared.ids = {t.lemma: t.target_id for t in prepared.targets}
    return prepared


def test_a_doubly_inflected_submission(tiny_split_prepared):
    tiny = tiny_split_prepared
    car, run = (tiny.target_index[tiny.ids[k]] for k in ("car", "run"))
    # NLTK 3.5 keeps stripping: automobileses -> automobiles -> automobile, and so on
    assert normalise_list([("automobileses", 2), ("trucks", 1)], car) == ["automobile", "truck"]
    doubled = [("sprinteded", 3), ("walkeded", 2), ("hurrieses", 1)]
    assert normalise_list(doubled, run) == ["sprint", "walk", "hurry"]
    sub = {"substitutes": {car.target_id: [["automobileses", 2], ["trucks", 1]],
                           run.target_id: [["sprinteded", 3], ["walkeded", 2],
                                           ["hurrieses", 1]]}}
    m = score_submission(tiny, sub, bootstrap=0).metrics
    # 5 proposals; acceptable hits automobile, sprint (gold 1 + 2 + 0 + 1 = 4);
    # conceivable hits automobile, truck, sprint, hurry (gold 3 + 3 + 0 + 2 = 8)
    assert m["strict_a_p@10"] == pytest.approx(40.0)
    assert m["strict_a_r@10"] == pytest.approx(50.0)
    assert m["strict_c_p@10"] == pytest.approx(80.0)
    assert m["strict_c_r@10"] == pytest.approx(50.0)
    assert m["strict_c_p@1"] == pytest.approx(100.0)


def test_no_gold_item_with_a_mode_is_0_with_a_warning(wordnet):
    tied = [("A big house.", "big", "ADJ", [("large", labels(2, 1)), ("huge", labels(2, 1))])]
    prepared = prepare_split(make_split(tied), name="tied", bootstrap=0)
    tid = prepared.targets[0].target_id
    result = score_submission(prepared, {"substitutes": {tid: ["large"]}}, bootstrap=0)
    assert result.metrics["best_mode_p"] == 0.0 and result.metrics["oot_mode_r"] == 0.0
    assert result.metrics["best_p"] == pytest.approx(50.0)  # large: 2 of 4 votes, 1 guess
    assert any(w.startswith("No gold item has a mode") for w in result.warnings)


def test_no_hit_at_all_is_0_with_a_warning(tiny_split_prepared):
    tiny = tiny_split_prepared
    car = tiny.target_index[tiny.ids["car"]]
    run = tiny.target_index[tiny.ids["run"]]
    sub = {"substitutes": {car.target_id: ["boat"], run.target_id: ["walk", "jog"]}}
    result = score_submission(tiny, sub, bootstrap=0)
    # jog is acceptable and conceivable, but only second: at k=1 nothing hits
    assert result.metrics["strict_c_p@1"] == 0.0
    assert result.metrics["strict_a_p@10"] == pytest.approx(100 / 3)
    [notice] = [w for w in result.warnings if w.startswith("No hit at all")]
    assert "for strict_c@1:" in notice and "divides by zero" in notice
