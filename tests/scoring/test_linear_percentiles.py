"""bootstrap.linear_percentiles is np.percentile's default method, bit for bit (it exists
because np.percentile's first call imports numpy.ma, which a one-off ``leaderboard score``
should not pay for)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from leaderboard.scoring.bootstrap import (
    INTERVAL_PERCENTILES,
    linear_percentiles,
    percentile_intervals,
    resample_counts,
)


def _cases(rng: np.random.Generator, b: int) -> list[np.ndarray]:
    k = 7
    with_nan = rng.normal(50, 20, (k, b))
    with_nan[1, b // 2] = np.nan
    return [rng.random((k, b)) * 100, np.round(rng.random((k, b)) * 100, 1),
            rng.integers(0, 3, (k, b)).astype(float), np.full((k, b), 37.5), with_nan,
            rng.random((k, b)) * 1e5 - 5e4, np.zeros((k, b))]


@pytest.mark.parametrize("b", [1, 2, 3, 4, 10, 39, 40, 41, 100, 999, 1000, 1001])
def test_linear_percentiles_are_numpys(b) -> None:
    rng = np.random.default_rng(b)
    for values in _cases(rng, b):
        expected = np.percentile(values, INTERVAL_PERCENTILES, axis=1)
        got = linear_percentiles(values)
        assert got.shape == expected.shape == (2, values.shape[0])
        assert np.array_equal(got, expected, equal_nan=True)
        assert np.array_equal(np.signbit(got), np.signbit(expected))


def test_intervals_of_resampled_metrics_are_numpys() -> None:
    """Resampled means of per-target values, as every interval is computed."""
    rng = np.random.default_rng(0)
    rows = np.round(rng.random((300, 4)), 3)
    counts = resample_counts(300, 1000, 0, 0).astype(float)
    resampled = {f"m{i}": 100 * (counts @ rows[:, i]) / 300 for i in range(4)}
    got = percentile_intervals(resampled)
    for key, values in resampled.items():
        lo, hi = np.percentile(values, INTERVAL_PERCENTILES)
        assert got[key] == [float(lo), float(hi)]


def test_no_numpy_ma_import() -> None:
    code = ("import sys, numpy as np\nfrom leaderboard.scoring.bootstrap import "
            "percentile_intervals\npercentile_intervals({'a': np.arange(1000.0)})\n"
            "print('numpy.ma' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"
