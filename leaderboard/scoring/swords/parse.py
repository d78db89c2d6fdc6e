"""Reading an upload at bounded cost: capped gunzip, a structure budget, a typed decoder.

``json.loads`` builds whatever the text describes: a small gzipped file of ``{},{},...``
becomes gigabytes of dicts. Here, before anything is built, :func:`structure_units`
counts commas and brackets (an upper bound on the number of JSON values) and
:func:`long_stretch` finds the longest run without a double quote (a bound on any one string
or number) at C speed; the caller refuses a file over either budget. A file within them is
read by ``msgspec`` into exactly the submission schema: the top level as ``{key: raw text}``
(unknown keys' values are checked for syntax and skipped, never built; the sizes of
``"substitutes"`` and of the rest are checked here) and ``"substitutes"`` as
``{target id: [[substitute, score] | substitute, ...]}``, refused at the first value of
another shape. Only a file that does not fit the schema, and is small enough, is read again
by the lenient :func:`loads_lenient` (within the same budget) so that every problem can be
listed: that reader holds the text twice (bytes and ``str``) besides what it builds.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterator
from functools import cache

TYPE_CHECKING = False  # not typing's: a one-off `leaderboard score` should not pay for importing it
if TYPE_CHECKING:  # msgspec is imported to decode JSON: LS07/CoInCo's numpy-free scoring of
    import msgspec  # text files reads them through this module without it (nor gold's numpy)
GZIP_MAGIC = b"\x1f\x8b"  # gold.GZIP_MAGIC, not imported: gold imports numpy
_CHUNK = 1 << 16
_OUT_CHUNK = 1 << 20  # one decompress call's output: a bomb never inflates all at once


@cache
def _decoders() -> tuple:  # (top level, "substitutes", the flag), built once
    import msgspec
    return (msgspec.json.Decoder(dict[str, msgspec.Raw]),
            msgspec.json.Decoder(dict[str, list[tuple[str, float] | str]]),
            msgspec.json.Decoder(bool))
# One JSON string literal, escapes included: removing them leaves only structure.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')


class TooLarge(Exception):
    """The decompressed data would exceed the cap."""


#: gzip members one upload may hold. bgzip and pigz write one member per block of at most
#: 64 KiB of text, so the 200 MB decompression cap needs about 3,200; a file of thousands of
#: empty members (20 bytes each) is an attack on the per-member cost.
MAX_GZIP_MEMBERS = 10_000


class TooManyMembers(zlib.error):
    """More gzip members than :data:`MAX_GZIP_MEMBERS` (a ``zlib.error``, so every caller
    that refuses a bad gzip refuses this too)."""


def gunzip_capped(raw: bytes | bytearray, cap: int,
                  max_members: int = MAX_GZIP_MEMBERS) -> bytearray:
    """Decompress (possibly multi-member) gzip without ever holding more than ``cap`` bytes.

    Linear in the upload: the input is read through one memoryview and each member starts at
    an offset into it (copying "the rest" once per member made a file of many empty members
    quadratic). Returns the bytearray itself: copying it to ``bytes`` would double the peak.
    """
    out = bytearray()
    for piece in gunzip_chunks(raw, cap, max_members):
        out += piece
    return out


def gunzip_chunks(raw: bytes | bytearray, cap: int,
                  max_members: int = MAX_GZIP_MEMBERS) -> Iterator[bytes]:
    """The decompressed bytes of (possibly multi-member) gzip, at most 1 MiB at a time.

    A reader that stops early decompresses no further: a limit is refused at the first chunk
    past it, not after a full decode. Raises :class:`TooLarge` as soon as more than ``cap``
    bytes came out, :class:`TooManyMembers` and ``zlib.error`` as :func:`gunzip_capped` does.
    """
    view = memoryview(raw)
    start, members, total = 0, 0, 0
    while True:
        members += 1
        if members > max_members:
            raise TooManyMembers(f"more than {max_members:,} gzip members")
        d = zlib.decompressobj(wbits=31)
        pos = start
        while not d.eof:
            if d.unconsumed_tail:
                chunk = d.unconsumed_tail
            elif pos < len(view):
                chunk = view[pos:pos + _CHUNK]
                pos += len(chunk)
            else:
                raise zlib.error("truncated gzip stream")
            piece = d.decompress(chunk, min(_OUT_CHUNK, cap + 1 - total))
            total += len(piece)
            if total > cap:
                raise TooLarge
            if piece:
                yield piece
        # unused_data is the tail of the last chunk read, so the next member starts here.
        start = pos - len(d.unused_data)
        if bytes(view[start:start + 2]) != GZIP_MAGIC:  # trailing garbage is ignored
            return


def structure_units(data: bytes | bytearray) -> int:
    """Commas plus opening brackets: at least the number of JSON values ``data`` holds.

    Characters inside strings count too, so this over-estimates, never under-estimates.
    """
    return data.count(b",") + data.count(b"[") + data.count(b"{") + 1


def bounded_cost_problem(data: bytes | bytearray, max_structure: int,
                         max_token: int) -> tuple[str, str] | None:
    """(code, message) when ``data`` is over the structure budget or has a stretch longer
    than ``max_token`` without a double quote; None when reading it has a bounded cost."""
    units = structure_units(data)
    if units > max_structure:
        return ("too_many_values", f"the file has about {units:,} JSON values (commas and "
                f"brackets); the limit is {max_structure:,}. A submission needs one list per "
                "target and one pair or string per substitute")
    stretch = long_stretch(data, max_token)
    if stretch is not None:
        start, length = stretch
        return ("value_too_long", f"the file has {length:,} bytes in a row without a double "
                f"quote, from byte {start:,}: a string, number or blank space that long; the "
                f"limit is {max_token:,} bytes (target ids and substitutes are short)")
    return None


# The last double quote in a window that is not written as \" (escaped), and the next one.
# ``.*`` jumps to the window's end and backs up quote by quote in C. A quote after an escaped
# backslash (\\" closing a string) is taken as escaped too: that can only lengthen a stretch.
_LAST_QUOTE = re.compile(rb'.*"(?<!\\")', re.S)
_NEXT_QUOTE = re.compile(rb'"(?<!\\")')


def long_stretch(data: bytes | bytearray, limit: int) -> tuple[int, int] | None:
    """The first stretch of more than ``limit`` bytes with no unescaped double quote, as
    (start, length), or None.

    In JSON every string's contents and every gap between two strings (a number, whitespace,
    punctuation) is such a stretch, so with none longer than ``limit`` no single value msgspec
    builds is. The walk jumps from the last quote of one ``limit + 1``-byte window to the
    next, so it makes about ``len(data) / limit`` calls and reads each byte at most a few
    times, all inside ``re``; nothing is copied.
    """
    size, pos = len(data), 0
    while size - pos > limit:
        last = _LAST_QUOTE.match(data, pos, pos + limit + 1)
        if last is None:
            nxt = _NEXT_QUOTE.search(data, pos + limit + 1)
            return pos, (nxt.start() if nxt else size) - pos
        pos = last.end()
    return None


def _count_keys(data: bytes | bytearray | memoryview) -> int:
    """Object keys in well-formed JSON ``data``, duplicates included (strings removed first,
    a colon can only separate a key from its value)."""
    return _STRING.sub(b"", data).count(b":")


def _no_duplicate_keys(data: bytes | bytearray, top: dict[str, msgspec.Raw],
                       substitutes: dict[str, list]) -> bool:
    """True when neither the top level nor ``substitutes`` repeated a key in the text.

    msgspec keeps the last of duplicate keys silently, so keys are counted in the text. Fast
    test first: every key is followed by a colon, so colons in the text, less those written
    inside the (unique) keys and inside the other top-level values, bound the number of
    keys from above; equal to the number of unique keys means none was repeated. Otherwise
    (or when a colon might be written as an escape) strings are stripped and colons counted.
    """
    expected = len(top) + len(substitutes)
    others = [memoryview(v) for k, v in top.items() if k != "substitutes"]
    small = sum(len(v) for v in others) <= _OUT_CHUNK  # ignored values are copied to count
    if small and b"\\u003a" not in data and b"\\u003A" not in data:
        upper = (data.count(b":") - sum(k.count(":") for k in top)
                 - sum(k.count(":") for k in substitutes)
                 - sum(bytes(v).count(b":") for v in others))
        if upper == expected:
            return True
    return _count_keys(data) == expected + sum(_count_keys(v) for v in others)


class Typed:
    """A file that fits the schema: top-level raw values, substitutes, the flag (or None)."""

    def __init__(self, top: dict[str, msgspec.Raw], substitutes: dict[str, list],
                 lemmatized: bool | None):
        self.top = top
        self.substitutes = substitutes
        self.lemmatized = lemmatized


# Text outside the "substitutes" value (the flag, ignored keys, punctuation): ignored values
# are not built, but they are counted for duplicate keys and would keep a huge buffer alive.
MAX_OTHER_BYTES = 1 << 20


class OverBudget(Exception):
    """Reading the file would cost too much: ``args`` are (code, message)."""


def _check_budget(size: int, substitutes: int, limit: int) -> None:
    if substitutes > limit:
        raise OverBudget("substitutes_too_large", f"the \"substitutes\" object has "
                         f"{substitutes:,} bytes; the limit is {limit:,}")
    if size - substitutes > MAX_OTHER_BYTES:
        raise OverBudget("too_large_outside_substitutes", f"the file has {size - substitutes:,} "
                         "bytes outside the \"substitutes\" object (other keys are ignored); "
                         f"the limit is {MAX_OTHER_BYTES:,}")


def decode_typed(data: bytes | bytearray, max_substitutes_bytes: int | None = None,
                 problems: list[str] | None = None) -> Typed | None:
    """Read ``data`` into the schema; None when it does not fit (or has a duplicate key).

    With ``max_substitutes_bytes``, a ``"substitutes"`` value whose text is longer, or more
    than :data:`MAX_OTHER_BYTES` outside it, raises :class:`OverBudget` before it is decoded:
    what is built is about as large as its text, on top of the buffer holding the whole file.
    When ``problems`` is given, the reason a file does not fit is appended to it.
    """
    import msgspec
    top_decoder, substitutes_decoder, flag_decoder = _decoders()
    try:
        top = top_decoder.decode(data)
        if "substitutes" not in top:
            raise ValueError('the object has no "substitutes" key')
        if max_substitutes_bytes is not None:
            _check_budget(len(data), len(top["substitutes"]), max_substitutes_bytes)
        substitutes = substitutes_decoder.decode(top["substitutes"])
        flag = top.get("substitutes_lemmatized")
        lemmatized = None if flag is None else flag_decoder.decode(flag)
    except (msgspec.MsgspecError, ValueError, RecursionError) as exc:
        # Includes UnicodeDecodeError from a Raw value; the lenient reader names the problem.
        if problems is not None:
            problems.append(str(exc))
        return None
    if not _no_duplicate_keys(data, top, substitutes):
        if problems is not None:
            problems.append('a key appears more than once (at the top level or in "substitutes")')
        return None
    return Typed(top, substitutes, lemmatized)


def loads_lenient(text: str) -> tuple[object, dict[int, list[str]]]:
    """``json.loads`` (NaN and Infinity allowed) and, per object id, its duplicate keys.

    Raises ``ValueError``/``RecursionError`` like ``json.loads``. Only ever called on a file
    within the structure budget.
    """
    duplicates: dict[int, list[str]] = {}

    def hook(pairs: list[tuple[str, object]]) -> dict:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            duplicates[id(obj)] = [k for k, _ in pairs if k in seen or seen.add(k)]
        return obj

    return json.loads(text, object_pairs_hook=hook), duplicates


def gunzip_refusal(exc: Exception, max_bytes: int) -> tuple[str, str]:
    """The refusal (code, message) of an error raised while gunzipping an upload."""
    if isinstance(exc, TooLarge):
        return ("file_too_large", f"the file decompresses to more than {max_bytes:,} bytes")
    if isinstance(exc, TooManyMembers):
        return ("too_many_gzip_members", f"the file is gzip with {exc}; gzip, pigz and bgzip "
                "write far fewer: compress the file once, as one stream")
    return ("bad_gzip", f"the file looks gzipped but cannot be decompressed: {exc}")


def size_refusal(raw: bytes | bytearray, max_bytes: int) -> tuple[str, str] | None:
    """The refusal of an upload larger than ``max_bytes`` as sent, or None."""
    if len(raw) > max_bytes:
        return ("file_too_large", f"the file has {len(raw):,} bytes; the limit is "
                f"{max_bytes:,}")
    return None


def open_upload(raw: bytes | str, max_bytes: int
                ) -> tuple[bytes | bytearray, tuple[str, str] | None]:
    """The upload's bytes, gunzipped (linear time, at most ``max_bytes``), or the refusal
    (code, message): too large, too many gzip members, not readable gzip."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    refusal = size_refusal(raw, max_bytes)
    if refusal is not None:
        return raw, refusal
    if raw[:2] == GZIP_MAGIC:
        try:
            raw = gunzip_capped(raw, max_bytes)
        except (TooLarge, zlib.error) as exc:
            return raw, gunzip_refusal(exc, max_bytes)
    return raw, None
