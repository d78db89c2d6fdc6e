"""A RANKED file at the per-line limit on every line (4,990 distinct candidates each, a whole
vocabulary ranked per instance) is read, checked and scored within the site's limits, and
holds one str per distinct candidate however many lines rank it.

The full-size file (2,003 lines, about 10 million fields) is measured as a whole process by
``perf/bench_big_ranked.py``; this one has LS07 trial's 300 lines.
"""

from __future__ import annotations

import gzip

import pytest

from leaderboard.config import DEFAULTS
from leaderboard.scoring.families import FAMILIES
from leaderboard.scoring.lexsub.data import read_candidates, read_text
from leaderboard.services.intake.validation import validate_for_track

from .conftest import RANKING, lexsub_dir
from .generated import distinct_ranked_bytes, single_words

pytestmark = pytest.mark.slow
PER_LINE = 4990


@pytest.fixture(scope="module")
def scored():
    family = FAMILIES["semeval07"]
    split = family.prepare(family.build_source("trial", lexsub_dir()), name="x", bootstrap=50)
    words = single_words(read_candidates(read_text(
        lexsub_dir() / "coinco.no_problematic.candidates")))
    raw = gzip.compress(distinct_ranked_bytes(split, words, PER_LINE), 1)
    report = validate_for_track(raw, split, None, DEFAULTS, 0.0, family=family, track=RANKING)
    return split, words, report, family.score(split, report, track=RANKING)


def test_every_line_is_read_and_scored(scored) -> None:
    split, _, report, result = scored
    assert report.ok, report.errors[:3]
    ranked = report.submission.ranked
    assert len(ranked) == len(split.targets)
    assert {len(entries) for entries in ranked.values()} == {PER_LINE}
    assert result.counts["targets_answered"] == len(split.targets)
    assert 0 < result.metrics["gap"] < 100
    assert result.intervals["gap"][0] <= result.metrics["gap"] <= result.intervals["gap"][1]
    assert any(p.code == "outside_pool" for p in report.warnings)


def test_a_candidate_ranked_on_many_lines_is_one_string(scored) -> None:
    split, words, report, _ = scored
    ranked = report.submission.ranked
    names = {c for entries in ranked.values() for c, _ in entries}
    assert len(names) <= len(words) + sum(len(split.pool(t)) for t in split.targets)
    # the same candidate on every line is the same object: memory grows with the
    # vocabulary, not with the number of fields
    assert len({id(c) for entries in ranked.values() for c, _ in entries}) == len(names)
