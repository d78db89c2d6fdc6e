"""Answer files in every accepted format, plain or gzipped; every problem names its line."""

from __future__ import annotations

import gzip
import json

import pytest

from leaderboard.scoring.lexsub import formats

from .conftest import GENERATIVE, RANKING, run, tiny_split

GOLD = ["bright.a 1 :: smart 3;clever 2;", "bright.a 2 :: vivid 2;shining 1;"]
POOL = {"bright.a": ["smart", "clever", "vivid", "shining"]}


@pytest.fixture
def split(tmp_path):
    return tiny_split(tmp_path, GOLD, POOL)


def codes(problems) -> list[str]:
    return [p.code for p in problems]


def test_detects_each_format() -> None:
    assert formats.detect(b'  {"substitutes": {}}') == formats.JSON
    assert formats.detect(b"RANKED\tbright.a 1\tsmart 1\n") == formats.RANKED
    assert formats.detect(b"bright.a 1 :: smart\n") == formats.LINES
    assert formats.detect(b"bright.a 1 ::: smart;clever\n") == formats.LINES


def test_ranked_plain_gzipped_and_json_score_alike(split) -> None:
    ranked = b"RANKED\tbright.a 1\tclever 0.9\tsmart 0.5\nRANKED\tbright.a 2\tvivid 1\n"
    as_json = json.dumps({"substitutes": {"bright.a 1": [["clever", 0.9], ["smart", 0.5]],
                                          "bright.a 2": [["vivid", 1.0]]}}).encode()
    values = [run(split, raw, RANKING)[1].metrics["gap"]
              for raw in (ranked, gzip.compress(ranked), as_json, gzip.compress(as_json))]
    # bright.a 1: clever(2) smart(3) -> 2/1 + 5/2 = 4.5 of 3/1 + 5/2 = 5.5;
    # bright.a 2: vivid(2) alone -> 2/1 of 2/1 + 3/2 = 3.5
    assert values == [pytest.approx(100 * (4.5 / 5.5 + 2 / 3.5) / 2)] * 4


def test_a_pair_of_best_and_oot_files_in_one_upload(split) -> None:
    pair = b"bright.a 1 :: smart\nbright.a 2 :: vivid\nbright.a 1 ::: smart;clever\n"
    report, result = run(split, gzip.compress(pair), GENERATIVE)
    assert report.ok and "no_oot_lines" not in codes(report.warnings)
    assert result.metrics["best_p"] == pytest.approx(100 * (3 / 5 + 2 / 3) / 2)
    assert result.metrics["oot_p"] == pytest.approx(100 * 1.0)   # (3+2)/5 on the one line


def test_unreadable_ranked_line_names_its_number(split) -> None:
    report, _ = run(split, b"RANKED\tbright.a 1\tsmart 1\nnot a ranked line\n", RANKING)
    assert codes(report.errors) == ["unreadable_line"]
    assert report.errors[0].position == 2 and "line 2" in report.errors[0].message


@pytest.mark.parametrize("entry", ["smart", "smart nan", "smart inf", "smart 1e999",
                                   "smart high"])
def test_a_score_that_is_not_a_finite_number_is_refused(split, entry) -> None:
    report, _ = run(split, f"RANKED\tbright.a 2\tvivid 1\nRANKED\tbright.a 1\t{entry}\n"
                    .encode(), RANKING)
    assert codes(report.errors) == ["bad_score"]
    error = report.errors[0]
    assert (error.position, error.target_id) == (2, "bright.a 1")
    assert "line 2 (bright.a 1)" in error.message


def test_an_answer_line_of_neither_kind_is_refused_with_its_number(split) -> None:
    report, _ = run(split, b"bright.a 1 :: smart\n\nbright.a 2 - vivid\n", GENERATIVE)
    assert codes(report.errors) == ["unreadable_line"]
    assert report.errors[0].position == 3
    assert "Error in file on line 3" in report.errors[0].message


def test_best_lines_on_a_ranking_board_are_refused(split) -> None:
    report, _ = run(split, b"bright.a 1 :: smart\n", RANKING)
    assert codes(report.errors) == ["ranking_needs_scores"]


def test_warnings_missing_unknown_outside_pool_and_duplicates(split) -> None:
    raw = (b"RANKED\tbright.a 1\tsmart 1\tbrainy 2\n"
           b"RANKED\tbright.a 1\tsmart 2\n"
           b"RANKED\tbright.a 77\tsmart 1\n")
    report, result = run(split, raw, RANKING)
    assert report.ok
    assert set(codes(report.warnings)) == {"duplicate_instance", "missing_targets",
                                           "unknown_targets", "candidates_left_out"}
    dup = next(p for p in report.warnings if p.code == "duplicate_instance")
    assert (dup.position, dup.target_id) == (2, "bright.a 1") and "line 1" in dup.message
    missing = next(p for p in report.warnings if p.code == "missing_targets")
    assert missing.target_id == "bright.a 2"
    assert report.counts["missing"] == 1 and report.counts["unknown"] == 1
    # the last line of a repeated instance is scored (smart alone: 3/1 of 5.5), the
    # missing instance earns 0 where lst_gap.py would stop with a KeyError
    assert result.metrics["gap"] == pytest.approx(100 * (3 / 5.5 + 0) / 2)


def test_outside_pool_is_a_warning(split) -> None:
    report, _ = run(split, b"RANKED\tbright.a 1\tbrainy 2\tsmart 1\tclever 0\tvivid 0"
                    b"\tshining 0\nRANKED\tbright.a 2\tvivid 1\tsmart 0\tclever 0"
                    b"\tshining 0\n", RANKING)
    assert codes(report.warnings) == ["outside_pool"]


def test_latin1_bytes_compare_with_the_gold_as_bytes(tmp_path) -> None:
    split = tiny_split(tmp_path, ["caf\xe9.n 1 :: bistro 2;d\xe9cor 1;"], {
        "caf\xe9.n": ["bistro", "d\xe9cor"]})
    # the gold byte 0xE9 and a RANKED file written in latin-1 meet as the same string
    report, result = run(split, "RANKED\tcaf\xe9.n 1\td\xe9cor 2\tbistro 1\n"
                         .encode("latin-1"), RANKING)
    assert report.ok and result.counts["targets_scored"] == 1
    assert result.metrics["gap"] == pytest.approx(100 * (1 / 1 + 3 / 2) / (2 / 1 + 3 / 2))


def test_too_many_lines_is_refused_before_parsing(split) -> None:
    raw = gzip.compress(b"\n" * (formats.MAX_LINES + 5))
    report, _ = run(split, raw, GENERATIVE)
    assert codes(report.errors) == ["too_many_lines"]


def test_one_enormous_line_is_refused_not_scored(split) -> None:
    raw = b"RANKED\tbright.a 1" + b"\tsmart 1" * 300_000 + b"\n"
    report, _ = run(split, raw, RANKING)
    assert codes(report.errors) == ["too_many_candidates"]
    assert report.errors[0].position == 1


def test_gzip_bomb_and_bad_gzip(split) -> None:
    bomb = gzip.compress(b"\n" * 60_000_000)
    report, _ = run(split, bomb, RANKING)
    assert codes(report.errors) == ["file_too_large"]
    report, _ = run(split, b"\x1f\x8b\x08broken", RANKING)
    assert codes(report.errors) == ["bad_gzip"]


def test_a_lemma_with_a_space_is_one_instance(tmp_path) -> None:
    # CoInCo has lemmas such as "e commerce": score.pl's pattern matches from "commerce"
    split = tiny_split(tmp_path, ["e commerce.n 7 :: online trade 2;trade 1;"])
    report, result = run(split, b"e commerce.n 7 :: trade\ne commerce.n 7 ::: trade;web\n",
                         GENERATIVE)
    assert codes(report.warnings) == []
    assert result.metrics["best_p"] == pytest.approx(100 / 3)
    assert result.metrics["coverage_r"] == pytest.approx(100 / 3)   # Jabbari: 1 of 3
