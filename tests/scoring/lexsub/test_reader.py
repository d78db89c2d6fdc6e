"""Text answer files are read as a stream: a limit is refused at the first line past it.

How far the reader went is shown without a clock: the files below are gzip streams cut off
after the point where a limit is crossed. A reader that decoded the whole file first would
stop at the cut and answer ``bad_gzip``; the streamed reader answers the limit.
"""

from __future__ import annotations

import gzip
import random
import zlib

import pytest

from leaderboard.scoring.lexsub import reader
from leaderboard.scoring.swords.parse import gunzip_capped, gunzip_chunks

from .conftest import GENERATIVE, RANKING, run, tiny_split


def _cut(text: bytes) -> bytes:
    """``text`` gzipped, without the last eighth of the stream: unreadable to its end."""
    whole = gzip.compress(text, compresslevel=1)
    return whole[:len(whole) * 7 // 8]


def _lines(raw: bytes, **limits) -> list[tuple[int, str, bool]]:
    return list(reader.Upload(raw, 10**9).lines(**limits))


@pytest.fixture
def split(tmp_path):
    return tiny_split(tmp_path, ["bright.a 1 :: smart 3;clever 2;"])


def test_the_cut_stream_is_bad_gzip_when_read_whole() -> None:
    with pytest.raises(zlib.error):
        gunzip_capped(_cut(b";" * 20_000_000), 10**9)


def test_200_mb_of_semicolons_stop_at_the_first_megabyte(split) -> None:
    """A line of ';' alone, far past MAX_LINE_CHARS, is refused as too long at its first
    line, without the whole file being decoded first."""
    report, _ = run(split, _cut(b";" * 20_000_000), GENERATIVE)
    assert [(p.code, p.position) for p in report.errors] == [("line_too_long", 1)]


def test_too_many_lines_stops_at_the_first_line_past_the_limit(split) -> None:
    raw = _cut(b"bright.a 1 :: smart\n" * (reader.MAX_LINES + 200_000))
    report, _ = run(split, raw, GENERATIVE)
    assert [(p.code, p.position) for p in report.errors] == [
        ("too_many_lines", reader.MAX_LINES + 1)]


def test_a_ranked_line_too_long_stops_there(split) -> None:
    raw = _cut(b"RANKED\tbright.a 1\tsmart 1\nRANKED\tbright.a 1" + b"\tx 1" * 3_000_000)
    report, _ = run(split, raw, RANKING)
    assert [(p.code, p.position) for p in report.errors] == [("line_too_long", 2)]


def test_the_size_cap_is_refused_at_the_first_chunk_past_it(split) -> None:
    raw = _cut((b"bright.a 1 :: smart;" * 10 + b"\n") * 100_000)      # 20 MB of text
    report, _ = run(split, raw, GENERATIVE, max_bytes=5_000_000)
    assert [p.code for p in report.errors] == ["file_too_large"]


def test_lines_are_the_file_split_at_newlines_across_chunks() -> None:
    rng = random.Random(7)
    text = "".join(rng.choice(["a", "b", " ", "\r", "\t", "\xe9"]) * rng.randint(1, 9000)
                   + "\n" * rng.randint(0, 3) for _ in range(2_000))
    raw = text.encode("latin-1")
    pieces = text.split("\n")
    expected = [(i, t, i < len(pieces)) for i, t in enumerate(pieces, start=1)]
    if pieces[-1] == "":
        expected.pop()
    member = gzip.compress(raw[:len(raw) // 3]) + gzip.compress(raw[len(raw) // 3:])
    for upload in (raw, gzip.compress(raw), member):
        assert _lines(upload) == expected


def test_the_head_is_read_again_and_a_missing_last_newline_is_told() -> None:
    upload = reader.Upload(gzip.compress(b"one\ntwo"), 100)
    assert upload.head(2) == b"on"
    assert list(upload.lines()) == [(1, "one", True), (2, "two", False)]


def test_limits_exactly_at_the_limit_pass() -> None:
    assert _lines(b"ab\ncd\n", max_lines=2, max_chars=2) == [(1, "ab", True), (2, "cd", True)]
    with pytest.raises(reader.Refused) as refused:
        _lines(b"ab\ncd\ne", max_lines=2, max_chars=2)
    assert (refused.value.code, refused.value.position) == ("too_many_lines", 3)
    with pytest.raises(reader.Refused) as refused:
        _lines(b"ab\ncde\n", max_lines=5, max_chars=2)
    assert (refused.value.code, refused.value.position) == ("line_too_long", 2)


def test_gunzip_chunks_equal_gunzip_capped() -> None:
    raw = gzip.compress(bytes(range(256)) * 20_000) + gzip.compress(b"tail")
    assert b"".join(gunzip_chunks(raw, 10**8)) == gunzip_capped(raw, 10**8)
    assert max(len(c) for c in gunzip_chunks(raw, 10**8)) <= 1 << 20
