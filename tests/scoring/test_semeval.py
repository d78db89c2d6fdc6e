"""score.pl's best/oot quirks, one by one (spec section 5)."""

from __future__ import annotations

import pytest

from leaderboard.scoring.swords.semeval import (
    COLUMNS,
    build_semeval_gold,
    fix_guess,
    semeval_metrics,
    semeval_row,
    system_guesses,
)


def row(candidates, votes, ranked) -> dict:
    return dict(zip(COLUMNS, semeval_row(build_semeval_gold(candidates, votes), ranked),
                    strict=True))


def test_credit_best_divides_by_all_guesses_oot_does_not():
    r = row(["quick", "fast", "rapid"], [5, 3, 2], ["fast", "slow", "quick"])
    assert r["best_credit"] == pytest.approx((0.3 + 0.0 + 0.5) / 3)
    assert r["oot_credit"] == pytest.approx(0.8)
    assert (r["se_item"], r["se_attempted"], r["se_mode"], r["se_mode_attempted"]) == (1, 1, 1, 1)
    assert r["best_mode_hit"] == 0.0  # first guess is fast, the mode is quick
    assert r["oot_mode_hit"] == 1.0


def test_oot_reads_only_ten_guesses():
    ranked = [f"w{i}" for i in range(10)] + ["quick", "fast"]
    r = row(["quick", "fast"], [3, 1], ranked)
    assert r["oot_credit"] == 0.0 and r["oot_mode_hit"] == 0.0
    assert r["best_credit"] == pytest.approx(1.0 / 12)


def test_entries_containing_pn_are_removed():
    gold = build_semeval_gold(["upnorth", "north", "south"], [5, 3, 1])
    assert gold.norms == {"north": 0.75, "south": 0.25}
    assert gold.mode == "north"


def test_single_character_entries_are_dropped_but_counted_for_the_item_rule():
    gold = build_semeval_gold(["a", "bb"], [3, 1])
    assert gold.counted  # two entries before the entry regex
    assert gold.norms == {"bb": 1.0}
    assert gold.mode == "bb"  # the first entry that matches, even with one vote


def test_item_needs_two_entries_or_two_votes():
    assert not build_semeval_gold(["only"], [1]).counted
    assert build_semeval_gold(["only"], [2]).counted
    assert build_semeval_gold(["one", "two"], [1, 1]).counted
    assert not build_semeval_gold(["x"], [0]).counted


def test_mode_ties():
    assert build_semeval_gold(["aa", "bb", "cc"], [3, 3, 1]).mode is None
    assert build_semeval_gold(["aa", "bb", "cc"], [4, 3, 3]).mode == "aa"
    r = row(["aa", "bb"], [2, 2], ["aa"])
    assert r["se_mode"] == 0.0 and r["se_mode_attempted"] == 0.0


def test_one_apostrophe_removed_on_both_sides():
    gold = build_semeval_gold(["o'clock", "time"], [2, 1])
    assert "oclock" in gold.norms
    assert fix_guess("o'clock") == "oclock"
    assert fix_guess("rock'n'roll") == "rockn'roll"
    assert row(["o'clock", "time"], [2, 1], ["o'clock"])["best_mode_hit"] == 1.0


def test_hyphens_match_spaces_but_a_hyphenated_mode_never_matches():
    gold = build_semeval_gold(["well-known", "famous"], [3, 1])
    assert gold.norms["well known"] == gold.norms["well-known"] == 0.75
    r = row(["well-known", "famous"], [3, 1], ["well-known"])
    assert r["best_credit"] == pytest.approx(0.75)  # the guess becomes "well known"
    assert r["best_mode_hit"] == 0.0  # the mode keeps its hyphen: score.pl never matches it


def test_exact_key_wins_over_hyphen_variant():
    gold = build_semeval_gold(["see through", "see-through"], [8, 7])
    assert gold.norms["see through"] == pytest.approx(8 / 15)


def test_non_prefix():
    assert fix_guess("non-stop") == "nonstop"
    assert fix_guess("non stop") == "nonstop"
    assert fix_guess("up-to-date") == "up to date"
    assert row(["nonstop", "direct"], [2, 1], ["non-stop"])["best_credit"] == pytest.approx(2 / 3)


def test_semicolons_split_guesses():
    assert system_guesses(["a;b", "c"]) == ["a", "b", "c"]


def test_abstention_counts_in_recall_only():
    empty = row(["quick", "fast"], [3, 1], [])
    full = row(["quick", "fast"], [3, 1], ["quick"])
    sums = {k: empty[k] + full[k] for k in COLUMNS}
    m = semeval_metrics(sums)
    assert m["best_p"] == pytest.approx(0.75)
    assert m["best_r"] == pytest.approx(0.375)
    assert m["best_mode_p"] == 1.0 and m["best_mode_r"] == 0.5
