"""Gold preparation (spec section 2) and the prepared split's serialisation."""

from __future__ import annotations

import gzip
import json

import pytest

from leaderboard.scoring import PreparedSplit, load_split, prepare_split
from leaderboard.scoring.swords.gold import split_checksum

from .conftest import labels, make_split


def test_load_split_plain_gzipped_and_bytes(tmp_path, tiny_split):
    text = json.dumps(tiny_split).encode()
    (tmp_path / "s.json").write_bytes(text)
    (tmp_path / "s.json.gz").write_bytes(gzip.compress(text))
    assert load_split(tmp_path / "s.json") == tiny_split
    assert load_split(str(tmp_path / "s.json.gz")) == tiny_split
    assert load_split(gzip.compress(text)) == tiny_split


def test_checksum_ignores_formatting():
    a = {"b": 1, "a": [1, 2]}
    assert split_checksum(a) == split_checksum(json.loads(json.dumps(a, indent=3)))
    assert split_checksum(a) != split_checksum({"b": 2, "a": [1, 2]})


def test_merge_unsure_and_target_lemma(tiny):
    car = tiny.target_index[tiny.ids["car"]]
    assert car.candidates == ["automobile", "vehicle", "truck", "train"]
    assert car.positives == [8, 5, 1, 0] and car.n_labels == [10, 10, 9, 10]
    house = tiny.target_index[tiny.ids["house"]]
    assert house.candidates == [] and not house.scored


def test_merged_labels_are_concatenated(wordnet):
    split = make_split([("The dogs bark.", "dogs", "NOUN", [
        ("hounds", labels(3, 7)), ("hound", labels(10, 0)), ("Canines", labels(1, 9, 2)),
    ])])
    target = prepare_split(split).targets[0]
    assert target.lemma == "dog"
    # "Canines" is not lowercased before lemmatizing, so it stays "canines"
    assert target.candidates == ["hound", "canines"]
    assert target.positives == [13, 1] and target.n_labels == [20, 10]
    assert target.scores == [0.65, 0.1]
    assert target.acceptable == {"hound"} and target.conceivable == {"hound", "canines"}


@pytest.mark.parametrize("n_true, n_false, n_unsure, acceptable, conceivable", [
    (5, 5, 0, False, True),    # 0.5 is not > 0.5
    (6, 4, 0, True, True),
    (5, 4, 1, True, True),     # 5/9 once UNSURE is dropped
    (1, 9, 0, False, True),    # 0.1: conceivable
    (1, 10, 0, False, False),  # 1/11 < 0.1
    (0, 10, 0, False, False),
])
def test_thresholds(wordnet, n_true, n_false, n_unsure, acceptable, conceivable):
    split = make_split([("A cat sat.", "cat", "NOUN",
                         [("feline", labels(n_true, n_false, n_unsure))])])
    target = prepare_split(split).targets[0]
    assert ("feline" in target.acceptable) is acceptable
    assert ("feline" in target.conceivable) is conceivable
    assert target.candidates == ["feline"]


def test_round_trip(tiny):
    data = tiny.to_bytes()
    back = PreparedSplit.from_bytes(data)
    assert back.checksum == tiny.checksum and back.bootstrap == 200
    assert [(t.target_id, t.candidates, t.positives, t.n_labels) for t in back.targets] == [
        (t.target_id, t.candidates, t.positives, t.n_labels) for t in tiny.targets]
    assert back.scored_targets[0].semeval == tiny.scored_targets[0].semeval
    assert data[:2] == b"\x1f\x8b" and b"pickle" not in data


def test_unknown_label_is_refused(wordnet):
    split = make_split([("A cat sat.", "cat", "NOUN", [("feline", ["MAYBE"])])])
    with pytest.raises(ValueError, match="unknown label"):
        prepare_split(split)


def test_oracle_ranking(tiny):
    car = tiny.target_index[tiny.ids["car"]]
    assert car.ranked_candidates() == ["automobile", "vehicle", "truck", "train"]
