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
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from leaderboard.scoring.lexsub.formats import RANKED, Answers, Notes
from leaderboard.scoring.lexsub.gap import is_mwe
from leaderboard.scoring.swords.validate import ValidationReport

#: What Python 2's ``str.strip()`` and ``float`` take as blanks (C ``isspace``).
PY2_BLANKS = " \t\n\r\x0b\x0c"
_PY2_FLOAT = re.compile(r"[ \t\n\r\x0b\x0c]*[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
                        r"|inf(?:inity)?|nan)[ \t\n\r\x0b\x0c]*", re.ASCII | re.IGNORECASE)
# Where Python 3's float reads what Python 2's refuses, among latin-1 characters: the
# underscore and the blanks only Python 3 strips. A line without them is read at C speed.
_PY3_ONLY = re.compile("[_\x1c-\x1f\x85\xa0]")
#: Distinct candidates a file's reader keeps one str of: real files name tens of thousands;
#: past this (a file of strings that never repeat) the table stops growing, as it would save
#: nothing and cost its entries.
MAX_SHARED_NAMES = 500_000


def py2_float(text: str) -> float | None:
    """Python 2's ``float(text)`` on the bytes ``text`` stands for (latin-1), or None where
    it raises ``ValueError``."""
    if _PY2_FLOAT.fullmatch(text) is None:
        return None
    return float(text)


def parse_ranked(lines: Iterable[tuple[int, str, bool]], report: ValidationReport,
                 max_entries: int) -> Answers:
    """RANKED lines -> instance key -> [(candidate, score)] (a repeated key: the last line);
    ``lines`` as :meth:`.reader.Upload.lines` gives them."""
    answers = Answers(RANKED)
    notes = Notes()
    seen: dict[str, int] = {}
    # one str per distinct candidate in the whole file: lines of one lemma rank the same
    # pool, and a file of millions of fields holds few distinct names
    names: dict[str, str] = {}
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
        answers.ranked[key] = _scored(line, fields, number, key, notes, names)
    notes.flush(report)
    return answers


def _scored(line: str, fields: list[str], number: int, key: str, notes: Notes,
            names: dict[str, str]) -> list[tuple[str, float]]:
    """A line's (candidate, score) pairs, each field split at its last space; each
    candidate the one str of ``names`` (a candidate seen first here is added while the
    table is under :data:`MAX_SHARED_NAMES`).

    Comprehensions on the usual path (800,000 fields on CoInCo): where the line holds none of
    the characters on which the two Pythons differ, Python 3's ``float`` is Python 2's; one
    field at a time, with the warnings, only when a score is refused."""
    cuts = [f.rfind(" ") for f in fields]
    name = names.setdefault if len(names) < MAX_SHARED_NAMES else names.get
    if _PY3_ONLY.search(line) is None:
        try:
            return [(name(c := f[:i], c), float(f[i:])) for f, i in zip(fields, cuts,
                                                                         strict=True)]
        except ValueError:
            pass
    kept = []
    for f, i in zip(fields, cuts, strict=True):
        score = py2_float(f[i:])
        if score is not None:
            kept.append((name(c := f[:i], c), score))
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
