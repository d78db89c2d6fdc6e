"""The memory-saving forms of the gold and of the bootstrap products give the same values."""

from __future__ import annotations

import numpy as np

from leaderboard.scoring import PreparedSplit
from leaderboard.scoring.bootstrap import resample_counts
from leaderboard.scoring.swords.gap import gap_row
from leaderboard.scoring.swords.gold import GoldTarget
from leaderboard.scoring.swords.stats import RESAMPLE_BLOCK, resampled_sums


def test_candidate_weights_read_from_the_target_lists():
    target = GoldTarget("t:1", "NOUN", "car", ["auto", "truck", "train"], [8, 1, 0],
                        [10, 4, 5])
    assert target.weights["auto"] == (8.0, 0.8)
    assert target.weights.get("truck") == (1.0, 0.25)
    assert target.weights.get("train") == (0.0, 0.0)
    assert target.weights.get("bus") is None and "bus" not in target.candidate_set
    assert list(target.weights) == ["auto", "truck", "train"] and len(target.weights) == 3
    assert all(c in target.candidate_set for c in ("auto", "truck", "train"))
    # GAP by hand: weights 8, 1 (ideal 8/1 + 9/2 = 12.5); list truck, bus, auto:
    # rank 1 truck: 1/1; rank 3 auto: (1 + 8)/3 = 3 -> 4 / 12.5 = 0.32
    assert target.gap_denominator == 12.5
    assert gap_row(["truck", "bus", "auto"], target.weights, target.gap_denominator,
                   target.gap_rat_denominator)[0] == 0.32


def test_from_bytes_shares_one_string_per_candidate():
    targets = [GoldTarget("t:1", "NOUN", "car", ["auto", "van"], [2, 1], [2, 2]),
               GoldTarget("t:2", "NOUN", "bus", ["coach", "van"], [1, 1], [1, 2])]
    loaded = PreparedSplit.from_bytes(PreparedSplit("s", "c", targets).to_bytes())
    first, second = loaded.targets
    assert first.candidates == ["auto", "van"] and second.candidates == ["coach", "van"]
    assert first.candidates[1] is second.candidates[1]
    assert second.weights["van"] == (1.0, 0.5)


def test_blocked_resample_product_equals_one_product():
    rng = np.random.default_rng(7)
    rows = rng.random((762, 31)) * rng.integers(0, 3, size=(762, 1))
    counts = resample_counts(762, 1000, 0)
    whole = np.asarray(counts, dtype=np.float64) @ rows
    blocked = resampled_sums(counts, rows)
    assert RESAMPLE_BLOCK >= 100
    assert blocked.shape == (1000, 31) and blocked.dtype == np.float64
    # BLAS kernels sum in an order that depends on the matrix shape and the CPU: on an AMD
    # EPYC the blocked product differs from the whole one in the last bit of 135 of 31,000
    # sums (2e-13 on sums near 400). Equal to rounding, and the same bits on every call.
    np.testing.assert_allclose(blocked, whole, rtol=1e-14, atol=0)
    assert np.array_equal(blocked, resampled_sums(counts, rows))


def test_resample_product_skips_columns_of_zeros():
    """A GAP file fills 2 of the 52 columns: only those (and spare zero columns up to
    MIN_PRODUCT_COLUMNS) are multiplied; the others are exactly 0 on every resample, and the
    used ones equal the whole product's to rounding (to the bit on the CPUs seen so far)."""
    from leaderboard.scoring.swords.stats import MIN_PRODUCT_COLUMNS

    rng = np.random.default_rng(11)
    counts = resample_counts(762, 1000, 0)
    whole_counts = np.asarray(counts, dtype=np.float64)
    for used in ([3, 40], list(range(0, 52, 2)), [7]):
        rows = np.zeros((762, 52))
        rows[:, used] = rng.random((762, len(used)))
        rows[::5, used[0]] = -0.0
        sums = resampled_sums(counts, rows)
        unused = [c for c in range(52) if c not in used]
        assert sums.shape == (1000, 52) and not sums[:, unused].any()
        assert not np.signbit(sums[:, unused]).any()  # +0.0, as the whole product gives
        np.testing.assert_allclose(sums[:, used], (whole_counts @ rows)[:, used], rtol=1e-14,
                                   atol=0)
        assert np.array_equal(sums, resampled_sums(counts, rows))
    assert MIN_PRODUCT_COLUMNS >= 12
    empty = resampled_sums(counts, np.zeros((762, 52)))
    assert empty.shape == (1000, 52) and not empty.any()
