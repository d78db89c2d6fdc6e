"""A ranker keeps results' decompressed statistics between refreshes, within a byte bound."""

from __future__ import annotations

import numpy as np
import pytest

from leaderboard.scoring import TargetStats
from leaderboard.services.ranking import resamples


def _blob(seed: int, n: int = 40) -> bytes:
    rng = np.random.default_rng(seed)
    rows = rng.uniform(0, 5, (n, 52)).round(3)
    pos = np.array(["NOUN", "VERB"] * (n // 2), dtype=object)
    return TargetStats(rows, pos, f"sum{seed}", 0, 100, "1.0").to_bytes()


@pytest.fixture
def keeping():
    resamples.keep_statistics()
    yield
    resamples.keep_statistics(False)


def test_kept_statistics_are_the_stored_ones_and_read_once(keeping):
    blob = _blob(1)
    first = resamples.load_statistics(blob)
    direct = TargetStats.from_bytes(blob)
    assert first.rows.tobytes() == direct.rows.tobytes()
    assert list(first.pos) == list(direct.pos) and first.split_checksum == "sum1"
    assert resamples.load_statistics(bytes(blob)) is first  # the same bytes: kept
    other = resamples.load_statistics(_blob(2))
    assert other is not first and other.split_checksum == "sum2"


def test_kept_statistics_stay_within_their_bound(keeping, monkeypatch):
    one = 40 * 52 * 8 + 8 * 40
    monkeypatch.setattr(resamples, "KEPT_STATS_BYTES", 3 * one)
    blobs = [_blob(seed) for seed in range(5)]
    loaded = [resamples.load_statistics(b) for b in blobs]
    assert resamples._kept_size[0] == 3 * one and len(resamples._kept_stats) == 3
    assert resamples.load_statistics(blobs[4]) is loaded[4]  # the newest are kept
    assert resamples.load_statistics(blobs[0]) is not loaded[0]  # the oldest went first


def test_a_process_that_does_not_keep_reads_every_time():
    resamples.keep_statistics(False)
    blob = _blob(3)
    assert resamples.load_statistics(blob) is not resamples.load_statistics(blob)
    assert not resamples._kept_stats
