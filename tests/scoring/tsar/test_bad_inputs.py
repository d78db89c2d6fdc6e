"""Bad TSAR-2022 files: each refusal or warning names its line, every limit is refused at the
first line past it, and what the script would crash on is a warning here."""

from __future__ import annotations

import gzip

import pytest

from leaderboard.scoring.families import FAMILIES
from leaderboard.scoring.lexsub.reader import MAX_LINE_CHARS
from tests.scoring.tsar.files import SYSTEM, write_tsar

FAMILY = FAMILIES["tsar2022"]


@pytest.fixture
def split(tmp_path):
    return FAMILY.prepare_files("en-test", write_tsar(tmp_path), name="bad", bootstrap=0)


def _check(split, raw: bytes, **limits):
    return FAMILY.validate(raw, split, track="generative", **limits)


def test_a_long_line_is_refused_at_that_line(split):
    raw = SYSTEM.encode() + b"The cat sat on the mat.\tsat\t" + b"x" * (MAX_LINE_CHARS + 1)
    report = _check(split, raw)
    assert [(p.code, p.position) for p in report.errors] == [("line_too_long", 4)]


def test_invalid_utf8_names_the_line_and_the_byte(split):
    raw = SYSTEM.encode().replace(b"noisy", b"no\xe9sy")
    report = _check(split, raw)
    assert [(p.code, p.position) for p in report.errors] == [("not_utf8", 3)]
    assert "byte 0xe9 at byte" in report.errors[0].message


def test_a_huge_file_and_a_gzip_bomb_stop_at_the_size_cap(split):
    report = _check(split, SYSTEM.encode() * 1000, max_bytes=10_000)
    assert [(p.code, p.message) for p in report.errors] == [
        ("file_too_large", "the file has 146,000 bytes; the limit is 10,000")]
    report = _check(split, gzip.compress(b"\n" * 50_000_000), max_bytes=1_000_000)
    assert [(p.code, p.message) for p in report.errors] == [
        ("file_too_large", "the file decompresses to more than 1,000,000 bytes")]
    report = _check(split, gzip.compress(b"\n" * 500_000))
    assert [(p.code, p.position) for p in report.errors] == [("too_many_lines", 400_001)]


def test_a_misspelt_sentence_names_the_instance_it_misses(split):
    raw = SYSTEM.replace("The cat sat on the mat.", "The cat sat on the rug.").encode()
    report = _check(split, raw)
    assert report.ok
    warning = next(p for p in report.warnings if p.code == "sentence_mismatch")
    assert warning.position == 1
    assert "'The cat sat on the mat.'" in warning.message
    assert "first differ at character 20 ('mat.' there, 'rug.' here)" in warning.message
    assert report.counts["missing"] == 1


def test_unknown_blank_repeated_and_tabless_lines(split):
    extra = "A sentence of no split.\tnothing\tzero\n"
    report = _check(split, (SYSTEM + "\n" + extra).encode())
    assert report.ok
    codes = {p.code: p.position for p in report.warnings}
    assert codes == {"blank_line": 4, "unknown_targets": 5}
    repeated = SYSTEM + "The cat sat on the mat.\tsat\trested\n"
    report = _check(split, repeated.encode())
    warning = next(p for p in report.warnings if p.code == "duplicate_instance")
    assert warning.position == 4 and "line 1" in warning.message
    # the last line counts, as in tsar_eval.py: 'rested' is a gold answer of the top set
    result = FAMILY.score(split, report, track="generative", bootstrap=0)
    assert result.metrics["acc@1@top1"] == 33.33   # 1/3, floored as tsar_eval.py prints it
    report = _check(split, (SYSTEM + "no tab on this line\n").encode())
    assert [(p.code, p.position) for p in report.errors] == [("unreadable_line", 4)]


def test_a_file_for_another_split_is_refused(split):
    report = _check(split, b"Uma frase.\tfrase\toracao\n")
    assert [p.code for p in report.errors] == ["no_instances"]


def test_crlf_and_a_bom_read_as_the_plain_file(split):
    plain = FAMILY.score(split, _check(split, SYSTEM.encode()), track="generative",
                         bootstrap=0)
    windows = "\ufeff" + SYSTEM.replace("\n", "\r\n")
    report = _check(split, windows.encode())
    assert report.ok and report.warnings == []
    assert FAMILY.score(split, report, track="generative", bootstrap=0).metrics == \
        plain.metrics


def test_only_the_first_misspelt_sentence_is_compared(split):
    # the comparison (difflib) ran for every line: 20,000 such lines took minutes
    line = "x" * 2000 + "\tsat\trested\n"
    report = _check(split, (line * 20_000).encode())
    assert [p.code for p in report.errors] == ["no_instances"]
    warning = next(p for p in report.warnings if p.code == "sentence_mismatch")
    assert "first differ at character 1" in warning.message
    assert "(20,000 in all, on lines 1, 2, 3" in warning.message
