"""Jabbari, Hepple & Guthrie (2010): best1 and coverage P/R/F, worked examples."""

from __future__ import annotations

import pytest

from leaderboard.scoring.swords.jabbari import COLUMNS, jabbari_row

from .conftest import GENERATIVE, run, tiny_split

#: The paper's kind of example: five annotators' answers with their counts.
H = {"G": 3.0, "M": 3.0, "S": 2.0, "J": 1.0, "Ch": 1.0}


def row(answers):
    return dict(zip(COLUMNS, jabbari_row(H, answers), strict=True))


def test_ten_answers_holding_every_gold_one() -> None:
    # all 10 of H found (R = 1); 10 answers, 5 of them wrong: P = 10 / (10 + 5)
    r = row(["G", "M", "S", "J", "Ch", "a", "b", "c", "d", "e"])
    assert r["jb_cov_r"] == 1.0
    assert r["jb_cov_p"] == pytest.approx(10 / 15)
    assert r["jb_cov_f"] == pytest.approx(2 * (10 / 15) / (10 / 15 + 1))
    assert r["jb_cov_f@1"] == pytest.approx(2 * 1 * 0.3 / 1.3)   # G alone: P 1, R 3/10


def test_three_right_two_wrong() -> None:
    # G, S, J = 6 of 10 (R = 0.6); P = 6 / (6 + 2) = 0.75
    r = row(["G", "S", "J", "X", "Y"])
    assert (r["jb_cov_r"], r["jb_cov_p"]) == (pytest.approx(0.6), pytest.approx(0.75))


def test_best1_is_the_first_answers_share_of_the_top_count() -> None:
    assert row(["M", "x"])["jb_best1"] == 1.0
    assert row(["S"])["jb_best1"] == pytest.approx(2 / 3)
    assert row(["nothing"])["jb_best1"] == 0.0


def test_repeats_and_spaces_count_once() -> None:
    assert row([" G ", "G", "S"]) == row(["G", "S"])


def test_an_empty_answer_counts_as_zero_but_counts() -> None:
    r = row([])
    assert r["jb_item"] == 1.0 and r["jb_cov_r"] == r["jb_best1"] == 0.0


def test_on_a_split_best_line_gives_best1_and_oot_line_gives_coverage(tmp_path) -> None:
    split = tiny_split(tmp_path, ["x.n 1 :: G 3;M 3;S 2;J 1;Ch 1;",
                                  "x.n 2 :: a 2;b 1;"])
    raw = (b"x.n 1 :: S\nx.n 2 :: b\n"
           b"x.n 1 ::: G;S;J;X;Y\nx.n 2 ::: a;b\n")
    _, result = run(split, raw, GENERATIVE)
    m = result.metrics
    assert m["best1"] == pytest.approx(100 * (2 / 3 + 1 / 2) / 2)
    assert m["coverage_r"] == pytest.approx(100 * (0.6 + 1) / 2)
    assert m["coverage_p"] == pytest.approx(100 * (0.75 + 1) / 2)


def _definition(counts: dict, answers: list[str]) -> tuple[float, ...]:
    """The module docstring's definition, one cut at a time (no shared running sums)."""
    blanks = " \t\n\r\x0b\x0c"
    total = sum(v for v in counts.values() if v > 0)
    if total <= 0:
        return (0.0,) * len(COLUMNS)
    distinct = list(dict.fromkeys(a.strip(blanks) for a in answers))
    if not distinct:
        return (1.0,) + (0.0,) * (len(COLUMNS) - 1)

    def coverage(cut: list[str]) -> tuple[float, float, float]:
        found, wrong = 0.0, 0.0
        for a in cut:
            found += counts.get(a, 0.0)
            wrong += counts.get(a, 0.0) <= 0
        p = found / (found + wrong) if found + wrong else 0.0
        r = found / total
        return p, r, 2 * p * r / (p + r) if p + r else 0.0

    best1 = max(counts.get(distinct[0], 0.0), 0.0) / max(counts.values())
    return (1.0, best1, *coverage(distinct), *(coverage(distinct[:k])[2] for k in range(1, 11)))


def test_rows_are_the_definition_bit_for_bit_on_random_items() -> None:
    """The one-pass row (a shared running sum, the early return where no answer is in the
    gold, answers given trimmed) against the definition, floats compared exactly."""
    import random

    from leaderboard.scoring.lexsub.jabbari_rows import answer_list
    from leaderboard.scoring.swords.jabbari import gold_total

    rng = random.Random(5)
    words = ["a", "b", "c", " a", "a ", "d", "e", "f", "g", "h", "i", "j", "k", "", "\xa0a",
             "x y", "\t"]
    for _ in range(30_000):
        counts = {w.strip(" \t"): rng.choice([0, 0, 1, 2, 3, 5])
                  for w in rng.sample(words, rng.randint(0, 6))}
        answers = [rng.choice(words) for _ in range(rng.randint(0, 16))]
        assert jabbari_row(counts, answers) == _definition(counts, answers), (counts, answers)
        trimmed = answer_list(";".join(answers))
        assert jabbari_row(counts, trimmed, gold_total(counts), trimmed=True) \
            == _definition(counts, trimmed), (counts, trimmed)
