"""Melamud's RANKED lines, read as ``lst_gap.py GOLD RANKED OUT no-mwe`` reads them.

``RANKED<TAB>lemma.pos ID<TAB>cand score<TAB>cand score...``: the id is the second field
(blanks around it removed); each non-empty later field is split at its last space (the last
one keeps the line's newline, as a Python 2 file line does); its score is read with Python 2's
``float``, whose grammar is not Python 3's:

* accepted: ``1``, ``-0.5``, ``.5``, ``5.``, ``1e-3``, ``inf``, ``-inf``, ``infinity``, ``nan``
  (any case), blanks around (space, tab, CR, LF, FF, VT);
* refused: ``1_0`` (Python 3 reads 10.0), non-ASCII digits and other blanks (Python 3 strips
  U+0085, U+00A0 and U+001C-U+001F), no score at all.

A field whose score is refused is dropped with a warning, as lst_gap.py drops it after
printing "Error appending" (a multiword or hyphenated candidate is dropped before its score is
read, without a word, as no-mwe does); the rest of the line is scored. A repeated id: the last
line counts. A non-blank line without a second field is refused (lst_gap.py stops there).

The usual file (:func:`parse_plain`) is read as a whole at C speed: its fields turned into one
JSON document that ``msgspec`` reads into the same (candidate, score) tuples. JSON's numbers
(``-?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?``) are a subset of what Python 2's ``float`` reads,
both correctly rounded, so each score is the same double; a file that is not of that shape
fails to decode (or is set aside before) and is read line by line as above.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from leaderboard.scoring.lexsub.formats import RANKED, Answers, Notes
from leaderboard.scoring.lexsub.gap import is_mwe
from leaderboard.scoring.validate import ValidationReport

#: What Python 2's ``str.strip()`` and ``float`` take as blanks (C ``isspace``).
PY2_BLANKS = " \t\n\r\x0b\x0c"
_PY2_FLOAT = re.compile(r"[ \t\n\r\x0b\x0c]*[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
                        r"|inf(?:inity)?|nan)[ \t\n\r\x0b\x0c]*", re.ASCII | re.IGNORECASE)
# Where Python 3's float reads what Python 2's refuses, among latin-1 characters: the
# underscore and the blanks only Python 3 strips. A line without them is read at C speed.
_PY3_ONLY = re.compile("[_\x1c-\x1f\x85\xa0]")


def py2_float(text: str) -> float | None:
    """Python 2's ``float(text)`` on the bytes ``text`` stands for (latin-1), or None where
    it raises ``ValueError``."""
    if _PY2_FLOAT.fullmatch(text) is None:
        return None
    return float(text)


#: After every space became ``",`` (JSON's end of a string and a comma), the ones that were
#: not the space before a score are put back as ``\u0020`` (a space in a JSON string, and
#: invalid outside one, so a space after a score cannot pass as JSON's blank). The usual
#: case first: a space followed by what cannot start a number (``most talented``); then,
#: where that document does not decode, the exact rule: a space is the one before a score
#: when it is its field's last and what follows could be a JSON number up to the field's
#: end (``past 7 day 0.5``). A space right before a field's end is never put back (``a 1
#: \t``: its score is refused; the document is invalid there, so the file is read line by
#: line).
_INNER_SPACES = (re.compile('",(?=[^-0-9\t\n\r])'),
                 re.compile('",(?![-0-9][^\t\n"]*(?:[\t\n]|\\Z)|[\t\n\r]|\\Z)'))
# "-0" (not "-0.", "-0e"): float reads -0.0, msgspec 0.0 (the sign is lost on an integer).
_NEGATIVE_ZERO = re.compile("[ ]-0(?![.eE])")


#: The fields of about this many characters are turned into one JSON document at a time.
_BLOCK_CHARS = 1 << 21


def _decode_block(rests: list[str], parsed: list, max_entries: int) -> bool:
    """The fields of some lines (``rests``) decoded onto ``parsed``; False where they are not
    of the usual shape or a line has over ``max_entries`` candidates."""
    # a candidate's backslashes and quotes escaped, so that every '"' is the document's
    text = "\n".join(rests).replace("\\", "\\\\").replace('"', "\\u0022").replace(" ", '",')
    block = _decode(text, len(rests), text.count("\t") + len(rests))
    if block is None or max(map(len, block)) > max_entries:
        return False
    parsed += block
    return True


def _decode(text: str, lines: int, fields: int) -> list | None:
    """``text`` (a file's fields, each space as ``",``) read as JSON: ``lines`` lists of
    (candidate, score), ``fields`` in all; None where it does not read so."""
    decoder, failure = _plain_decoder()
    for inner in _INNER_SPACES:
        try:
            parsed = decoder.decode('[[["' + inner.sub("\\\\u0020", text)
                                    .replace("\t", '],["').replace("\n", ']],[["') + ']]]')
        except failure:
            continue
        # as many lines and fields (belt and braces: a bracket after a score fails above)
        return parsed if len(parsed) == lines and sum(map(len, parsed)) == fields else None
    return None


@lru_cache(maxsize=1)
def _plain_decoder():
    import msgspec  # only here: a one-off process on other files does not import it

    return msgspec.json.Decoder(list[list[tuple[str, float]]]), msgspec.DecodeError


def parse_plain(text: str, max_entries: int, max_lines: int,
                max_chars: int) -> Answers | None:
    """What :func:`parse_ranked` reads from ``text`` (the whole file) when every line is
    ``anything<TAB>key<TAB>cand score<TAB>...`` (or has no field), with distinct keys, a JSON
    number after each field's last space and nothing after it but a carriage return, no
    control character in a candidate, within the limits; None for any other file (nothing
    is reported: the caller reads it line by line)."""
    if " -0" in text and _NEGATIVE_ZERO.search(text):
        return None
    lines = text.split("\n")
    del text  # (the caller keeps no reference: a copy of the file fewer from here)
    if lines[-1] == "":
        lines.pop()
    if len(lines) > max_lines or max(map(len, lines), default=0) > max_chars:
        return None
    keys, has, parsed, rests, size = [], [], [], [], 0
    for line in lines:
        parts = line.split("\t", 2)
        if len(parts) < 2:
            return None
        keys.append(parts[1].strip(PY2_BLANKS))
        has.append(len(parts) == 3)
        if len(parts) == 3:
            rests.append(parts[2])
            size += len(parts[2])
            if size > _BLOCK_CHARS:  # decoded a block at a time: its copies stay small
                if not _decode_block(rests, parsed, max_entries):
                    return None
                rests, size = [], 0
    if rests and not _decode_block(rests, parsed, max_entries):
        return None
    if not all(keys) or len(set(keys)) != len(keys):
        return None
    answers = Answers(RANKED)
    found = iter(parsed)
    answers.ranked = {key: next(found) if given else []
                      for key, given in zip(keys, has, strict=True)}
    return answers


def parse_ranked(lines: Iterable[tuple[int, str, bool]], report: ValidationReport,
                 max_entries: int) -> Answers:
    """RANKED lines -> instance key -> [(candidate, score)] (a repeated key: the last line);
    ``lines`` as :meth:`.reader.Upload.lines` gives them."""
    answers = Answers(RANKED)
    notes = Notes()
    seen: dict[str, int] = {}
    for number, line, ended in lines:
        if not line.strip(PY2_BLANKS):
            continue
        segments = line.split("\t")
        key = segments[1].strip(PY2_BLANKS) if len(segments) > 1 else ""
        if not key:
            report.error("unreadable_line", f"line {number:,}: expected 'RANKED<TAB>lemma.pos "
                         "ID<TAB>candidate score...'", position=number)
            continue
        fields = segments[2:]
        if ended and fields:
            fields[-1] += "\n"
        fields = [f for f in fields if f]
        if len(fields) > max_entries:
            report.error("too_many_candidates", f"line {number:,} ({key}): {len(fields):,} "
                         f"scored candidates, at most {max_entries:,}", key, number)
            continue
        if key in seen:
            notes.add("duplicate_instance", number, "line {number:,}: {key} was already "
                      "given on line {first:,}; the last one is scored, as lst_gap.py does",
                      key, first=seen[key])
        seen[key] = number
        answers.ranked[key] = _scored(line, fields, number, key, notes)
    notes.flush(report)
    return answers


def _scored(line: str, fields: list[str], number: int, key: str,
            notes: Notes) -> list[tuple[str, float]]:
    """A line's (candidate, score) pairs, each field split at its last space.

    Comprehensions on the usual path (800,000 fields on CoInCo): where the line holds none of
    the characters on which the two Pythons differ, Python 3's ``float`` is Python 2's; one
    field at a time, with the warnings, only when a score is refused."""
    cuts = [f.rfind(" ") for f in fields]
    if _PY3_ONLY.search(line) is None:
        try:
            return [(f[:i], float(f[i:])) for f, i in zip(fields, cuts, strict=True)]
        except ValueError:
            pass
    kept = []
    for f, i in zip(fields, cuts, strict=True):
        score = py2_float(f[i:])
        if score is not None:
            kept.append((f[:i], score))
        elif is_mwe(f[:i]):
            continue
        elif not f.strip(PY2_BLANKS):
            notes.add("blank_entry", number, "line {number:,} ({key}): an empty entry (a tab "
                      "followed by nothing but blanks, as in a line that ends in a tab before "
                      "its CRLF) is ignored; lst_gap.py prints 'Error appending' for it and "
                      "ignores it too", key)
        else:
            notes.add("bad_score", number, "line {number:,} ({key}): {field!r} has no score "
                      "after its last space that Python 2's float reads (none, '1_0', a "
                      "non-ASCII digit...): the candidate is dropped, as lst_gap.py drops it "
                      "('Error appending')", key, field=f.strip(PY2_BLANKS))
    return kept
