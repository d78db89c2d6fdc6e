"""The one significance rule: p from the paired beat probability, display, Holm, letters."""

from __future__ import annotations

import numpy as np

from leaderboard.scoring.rank_build import conservative_ranks
from leaderboard.scoring.significance import (
    compact_letters,
    diff_interval,
    format_p,
    holm_rejections,
    p_beats,
    p_value,
    significant,
)


def test_p_beats_counts_ties_half_and_p_is_two_sided():
    a = np.array([3.0, 2.0, 1.0, 5.0])
    b = np.array([1.0, 2.0, 4.0, 0.0])
    assert p_beats(a, b) == (2 + 0.5) / 4  # wins on 0 and 3, tie on 1
    assert p_beats(b, a) == 1 - 0.625
    assert p_value(0.625) == 0.75 and p_value(0.99) == 0.020000000000000018
    assert p_value(0.0) == 0.0 and p_value(0.5) == 1.0 and p_value(None) is None


def test_verdict_at_the_threshold():
    assert significant(0.0495) and not significant(0.05) and not significant(0.0515)
    assert not significant(None)
    # P = 0.97 (the example): p = 0.06, not significant; P = 0.98: p = 0.04
    assert not significant(p_value(0.97)) and significant(p_value(0.98))


def test_printed_p_never_crosses_the_threshold():
    assert format_p(0.0495) == "0.049"      # rounding would print 0.050 next to "significant"
    assert format_p(0.0515) == "0.051"
    assert format_p(0.05) == "0.050"
    assert format_p(0.04999999) == "0.049"
    assert format_p(0.0004) == "< 0.001"
    assert format_p(1.0) == "1.000" and format_p(None) == "–"
    for p in np.linspace(0, 1, 2001):
        shown = format_p(float(p))
        if shown != "< 0.001":
            assert (float(shown) < 0.05) == significant(float(p))


def test_holm_step_down():
    # n = 3: thresholds 0.05/3, 0.05/2, 0.05/1
    assert holm_rejections([0.01, 0.02, 0.04]) == 3
    assert holm_rejections([0.01, 0.03, 0.04]) == 1   # 0.03 >= 0.025 stops it
    assert holm_rejections([0.02, 0.0, 0.9]) == 2
    assert holm_rejections([0.05]) == 0 and holm_rejections([]) == 0


def test_diff_interval_is_paired():
    a = np.arange(100.0)
    b = a - 2.0  # always exactly 2 apart: the paired interval is a point
    assert diff_interval(a, b) == [2.0, 2.0]


def test_conservative_ranks_count_significantly_better_systems():
    b = 40
    base = np.linspace(0, 1, b)
    values = np.stack([base + 10,            # far ahead
                       base[::-1] + 10.02,   # same spread as row 0, reversed: P near 0.5
                       base + 5,             # clearly below both
                       base[::-1] + 5.0])    # same spread as row 2, reversed: P = 0.5
    points = values.mean(axis=1) + np.array([0.0, 0.01, 0.0, -0.01])
    cons = conservative_ranks(values, points)
    assert cons.tolist() == [1, 1, 3, 3]


def test_compact_letters_share_a_letter_only_when_not_different():
    sig = np.array([[0, 0, 1, 1],
                    [0, 0, 0, 1],
                    [1, 0, 0, 0],
                    [1, 1, 0, 0]], dtype=bool)
    assert compact_letters(sig) == ["a", "ab", "bc", "c"]


def test_p_phrase_reads_as_a_sentence():
    from leaderboard.scoring.significance import p_phrase

    assert p_phrase(0.0004) == "p < 0.001"
    assert p_phrase(0.0234) == "p = 0.023"
    assert p_phrase(None) == "p = –"
