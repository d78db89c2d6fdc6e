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


def line_codes(report) -> list[str]:
    """The warnings about lines (not the ones about a partial ranking of the pool)."""
    return [c for c in codes(report.warnings) if c != "candidates_left_out"]


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


# bright.a 1's gold: smart 3, clever 2 (GAP denominator 3/1 + 5/2 = 5.5); bright.a 2 answered
# with vivid alone: 2/1 of 2/1 + 3/2 = 3.5
_VIVID = 2 / 3.5


@pytest.mark.parametrize(("score", "smart_first"), [
    ("-inf", False), ("inf", True), ("1e999", True), ("-1E999", False), ("Infinity", True),
    ("nan", True),       # Python's sort keeps a nan where it stands: smart, then clever
    ("+7\r", True), ("\x0b7\x0c", True), ("3.", True), (".5", False)])
def test_scores_python2_reads_are_scored(split, score, smart_first) -> None:
    """lst_gap.py reads every score with Python 2's float: -inf (a log-probability), inf and
    nan included. Such a file is scored, not refused."""
    report, result = run(split, f"RANKED\tbright.a 2\tvivid 1\nRANKED\tbright.a 1\tsmart "
                         f"{score}\tclever 1\n".encode("latin-1"), RANKING)
    assert report.ok and line_codes(report) == [], report.warnings
    bright1 = 1.0 if smart_first else (2 / 1 + 5 / 2) / 5.5
    assert result.metrics["gap"] == pytest.approx(100 * (bright1 + _VIVID) / 2)


@pytest.mark.parametrize("entry", ["smart", "smart high", "smart 1_0", "smart \xd9\xa1",
                                   "smart \xa09", "smart 9\x1c", "smart 0x10"])
def test_a_score_python2_refuses_drops_that_candidate_with_a_warning(split, entry) -> None:
    """No score, ``1_0`` (Python 3 reads 10.0, Python 2 refuses), a non-ASCII digit (UTF-8
    bytes), blanks only Python 3 strips: lst_gap.py drops the candidate ("Error appending")
    and scores the rest; so do we, and say so."""
    report, result = run(split, f"RANKED\tbright.a 2\tvivid 1\nRANKED\tbright.a 1\t{entry}"
                         "\tclever 2\n".encode("latin-1"), RANKING)
    assert report.ok and line_codes(report) == ["bad_score"]
    warning = report.warnings[0]
    assert (warning.position, warning.target_id) == (2, "bright.a 1")
    assert "line 2 (bright.a 1)" in warning.message and "dropped" in warning.message
    # clever alone: 2/1 of 5.5 (read as 10, smart would come first: 5.5 of 5.5)
    assert result.metrics["gap"] == pytest.approx(100 * (2 / 5.5 + _VIVID) / 2)


def test_a_line_ending_in_a_tab_and_crlf_is_scored(split) -> None:
    """lst_gap.py reads the last field as "\\r\\n", prints "Error appending" and drops it."""
    plain = b"RANKED\tbright.a 1\tclever 2\tsmart 1\nRANKED\tbright.a 2\tvivid 1\n"
    crlf = plain.replace(b"\n", b"\t\r\n")
    (_, expected), (report, result) = run(split, plain, RANKING), run(split, crlf, RANKING)
    assert report.ok and line_codes(report) == ["blank_entry"]
    assert report.warnings[0].position == 1 and "(2 in all, on lines 1, 2)" in \
        report.warnings[0].message
    assert result.metrics["gap"] == expected.metrics["gap"]


def test_a_last_field_glued_to_its_digits_is_read_as_python2_reads_it(split) -> None:
    """``x5`` splits into ``x`` and ``5`` in the middle of a line, but at its end the field
    is ``x5\\n``, which has no score: lst_gap.py drops it there."""
    report, result = run(split, b"RANKED\tbright.a 1\tclever5\tsmart 1\n"
                         b"RANKED\tbright.a 2\tvivid 1\tclever5\n", RANKING)
    assert line_codes(report) == ["bad_score"] and report.warnings[0].position == 2
    assert report.submission.ranked == {"bright.a 1": [("clever", 5.0), ("smart", 1.0)],
                                        "bright.a 2": [("vivid", 1.0)]}


def test_an_answer_line_of_neither_kind_is_skipped_with_a_warning_naming_it(split) -> None:
    """score.pl prints "Error in file on line 3" and scores the rest: so do we."""
    report, result = run(split, b"bright.a 1 :: smart\n\nbright.a 2 - vivid\n", GENERATIVE)
    assert report.ok and "unreadable_line" in codes(report.warnings)
    warning = next(p for p in report.warnings if p.code == "unreadable_line")
    assert warning.position == 3 and "Error in file on line 3" in warning.message
    assert result.metrics["best_p"] == pytest.approx(100 * 3 / 5)


def test_a_file_without_any_answer_line_is_refused(split) -> None:
    report, _ = run(split, b"finished initializing\nbright.a 1 - smart\n", GENERATIVE)
    assert codes(report.errors) == ["no_answer_lines"] and report.errors[0].position == 1


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


def test_too_many_lines_is_refused_at_the_first_line_past_the_limit(split) -> None:
    raw = gzip.compress(b"\n" * (formats.MAX_LINES + 5))
    report, _ = run(split, raw, GENERATIVE)
    assert codes(report.errors) == ["too_many_lines"]
    assert report.errors[0].position == formats.MAX_LINES + 1
    # a file of exactly MAX_LINES lines is read
    report, _ = run(split, b"bright.a 1 :: smart\n" * formats.MAX_LINES, GENERATIVE)
    assert report.ok


def test_one_enormous_line_is_refused_not_scored(split) -> None:
    raw = b"RANKED\tbright.a 1" + b"\tsmart 1" * 300_000 + b"\n"
    report, _ = run(split, raw, RANKING)
    assert codes(report.errors) == ["line_too_long"]
    assert report.errors[0].position == 1 and "line 1 " in report.errors[0].message
    # within the line limit, the candidate limit still holds
    report, _ = run(split, b"RANKED\tbright.a 2\tvivid 1\nRANKED\tbright.a 1"
                    + b"\ta 1" * 5_001 + b"\n", RANKING)
    assert codes(report.errors) == ["too_many_candidates"] and report.errors[0].position == 2


def test_gzip_bomb_and_bad_gzip(split) -> None:
    lines = gzip.compress(b"x" * 99 + b"\n") * 1 + gzip.compress((b"x" * 199 + b"\n") * 300_000)
    report, _ = run(split, lines, RANKING)                      # 60 MB of text, 300,000 lines
    assert codes(report.errors) == ["file_too_large"]
    report, _ = run(split, gzip.compress(b"\n" * 60_000_000), RANKING)
    assert codes(report.errors) == ["too_many_lines"]           # before 60 MB are inflated
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
