"""An uploaded answer file read as a stream: every limit is refused at the first byte past it.

The text formats (RANKED, ``.best``, ``.oot``) are read line by line from the gunzipped bytes,
1 MiB at a time, so a file is never decoded and split whole before its limits are checked:
a file of ``;`` alone, tiny gzipped and huge unzipped, is refused as a line over
:data:`MAX_LINE_CHARS` after its first megabyte, a file of blank lines at line
:data:`MAX_LINES` + 1, a gzip bomb at the first chunk past the size cap. Only JSON, which is
parsed as a whole, is read to the end first (its own budgets are in
:mod:`leaderboard.scoring.swords.parse`).

Text is read byte for byte (latin-1), as perl and Python 2 read it.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

from leaderboard.scoring.swords.parse import (
    GZIP_MAGIC,
    TooLarge,
    gunzip_chunks,
    gunzip_refusal,
    size_refusal,
)

#: Lines in one file: 25 times CoInCo's 15,415 instances.
MAX_LINES = 400_000
#: Characters (bytes) in one line. Real lines are far shorter: an LS07 RANKED line of its
#: largest pool (42 candidates) has about 1 KB, a CoInCo one (245) about 8 KB, a .best or
#: .oot line a few hundred bytes; 5,000 candidates (the limit) of 50 bytes each still fit.
MAX_LINE_CHARS = 256 * 1024
_PIECE = 1 << 20


class Refused(Exception):
    """The upload is refused: ``code``, ``message`` and the line it stopped at (or None)."""

    def __init__(self, code: str, message: str, position: int | None = None):
        super().__init__(code, message, position)
        self.code, self.message, self.position = code, message, position


def _slices(raw: bytes | bytearray) -> Iterator[bytes]:
    view = memoryview(raw)
    for start in range(0, len(view), _PIECE):
        yield bytes(view[start:start + _PIECE])


class Upload:
    """An upload's bytes (gunzipped when they are gzip) as a stream of chunks.

    :meth:`head` peeks without consuming; then either :meth:`lines` or :meth:`read_all`.
    Raises :class:`Refused` for the size cap, too many gzip members or unreadable gzip, at
    the chunk where it is found.
    """

    def __init__(self, raw: bytes | bytearray | str, max_bytes: int):
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
        refusal = size_refusal(raw, max_bytes)
        if refusal is not None:
            raise Refused(*refusal)
        self._raw, self._max_bytes = raw, max_bytes
        self._gzip = raw[:2] == GZIP_MAGIC
        self._chunks = gunzip_chunks(raw, max_bytes) if self._gzip else _slices(raw)
        self._head: list[bytes] = []

    def _next(self) -> bytes | None:
        try:
            return next(self._chunks)
        except StopIteration:
            return None
        except (TooLarge, zlib.error) as exc:
            raise Refused(*gunzip_refusal(exc, self._max_bytes)) from None

    def head(self, size: int) -> bytes:
        """The first ``size`` bytes (fewer in a shorter file), left to be read again."""
        have = sum(len(c) for c in self._head)
        while have < size:
            chunk = self._next()
            if chunk is None:
                break
            self._head.append(chunk)
            have += len(chunk)
        return b"".join(self._head)[:size]

    def chunks(self) -> Iterator[bytes]:
        """Every chunk, the peeked ones first."""
        while self._head:
            yield self._head.pop(0)
        while (chunk := self._next()) is not None:
            yield chunk

    def read_all(self) -> bytes | bytearray:
        """The whole (gunzipped) file, within the size cap."""
        if not self._gzip:
            return self._raw
        out = bytearray()
        for chunk in self.chunks():
            out += chunk
        return out

    def lines(self, max_lines: int = MAX_LINES,
              max_chars: int = MAX_LINE_CHARS) -> Iterator[tuple[int, str, bool]]:
        """``(number, text, ended)`` per line, from 1: the text without its ``\\n``, and
        whether it had one (the last line may not). Raises :class:`Refused` at line
        ``max_lines + 1`` and as soon as a line is longer than ``max_chars``, before that
        line is given out."""
        number, pending = 0, ""
        for chunk in self.chunks():
            parts = (pending + chunk.decode("latin-1")).split("\n")
            pending = parts.pop()
            for text in parts:
                number += 1
                _check(number, len(text), max_lines, max_chars)
                yield number, text, True
            if len(pending) > max_chars:
                _check(number + 1, len(pending), max_lines, max_chars)
        if pending:
            _check(number + 1, len(pending), max_lines, max_chars)
            yield number + 1, pending, False


def _check(number: int, length: int, max_lines: int, max_chars: int) -> None:
    if number > max_lines:
        raise Refused("too_many_lines", f"the file has more than {max_lines:,} lines (the "
                      f"limit); reading stopped at line {number:,}", number)
    if length > max_chars:
        raise Refused("line_too_long", f"line {number:,} is longer than {max_chars:,} "
                      "characters (the limit; real answer lines have at most a few KB); "
                      "reading stopped there", number)
