"""Paired bootstrap: fixed resamples, intervals, comparisons and rank intervals."""

from __future__ import annotations

import numpy as np
import pytest

from leaderboard.scoring import compare, rank_intervals, resample_counts
from leaderboard.scoring.bootstrap import percentile_interval
from leaderboard.scoring.swords.stats import COLUMN_INDEX, TargetStats


def test_resamples_are_fixed_by_n_b_and_seed():
    a = resample_counts(7, 50, 3)
    assert a.shape == (50, 7)
    assert (a.sum(axis=1) == 7).all()
    rng = np.random.default_rng([3, 0])
    idx = rng.integers(0, 7, size=(50, 7))
    assert (a[4] == np.bincount(idx[4], minlength=7)).all()
    assert not np.array_equal(a, resample_counts(7, 50, 4))
    assert not np.array_equal(a, resample_counts(7, 50, 3, stream=1))


@pytest.mark.parametrize("n, b", [(761, 1000), (762, 999), (3, 130), (1, 65)])
def test_resamples_drawn_in_blocks_equal_one_draw_of_b_by_n(n, b):
    # the counts are drawn 64 rows at a time to bound memory: the indices must be the
    # same as one (B, n) draw, or every interval would move
    idx = np.random.default_rng([5, 2]).integers(0, n, size=(b, n))
    expected = np.stack([np.bincount(row, minlength=n) for row in idx])
    counts = resample_counts(n, b, 5, stream=2)
    assert counts.dtype == np.uint16 and np.array_equal(counts, expected)


def test_percentile_interval():
    assert percentile_interval(np.arange(101.0)) == [2.5, 97.5]


def _stats(hits: list[float]) -> TargetStats:
    rows = np.zeros((len(hits), len(COLUMN_INDEX)))
    rows[:, COLUMN_INDEX["top_strict"]] = 1
    rows[:, COLUMN_INDEX["hit_strict_c"]] = hits
    return TargetStats(rows, np.array(["NOUN"] * len(hits), dtype=object), "x", 0, 200, "t")


def test_compare_is_paired_and_ties_count_half():
    better = _stats([1, 1, 1, 0, 1, 1])
    worse = _stats([1, 0, 1, 0, 1, 1])
    assert compare(better, worse, "strict_c_p@10") == pytest.approx(
        1 - compare(worse, better, "strict_c_p@10"))
    # better >= worse on every resample; equal exactly when target 1 is never drawn
    counts = resample_counts(6, 200, 0)
    never = np.mean(counts[:, 1] == 0)
    assert compare(better, worse, "strict_c_p@10") == pytest.approx((1 - never) + never / 2)
    assert compare(better, better, "strict_c_p@10") == 0.5


def test_compare_refuses_other_splits():
    other = _stats([1, 1, 1, 0, 1, 1])
    other.split_checksum = "y"
    with pytest.raises(ValueError):
        compare(_stats([1, 1, 1, 0, 1, 1]), other, "strict_c_p@10")


def test_rank_intervals():
    top = _stats([1] * 10)
    mid = _stats([1] * 5 + [0] * 5)
    low = _stats([0] * 10)
    assert rank_intervals([low, top, mid], "strict_c_p@10") == [(3, 3), (1, 1), (2, 2)]
    twin = _stats([1] * 10)
    assert rank_intervals([top, twin], "strict_c_p@10") == [(1, 1), (1, 1)]


def test_resamples_kept_on_disk_are_the_drawn_ones(tmp_path, monkeypatch) -> None:
    from leaderboard.scoring import bootstrap

    drawn = bootstrap._draw(37, 20, 5, 2)
    monkeypatch.setattr(bootstrap, "DISK_CACHE", tmp_path)
    bootstrap.resample_counts.cache_clear()
    try:
        first = bootstrap.resample_counts(37, 20, 5, 2)  # drawn and written
        (written,) = tmp_path.glob("resamples-37-20-5-2-numpy*.npy")
        bootstrap.resample_counts.cache_clear()
        second = bootstrap.resample_counts(37, 20, 5, 2)  # read back
        assert (first == drawn).all() and (second == drawn).all()
        assert second.dtype == drawn.dtype and not second.flags.writeable
        written.write_bytes(b"not numpy")  # a foreign file is drawn again
        bootstrap.resample_counts.cache_clear()
        assert (bootstrap.resample_counts(37, 20, 5, 2) == drawn).all()
    finally:
        bootstrap.resample_counts.cache_clear()
