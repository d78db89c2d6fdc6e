"""One printing rule per family, worked out by hand against what the scripts print."""

from __future__ import annotations

from leaderboard.scoring.printing import printed, printed_all, shown


def test_half_up_on_the_decimal_value_as_score_pl_prints():
    # score.pl: int(0.48955017 * 100 * 100 + .5) / 100 = int(4896.0017) / 100 = 48.96
    assert shown(48.955017, "coinco") == "48.96"
    # 48.955 is stored as 48.954999999999998: "%.2f" prints 48.95, the decimal rule 48.96
    assert f"{48.955:.2f}" == "48.95" and shown(48.955, "coinco") == "48.96"
    assert shown(22.5568, "semeval07") == "22.56" and shown(22.5, "semeval07") == "22.50"
    assert printed(135.7479, "semeval07") == 135.75


def test_tsar_floors_the_fraction_to_four_decimals():
    # tsar_eval.py: floor(0.747283 * 10000) / 10000 = 0.7472, printed 74.72 (not 74.73)
    assert shown(74.7283, "tsar2022") == "74.72" and printed(74.7283, "tsar2022") == 74.72
    # 0.57 * 100 is 56.99999999999999: floored as a float it would print 56.99
    assert 0.57 * 100 < 57 and shown(0.57 * 100, "tsar2022") == "57.00"
    assert shown(80.9651, "tsar2022") == "80.96"


def test_swords_one_decimal_half_up_and_no_value():
    assert shown(50.25, "swords", 1) == "50.3" and f"{50.25:.1f}" == "50.2"
    assert shown(None) == "–" and printed(None) is None


def test_a_value_read_back_from_a_snapshot_prints_as_the_full_value():
    for value in (48.955017, 74.72996, 12.344999, 99.995):
        for family in ("coinco", "tsar2022", "swords"):
            assert shown(round(value, 6), family) == shown(value, family)


def test_nested_values_are_printed_and_other_values_kept():
    assert printed_all({"a": 48.955017, "b": [74.7283, None], "n": 3}, "tsar2022") == {
        "a": 48.95, "b": [74.72, None], "n": 3}
