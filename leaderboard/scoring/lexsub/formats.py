"""Answer files for LS07 and CoInCo, their format detected from the content.

* Melamud's RANKED lines: ``RANKED<TAB>lemma.pos ID<TAB>cand score<TAB>cand score...``
  (read in :mod:`.ranked`);
* score.pl's ``.best`` lines ``lemma.pos ID :: a;b`` and ``.oot`` lines ``lemma.pos ID ::: a;b``,
  or both kinds in one file (a ``.best`` and ``.oot`` pair: ``cat run.best run.oot``);
* this site's JSON, ``{"substitutes": {"lemma.pos ID": [[cand, score], ...]}}``.

Plain or gzipped. Text is read byte for byte (latin-1), as perl and Python 2 read it, one line
at a time (:mod:`.reader`); JSON strings are turned into the same bytes (UTF-8) so that both
compare with the gold alike. The field's own files go in as its scripts take them: a line
score.pl or lst_gap.py skips with a message is skipped with a warning naming it; only what
they cannot score at all is refused. The family's card (README.md here) lists both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from leaderboard.scoring.lexsub.lines import LineMatch, match_answer_line, match_kind, match_line
from leaderboard.scoring.lexsub.reader import MAX_LINE_CHARS, MAX_LINES
from leaderboard.scoring.swords.validate import Problem, ValidationReport

__all__ = ["JSON", "LINES", "MAX_LINES", "MAX_LINE_CHARS", "RANKED", "Answers", "Notes",
           "detect", "line_answers", "line_key", "line_match", "lines_answers", "parse_lines"]

RANKED, LINES, JSON = "ranked", "lines", "json"
#: score.pl's "this line is not blank" (perl's ASCII ``\s``)
_NON_BLANK = re.compile(r"\S", re.ASCII)
#: Line numbers a gathered warning lists after its first line.
LINES_LISTED = 10


class Answers:
    """A parsed answer file: scored rankings (RANKED/JSON) or score.pl answer lines."""

    __slots__ = ("kind", "ranked", "best_lines", "oot_lines", "substitutes_lemmatized",
                 "distinct", "_lines_entries", "_line_keys", "_matches")

    def __init__(self, kind: str, ranked: dict[str, list[tuple[str, float]]] | None = None,
                 best_lines: list[tuple[int, str]] | None = None,
                 oot_lines: list[tuple[int, str]] | None = None,
                 substitutes_lemmatized: bool | None = None) -> None:
        self.kind = kind
        self.ranked = {} if ranked is None else ranked
        self.best_lines = [] if best_lines is None else best_lines
        self.oot_lines = [] if oot_lines is None else oot_lines
        self.substitutes_lemmatized = substitutes_lemmatized
        #: instances whose ranking gives no candidate twice, as the coverage check finds them
        self.distinct: set[str] = set()
        #: entries of the LINES kind, computed once: (numbers of lines when computed, entries)
        self._lines_entries: tuple | None = None
        #: :attr:`line_keys` likewise (:func:`parse_lines` gathers them as it reads the lines)
        self._line_keys: tuple | None = None
        #: kind -> (the lines matched, their matches): :meth:`matches`
        self._matches: dict = {}

    def matches(self, kind: str) -> list[LineMatch | None]:
        """score.pl's match of ``kind`` on each line of that kind, in order: as
        :func:`parse_lines` found them (each later pass would match every line again),
        else matched now."""
        lines = self.best_lines if kind == "best" else self.oot_lines
        found = self._matches.get(kind)
        if found is None or found[0] is not lines or len(found[1]) != len(lines):
            found = self._matches[kind] = (lines, [match_line(text, kind) for _, text in lines])
        return found[1]

    @property
    def line_keys(self) -> set[str]:
        """Instance keys that have a .best or .oot line (blank answers or not)."""
        size = (len(self.best_lines), len(self.oot_lines))
        if self._line_keys is None or self._line_keys[0] != size:
            self._line_keys = (size, {_key(text, line_match(text))
                                      for _, text in self.best_lines + self.oot_lines})
        return set(self._line_keys[1])

    @property
    def entries(self) -> dict[str, list[tuple[str, float]]]:
        """Instance key -> answers in order (what counts as "answered")."""
        if self.kind != LINES:
            return self.ranked
        size = (len(self.best_lines), len(self.oot_lines))
        if self._lines_entries is None or self._lines_entries[0] != size:
            firsts: dict[str, str] = {}
            for _, text in self.best_lines + self.oot_lines:
                m = line_match(text)
                firsts.setdefault(_key(text, m), m.answers)
            self._set_entries(firsts)
        return self._lines_entries[1]

    def _set_entries(self, firsts: dict[str, str]) -> None:
        """Entries from each key's first answer part (.best lines before .oot ones)."""
        out = {}
        for key, text in firsts.items():
            answers = [a for a in text.split(";") if a.strip()]
            out[key] = [(a, float(-i)) for i, a in enumerate(answers)]
        self._lines_entries = ((len(self.best_lines), len(self.oot_lines)), out)


def line_match(text: str) -> LineMatch | None:
    """score.pl's match of an answer line: the .oot one, else the .best one, else None."""
    found = match_answer_line(text)
    return None if found is None else found[1]


def line_key(text: str) -> str:
    """``lemma.pos ID`` of a matched answer line, the lemma with whatever precedes the match:
    score.pl's unanchored pattern reads CoInCo's ``e commerce.J 125`` as ``commerce.J 125``
    (it keys items by the id alone), but the instance is ``e commerce.J 125``."""
    return _key(text, line_match(text))


def _key(text: str, m: LineMatch) -> str:
    return f"{text[:m.lemma_end].strip()} {m.item}"


def line_answers(text: str) -> str:
    """The answer part of a matched answer line, up to the end of the line."""
    return line_match(text).answers


def detect(data: bytes) -> str:
    """RANKED, LINES or JSON, from the first non-blank character and the first lines."""
    head = data[:65536].lstrip()
    if head[:1] in (b"{", b"["):
        return JSON
    for line in head.split(b"\n", 50)[:50]:
        if line.startswith(b"RANKED\t") or line.count(b"\t") >= 2:
            return RANKED
    return LINES


class Notes:
    """Warnings gathered over a file, one per code: the first occurrence's message (its line
    and instance), then how many there are in all and on which lines (the first
    :data:`LINES_LISTED`). A file that repeats a problem on every line gets one warning."""

    def __init__(self) -> None:
        self._found: dict[str, list] = {}

    def add(self, code: str, number: int, template: str, key: str | None = None,
            **values: object) -> None:
        """One occurrence of ``code`` on line ``number``. Only the first one's message is
        written (``template.format`` with ``number``, ``key`` and ``values``): a file may
        repeat a problem 400,000 times."""
        entry = self._found.get(code)
        if entry is None:
            text = template.format(number=number, key=key, **values)
            entry = self._found[code] = [Problem(code, text, key, number), 0, []]
        entry[1] += 1
        if len(entry[2]) <= LINES_LISTED and (not entry[2] or entry[2][-1] != number):
            entry[2].append(number)

    def __contains__(self, code: str) -> bool:
        return code in self._found

    def first(self, code: str) -> Problem:
        """The first occurrence of ``code`` (present)."""
        return self._found[code][0]

    def flush(self, report: ValidationReport) -> None:
        """Append one warning per code to ``report``, in the order first seen."""
        for first, count, numbers in self._found.values():
            message = first.message
            if count > 1:
                listed = ", ".join(f"{n:,}" for n in numbers[:LINES_LISTED])
                more = ", ..." if len(numbers) > LINES_LISTED else ""
                message += f" ({count:,} in all, on lines {listed}{more})"
            report.warnings.append(Problem(first.code, message, first.target_id,
                                           first.position))


def parse_lines(lines: Iterable[tuple[int, str, bool]], report: ValidationReport,
                max_entries: int) -> Answers:
    """score.pl answer lines, each kept with its number (``lines`` as
    :meth:`.reader.Upload.lines` gives them).

    As score.pl: a line of neither kind is skipped (with a warning naming it), a repeated id
    counts once (the first line), a carriage return stays in the last answer (a warning says
    so). A file with no answer line at all is refused: score.pl scores nothing there."""
    answers = Answers(LINES)
    notes = Notes()
    seen: dict[tuple[str, str], int] = {}
    firsts: dict[str, dict[str, str]] = {"best": {}, "oot": {}}
    matched: dict[str, list[LineMatch]] = {"best": [], "oot": []}
    keys: set[str] = set()
    for number, line, _ in lines:
        found = match_kind(line)
        if found is None:
            if _NON_BLANK.search(line):
                notes.add("unreadable_line", number, "line {number:,}: neither 'lemma.pos ID :: "
                          "answers' (.best) nor 'lemma.pos ID ::: answers' (.oot); it is skipped, "
                          "as score.pl skips it ('Error in file on line {number}')")
            continue
        kind, m = found
        key = _key(line, m)
        if m.answers.count(";") > max_entries:
            report.error("too_many_candidates", f"line {number:,}: over {max_entries:,} "
                         "answers", key, number)
            continue
        if line.endswith("\r"):
            notes.add("carriage_return", number, "line {number:,} ends in a carriage return "
                      "(\\r, a Windows line end): score.pl keeps it in the line's last answer, "
                      "which then matches no gold answer (after a final ';' it is one more "
                      "answer); the scores are score.pl's. Convert the file to Unix line ends "
                      "(dos2unix) to have those answers scored", key)
        first = seen.setdefault((kind, m.item), number)
        if first != number:
            notes.add("duplicate_instance", number, "line {number:,}: {key} was already given "
                      "on line {first:,} (score.pl keys .{kind} lines by the id, {item}); the "
                      "first one is scored, as score.pl does", key, first=first, kind=kind,
                      item=m.item)
        (answers.oot_lines if kind == "oot" else answers.best_lines).append((number, line))
        matched[kind].append(m)
        keys.add(key)
        firsts[kind].setdefault(key, m.answers)
    if not answers.best_lines and not answers.oot_lines and "unreadable_line" in notes:
        first_line = notes.first("unreadable_line").position
        report.error("no_answer_lines", "no line of the file is a .best line ('lemma.pos ID :: "
                     "answers') or an .oot line ('lemma.pos ID ::: answers'), so score.pl "
                     f"would score nothing (the first line it skips: {first_line:,})",
                     position=first_line)
    notes.flush(report)
    return lines_answers(answers.best_lines, answers.oot_lines, matched["best"],
                         matched["oot"], keys, firsts["best"], firsts["oot"])


def lines_answers(best_lines: list[tuple[int, str]], oot_lines: list[tuple[int, str]],
                  best_matches: list[LineMatch], oot_matches: list[LineMatch], keys: set[str],
                  best_firsts: dict[str, str], oot_firsts: dict[str, str]) -> Answers:
    """The answers of a file's .best and .oot lines (numbered), their score.pl matches, the
    instance keys with a line, and each key's first answer part per kind (:func:`parse_lines`
    gathers them line by line)."""
    answers = Answers(LINES, best_lines=best_lines, oot_lines=oot_lines)
    answers._line_keys = ((len(best_lines), len(oot_lines)), keys)
    answers._matches = {"best": (best_lines, best_matches), "oot": (oot_lines, oot_matches)}
    answers._set_entries(best_firsts | {k: v for k, v in oot_firsts.items()
                                        if k not in best_firsts})
    return answers

