"""GAP of the ranking track, worked out by hand, as lst_gap.py no-mwe defines it."""

from __future__ import annotations

import pytest

from leaderboard.scoring.lexsub.gap import gap_parts, gold_weights

from .conftest import RANKING, run, tiny_split

GOLD = ["bright.a 1 :: smart 3;clever 2;intelligent 1;",
        "bright.a 2 :: vivid 2;shining 1;",
        "side.n 3 :: well-off 2;at hand 1;",                 # nothing left after no-mwe
        "side.n 4 :: part 1;face 1;"]


def test_perfect_order_is_one() -> None:
    num, den = gap_parts(gold_weights(GOLD[0]), [("smart", 3.0), ("clever", 2.0),
                                                 ("intelligent", 1.0)])
    assert num == den == pytest.approx(3 / 1 + 5 / 2 + 6 / 3)


def test_worked_example_with_a_wrong_candidate_first() -> None:
    # ranking: dull(0) clever(2) smart(3) -> cumulative 0, 2, 5
    # numerator = 2/2 + 5/3 ; denominator (3, 2, 1) = 3/1 + 5/2 + 6/3 = 7.5
    num, den = gap_parts(gold_weights(GOLD[0]), [("dull", 0.9), ("clever", 0.8),
                                                 ("smart", 0.1)])
    assert num == pytest.approx(1 + 5 / 3)
    assert num / den == pytest.approx((1 + 5 / 3) / 7.5)  # 0.35555...


def test_ties_keep_file_order() -> None:
    # equal scores: vivid first as written -> 2/1 + 3/2 = 3.5 = denominator -> 1
    num, den = gap_parts(gold_weights(GOLD[1]), [("vivid", 0.5), ("shining", 0.5)])
    assert num / den == 1
    # shining written first: 1/1 + 3/2 = 2.5 -> 2.5 / 3.5
    num, den = gap_parts(gold_weights(GOLD[1]), [("shining", 0.5), ("vivid", 0.5)])
    assert num / den == pytest.approx(2.5 / 3.5)


def test_no_mwe_drops_spaces_and_hyphens_and_skips_an_empty_instance() -> None:
    assert gold_weights(GOLD[2]) == []
    assert gap_parts([], [("rich", 1.0)]) == (0.0, 0.0)


def test_repeated_gold_candidate_last_count_wins_in_the_map() -> None:
    # gold vector keeps both entries (a 1, a 3) sorted (3, 1): den = 3/1 + 4/2 = 5;
    # map a -> 3: ranking [a] gives 3/1 = 3
    weights = gold_weights("x.n 9 :: a 1;a 3;")
    assert weights == [("a", 1), ("a", 3)]
    num, den = gap_parts(weights, [("a", 1.0)])
    assert (num, den) == (3.0, 5.0)


def test_whole_split_mean_skips_instances_and_missing_ones_score_zero(tmp_path) -> None:
    split = tiny_split(tmp_path, GOLD, {"bright.a": ["smart", "clever", "intelligent",
                                                      "vivid", "shining", "dull"],
                                        "side.n": ["part", "face", "well-off", "at hand"]})
    raw = (b"RANKED\tbright.a 1\tdull 0.9\tclever 0.8\tsmart 0.1\n"
           b"RANKED\tbright.a 2\tvivid 0.5\tshining 0.5\n"
           b"RANKED\tside.n 3\twell-off 1\tat hand 0.5\n")   # side.n 4 missing
    report, result = run(split, raw, RANKING)
    codes = {p.code for p in report.warnings}
    assert {"missing_targets", "candidates_left_out"} <= codes
    # instances 1, 2 and 4 enter the mean (3 is skipped): (0.35556 + 1 + 0) / 3
    assert result.counts["targets_scored"] == 3
    assert result.metrics["gap"] == pytest.approx(100 * ((1 + 5 / 3) / 7.5 + 1) / 3)


def test_case_and_hyphen_on_the_ranking_side(tmp_path) -> None:
    split = tiny_split(tmp_path, GOLD[:1], {"bright.a": ["smart", "clever", "intelligent"]})
    # "Smart" is not "smart" (exact strings); "clever-ish" is dropped by no-mwe
    raw = b"RANKED\tbright.a 1\tSmart 3\tclever-ish 2\tclever 1\n"
    _, result = run(split, raw, RANKING)
    # ranking after no-mwe: Smart(0), clever(2) -> 2/2 = 1 ; den 7.5
    assert result.metrics["gap"] == pytest.approx(100 * 1 / 7.5)
