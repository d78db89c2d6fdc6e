"""TSAR-2022 answer files: the official TSV, read as a bounded stream, or the site's JSON.

TSV: ``sentence<TAB>complex word<TAB>substitute 1<TAB>...``, best first, one instance a line,
UTF-8, plain or gzipped. Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (Python's text mode, as the
scorer reads them); each is stripped as a whole and cut at tabs, each substitute stripped.
The limits of :mod:`leaderboard.scoring.lexsub.reader` apply (line length, line count, size,
gzip), each refused at the first line past it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field

from leaderboard.scoring.lexsub.formats import Notes
from leaderboard.scoring.swords.validate import ValidationReport
from leaderboard.scoring.tsar.data import TsarSplit, fields, instance_key

TSV, JSON = "tsv", "json"
BOM = "\ufeff"


def detect(head: bytes) -> str:
    """JSON when the first non-blank byte opens an object or array on a line without a tab
    (a TSV sentence may start with a bracket; JSON holds no raw tab inside a string)."""
    first = head.lstrip().split(b"\n", 1)[0]
    return JSON if first[:1] in (b"{", b"[") and b"\t" not in first else TSV


@dataclass
class Answers:
    """A parsed file: per instance key, its substitutes in order (stripped, not yet
    deduplicated) and the line that gave them (0 for JSON)."""

    kind: str
    lists: dict[str, list[str]] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    unknown: int = 0
    substitutes_lemmatized: bool | None = None

    @property
    def entries(self) -> dict[str, list[tuple[str, float]]]:
        """Key -> substitutes with descending pseudo-scores (what counts as answered)."""
        return {k: [(s, float(-i)) for i, s in enumerate(v)] for k, v in self.lists.items()}


def _decoded(number: int, text: str, report: ValidationReport) -> str | None:
    """The line's UTF-8 text (``text`` holds its bytes as latin-1), or None with an error."""
    raw = text.encode("latin-1")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        report.error("not_utf8", f"line {number:,} is not UTF-8 text (byte 0x{raw[exc.start]:02x} "
                     f"at byte {exc.start + 1:,} of the line): TSAR-2022 files are UTF-8, so "
                     "accents must be written as UTF-8 (save the file as UTF-8)",
                     position=number)
        return None


def _nearest(split: TsarSplit, sentence: str, word: str) -> str:
    """Which instance of ``word`` a sentence was meant for, and where it differs."""
    candidates = split.by_word[word]
    best = max(candidates, key=lambda t: difflib.SequenceMatcher(
        None, t.sentence.strip()[:400], sentence[:400], autojunk=False).ratio())
    theirs = best.sentence.strip()
    at = next((i for i, (a, b) in enumerate(zip(theirs, sentence, strict=False))
                   if a != b),
              min(len(theirs), len(sentence)))
    return (f"the nearest instance of {word!r} has the sentence {theirs[:80]!r}"
            f"{'...' if len(theirs) > 80 else ''}; they first differ at character {at + 1:,} "
            f"({theirs[at:at + 12]!r} there, {sentence[at:at + 12]!r} here)")


def parse_tsv(lines: Iterable[tuple[int, str, bool]], split: TsarSplit,
              report: ValidationReport, max_entries: int) -> Answers:
    """The instances of a TSV file (``lines`` as :meth:`.reader.Upload.lines` gives them).

    A line for an instance not in the split is ignored with a warning (the scorer stops with
    a KeyError there); so is a blank line (an IndexError there). A repeated instance: its
    last line counts, as in the scorer. A line without a tab, or not UTF-8, is an error."""
    answers, notes = Answers(TSV), Notes()
    for number, text, _ in lines:
        decoded = _decoded(number, text, report)
        if decoded is None:
            continue
        if number == 1:
            decoded = decoded.removeprefix(BOM)
        pieces = decoded.split("\r")
        if len(pieces) > 1 and not pieces[-1]:
            pieces.pop()  # the "\r" of a "\r\n" line end
        for piece in pieces:
            _line(number, piece, split, answers, notes, report, max_entries)
    notes.flush(report)
    return answers


def _line(number: int, text: str, split: TsarSplit, answers: Answers, notes: Notes,
          report: ValidationReport, max_entries: int) -> None:
    if not text.strip():
        notes.add("blank_line", number, "line {number:,} is blank; it is skipped "
                  "(tsar_eval.py stops with an IndexError there)")
        return
    parts = fields(text)
    if len(parts) < 2:
        report.error("unreadable_line", f"line {number:,} has no tab: each line is "
                     "sentence<TAB>complex word<TAB>substitute 1<TAB>..., best first",
                     position=number)
        return
    if len(parts) - 2 > max_entries:
        report.error("too_many_substitutes", f"line {number:,} has {len(parts) - 2:,} "
                     f"substitutes (the limit is {max_entries:,})", position=number)
        return
    key = instance_key(parts[0], parts[1])
    if key not in split.target_index:
        answers.unknown += 1
        word, sentence = parts[1].strip(), parts[0].strip()
        if word in split.by_word:
            # only the first one is described: the comparison is not for every line of a file
            hint = "" if "sentence_mismatch" in notes else _nearest(split, sentence, word)
            notes.add("sentence_mismatch", number, "line {number:,}: no instance of this "
                      "split has this sentence with the complex word {word!r}: {hint}; the "
                      "line is ignored", key, word=word, hint=hint)
        else:
            notes.add("unknown_targets", number, "line {number:,}: the complex word {word!r} "
                      "with this sentence is not an instance of this split; the line is "
                      "ignored (tsar_eval.py stops with a KeyError there)", key, word=word)
        return
    if key in answers.lists:
        notes.add("duplicate_instance", number, "line {number:,} repeats the instance of line "
                  "{first:,} ({word!r}); the last line counts, as in tsar_eval.py", key,
                  first=answers.lines[key], word=parts[1].strip())
    answers.lists[key] = [item.strip() for item in parts[2:]]
    answers.lines[key] = number
