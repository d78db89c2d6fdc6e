"""Instances with an empty candidate pool on the ranking board.

LS07's pool file has no entry for 9 gold instances' lemma.pos (``bar.n.v 48``, ``stand.n.v
131``...): no ranking of the inputs answers them. lst_gap.py reads their empty RANKED line
as GAP 0 and keeps it in the mean, so GAP stays so; the coverage counts leave them out
instead of counting them against the system.
"""

from __future__ import annotations

import pytest

from leaderboard.scoring.lexsub.data import prepare_files
from leaderboard.services.ranking.systems import coverage_of, coverage_text

from .conftest import RANKING, lexsub_dir, run, tiny_split

GOLD = ["bright.a 1 :: smart 3;clever 2;", "bar.n.v 48 :: prevent 3;block 1;"]
POOLS = {"bright.a": ["smart", "clever"]}


def test_an_empty_pool_is_not_held_against_the_system(tmp_path) -> None:
    split = tiny_split(tmp_path, GOLD, POOLS)
    assert split.no_candidates == {"bar.n.v 48"}
    report, result = run(split, b"RANKED\tbright.a 1\tsmart 0.9\tclever 0.1\n"
                                b"RANKED\tbar.n.v 48\n", RANKING)
    codes = {p.code: p.message for p in report.warnings}
    assert "missing_targets" not in codes
    assert codes["no_candidates"].startswith("1 instances have no candidates to rank "
                                             "(first: bar.n.v 48")
    # GAP as lst_gap.py: 1 on bright.a 1, 0 on the empty line, both in the mean
    assert result.metrics["gap"] == pytest.approx(50.0)
    assert result.counts["targets_answered"] == 1
    assert result.counts["targets_no_candidates"] == 1
    coverage = coverage_of(result.counts)
    assert coverage["unanswered"] == 0 and coverage["answerable"] == 1
    assert coverage_text(coverage).startswith(
        "answered 1 of 1 answerable targets (100.0%); 0 not answered; 1 more have no "
        "candidates to rank")


def test_a_missing_answerable_instance_is_still_counted(tmp_path) -> None:
    split = tiny_split(tmp_path, GOLD + ["bright.a 2 :: vivid 2;"], POOLS)
    report, result = run(split, b"RANKED\tbright.a 1\tsmart 0.9\tclever 0.1\n", RANKING)
    codes = {p.code: p.message for p in report.warnings}
    assert codes["missing_targets"].startswith(
        "1 of 2 answerable instances have no answer (first: bright.a 2)")
    coverage = coverage_of(result.counts)
    assert (coverage["answered"], coverage["answerable"], coverage["unanswered"]) == (1, 2, 1)


def test_coverage_without_the_count_reads_as_before() -> None:
    coverage = coverage_of({"targets_in_split": 10, "targets_answered": 8})
    assert coverage == {"targets": 10, "answered": 8, "unanswered": 2, "empty": None,
                        "missing": None}
    assert coverage_text(coverage) == "answered 8 of 10 targets (80.0%); 2 not answered"


def test_ls07_all_has_nine_instances_without_candidates() -> None:
    split = prepare_files("semeval07", "all", lexsub_dir(), bootstrap=0)
    assert len(split.no_candidates) == 9
    assert {"bar.n.v 48", "stand.n.v 131", "stand.n.v 140"} <= split.no_candidates
