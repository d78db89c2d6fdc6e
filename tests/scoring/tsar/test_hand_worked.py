"""A 3-instance file worked out by hand (tests/scoring/tsar/files.py: GOLD and SYSTEM).

1. sat: gold {rested 2, perched 1, stayed 1} (the annotation 'sat' dropped), top {rested};
   system sat, perched, perched, moved, rested -> perched, moved, rested: hits T F T.
   ACC@1 1; ACC@1/2/3@Top1 0, 0, 1; MAP@3 (1/1 + 2/3)/3 = 5/9, MAP@5 (5/3)/5 = 1/3,
   MAP@10 (5/3)/10 = 1/6; Potential@3/5/10 1.
2. elated: gold {happy 2, glad 2, joyful 1}, top {happy, glad} (a tie); system joyful, glad:
   hits T T. ACC@1 1; Top1 0, 1, 1; MAP@3 (1 + 2/2)/3 = 2/3, MAP@5 2/5, MAP@10 1/5; 1, 1, 1.
3. crowded (café: UTF-8): gold {full 2, packed 1, busy 1}, top {full}; system noisy,
   'busy ' (stripped): hits F T. ACC@1 0; Top1 0, 0, 0; MAP@3 (1/2)/3 = 1/6, MAP@5 1/10,
   MAP@10 1/20; 1, 1, 1.

Means over 3: ACC@1 2/3; Top1 0, 1/3, 2/3; MAP@3 25/54, MAP@5 25/90, MAP@10 25/180;
Potential 1, 1, 1.
"""

from __future__ import annotations

import pytest

from leaderboard.scoring.families import FAMILIES
from leaderboard.scoring.tsar.score import official_floors
from tests.scoring.tsar.files import GOLD, SYSTEM, run_script, write_tsar

EXPECTED = {"acc@1": 200 / 3, "acc@1@top1": 0.0, "acc@2@top1": 100 / 3, "acc@3@top1": 200 / 3,
            "map@3": 2500 / 54, "map@5": 2500 / 90, "map@10": 2500 / 180,
            "potential@3": 100.0, "potential@5": 100.0, "potential@10": 100.0}
#: The point values shown: tsar_eval.py's floors of EXPECTED (a file with every instance)
FLOORS = {"acc@1": 66.66, "acc@1@top1": 0.0, "acc@2@top1": 33.33, "acc@3@top1": 66.66,
          "map@3": 46.29, "map@5": 27.77, "map@10": 13.88,
          "potential@3": 100.0, "potential@5": 100.0, "potential@10": 100.0}
FAMILY = FAMILIES["tsar2022"]


@pytest.fixture
def split(tmp_path):
    return FAMILY.prepare_files("en-test", write_tsar(tmp_path), name="hand", bootstrap=200)


def _score(split, raw: bytes):
    report = FAMILY.validate(raw, split, track="generative")
    assert report.ok, report.errors
    return report, FAMILY.score(split, report, track="generative")


def test_hand_worked_values(split):
    report, result = _score(split, SYSTEM.encode("utf-8"))
    assert result.target_stats.metrics(keys=tuple(EXPECTED)) == pytest.approx(EXPECTED,
                                                                               abs=1e-9)
    assert {k: result.metrics[k] for k in FLOORS} == FLOORS
    assert result.counts["targets_answered"] == 3 and result.by_pos == {}
    assert official_floors(split, report)["map@3"] == 0.4629
    low, high = result.intervals["acc@1"]
    assert 0 <= low <= 200 / 3 <= high <= 100


def test_the_same_from_gzip_and_from_the_sites_json(split):
    _, plain = _score(split, SYSTEM.encode("utf-8"))
    import gzip
    import json

    _, zipped = _score(split, gzip.compress(SYSTEM.encode("utf-8")))
    doc = {"substitutes": {}}
    for line in SYSTEM.splitlines():
        sentence, word, *subs = line.split("\t")
        doc["substitutes"][f"{sentence}__{word}"] = [[s, 10 - i] for i, s in enumerate(subs)]
    _, from_json = _score(split, json.dumps(doc, ensure_ascii=False).encode("utf-8"))
    assert zipped.metrics == plain.metrics
    assert {k: from_json.metrics[k] for k in FLOORS} == FLOORS


def test_a_missing_instance_scores_zero_here_and_is_dropped_by_the_script(split, tmp_path):
    two = "".join(SYSTEM.splitlines(keepends=True)[:2]).encode("utf-8")
    report, result = _score(split, two)
    # instances 1 and 2 are right at ACC@1: 2 of the split's 3 here, 2 of 2 for the script
    assert result.metrics["acc@1"] == pytest.approx(200 / 3)
    assert result.metrics["acc@2@top1"] == pytest.approx(100 / 3)
    assert report.counts["missing"] == 1 and result.counts["targets_missing"] == 1
    warning = next(w for w in report.warnings if w.code == "missing_targets")
    assert warning.message.startswith("1 of 3 instances have no line")
    predictions = tmp_path / "two.tsv"
    predictions.write_bytes(two)
    official = run_script(tmp_path / "datasets" / "test" / "tsar2022_en_test_gold.tsv",
                          predictions, tmp_path)
    assert official["acc@1"] == 1.0 and official["acc@2@top1"] == 0.5


def test_the_gold_file_round_trips_its_accents(split):
    assert [t.line() for t in split.targets] == GOLD
    assert split.targets[2].sentence == "The café was crowded."
