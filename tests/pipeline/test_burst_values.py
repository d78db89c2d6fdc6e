"""What a burst's refresh computes less of gives the same numbers.

A refresh after many new results needs a few metrics of most results (the neighbour pairs the
new ones split): :func:`some_values` runs only those metrics' formulas on the same product
and must equal :func:`system_values` to the last bit, on every POS and for every metric; the
rank states read their systems' values through a :class:`ValueTable`, which must hand back
exactly what the ranking compares.
"""

from __future__ import annotations

import numpy as np
import pytest

from leaderboard.demo.synthetic import CHECKSUM, synthetic_rows, target_pos
from leaderboard.scoring import SCORER_VERSION, TargetStats
from leaderboard.scoring.resample_ranks import ranking_values
from leaderboard.scoring.swords.engine import POS_ORDER
from leaderboard.scoring.swords.stats import METRIC_KEYS
from leaderboard.services.ranking.blocks import ValueTable
from leaderboard.services.ranking.resamples import (
    SUBSET_MAX_KEYS,
    FloatCounts,
    by_subset,
    some_values,
    system_values,
)

N_TARGETS, BOOTSTRAP = 120, 300


def _stats(rng: np.random.Generator, skill: float) -> TargetStats:
    return TargetStats(synthetic_rows(rng, skill, N_TARGETS), target_pos(N_TARGETS), CHECKSUM,
                       0, BOOTSTRAP, SCORER_VERSION)


@pytest.mark.parametrize("pos", [None, *POS_ORDER])
def test_some_metrics_equal_every_metric_to_the_last_bit(pos):
    rng = np.random.default_rng(31)
    results = [_stats(rng, skill) for skill in (0.2, 0.5, 0.8)]
    results.append(TargetStats(np.zeros_like(results[0].rows), results[0].pos, CHECKSUM, 0,
                               BOOTSTRAP, SCORER_VERSION))  # an empty submission: 0 / 0
    keys = list(METRIC_KEYS)
    groups = [[k] for k in keys] + [keys[i:i + 5] for i in range(0, len(keys), 5)]
    counts = FloatCounts()
    compared = 0
    for stats in results:
        whole = system_values(stats, pos)
        assert system_values(stats, pos, counts).keys() == whole.keys()
        for group in groups:
            assert by_subset(group)  # the path under test, not the whole one
            for fresh in (some_values(stats, pos, group, counts), some_values(stats, pos, group)):
                assert list(fresh) == group
                for key in group:
                    assert fresh[key].shape == (BOOTSTRAP,)
                    assert np.array_equal(fresh[key], whole[key], equal_nan=True), key
                    compared += 1
    assert compared == 4 * 2 * 2 * len(keys)
    # real numbers, not zeros everywhere: the metrics differ between the systems
    assert not np.array_equal(system_values(results[0], pos)["strict_a_f@10"],
                              system_values(results[2], pos)["strict_a_f@10"])


def test_many_metrics_are_computed_whole():
    keys = list(METRIC_KEYS)[:SUBSET_MAX_KEYS + 1]
    assert not by_subset(keys) and not by_subset([]) and not by_subset(["no such metric"])
    stats = _stats(np.random.default_rng(3), 0.6)
    whole = system_values(stats, None)
    got = some_values(stats, None, keys)
    assert all(np.array_equal(got[k], whole[k]) for k in keys)


def test_value_table_gives_the_rows_the_ranking_compares():
    rng = np.random.default_rng(5)
    store = {rid: rng.normal(50, 5, 40) for rid in range(100, 300)}
    store[107][3] = np.nan  # a missing value ranks last
    asked: list[list[int]] = []

    def fetch(ids: list[int]) -> np.ndarray:
        asked.append(list(ids))
        return np.array([store[i] for i in ids])

    table = ValueTable(fetch, 40)
    for ids in ([107], [150, 107, 151], list(range(100, 300)), [299, 100, 299], []):
        got = table(ids)
        assert got.shape == (len(ids), 40)
        if ids:
            assert np.array_equal(got, ranking_values(np.array([store[i] for i in ids])))
    assert got.size == 0
    assert table(ids=[107])[0, 3] == -np.inf
    # each system read once, however often asked
    assert sorted(r for batch in asked for r in batch) == list(range(100, 300))
