"""Answer files for LS07 and CoInCo, their format detected from the content.

* Melamud's RANKED lines: ``RANKED<TAB>lemma.pos ID<TAB>cand score<TAB>cand score...``;
* score.pl's ``.best`` lines ``lemma.pos ID :: a;b`` and ``.oot`` lines ``lemma.pos ID ::: a;b``,
  or both kinds in one file (a ``.best`` and ``.oot`` pair: ``cat run.best run.oot``);
* this site's JSON, ``{"substitutes": {"lemma.pos ID": [[cand, score], ...]}}``.

Plain or gzipped. Text is read byte for byte (latin-1), as perl and Python 2 read it; JSON
strings are turned into the same bytes (UTF-8) so that both compare with the gold alike.
Every problem names its line and instance; the README lists the refusals (LS07 and CoInCo).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from leaderboard.scoring.validate import Problem, ValidationReport

RANKED, LINES, JSON = "ranked", "lines", "json"
_BEST = re.compile(r"([\w.]+) (\S+) :: (.*)", re.ASCII)
_OOT = re.compile(r"([\w.]+) (\S+) ::: (.*)", re.ASCII)
#: Lines in one file: 25 times CoInCo's 15,415 instances.
MAX_LINES = 400_000


@dataclass
class Answers:
    """A parsed answer file: scored rankings (RANKED/JSON) or score.pl answer lines."""

    kind: str
    ranked: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    best_lines: list[tuple[int, str]] = field(default_factory=list)
    oot_lines: list[tuple[int, str]] = field(default_factory=list)
    substitutes_lemmatized: bool | None = None

    @property
    def entries(self) -> dict[str, list[tuple[str, float]]]:
        """Instance key -> answers in order (what counts as "answered")."""
        if self.kind != LINES:
            return self.ranked
        out: dict[str, list[tuple[str, float]]] = {}
        for _, text in self.best_lines + self.oot_lines:
            answers = [a for a in line_answers(text).split(";") if a.strip()]
            out.setdefault(line_key(text), [(a, float(-i)) for i, a in enumerate(answers)])
        return out


def line_match(text: str) -> re.Match | None:
    """The .oot or .best match of a line (``:::`` first: a .best pattern never matches it)."""
    return _OOT.search(text) or _BEST.search(text)


def line_key(text: str) -> str:
    """``lemma.pos ID`` of a matched answer line, the lemma with whatever precedes the match:
    score.pl's unanchored pattern reads CoInCo's ``e commerce.J 125`` as ``commerce.J 125``
    (it keys items by the id alone), but the instance is ``e commerce.J 125``."""
    m = line_match(text)
    return f"{text[:m.end(1)].strip()} {m.group(2)}"


def line_answers(text: str) -> str:
    """The answer part of a matched answer line, up to the end of the line."""
    return line_match(text).group(3)


def detect(data: bytes) -> str:
    """RANKED, LINES or JSON, from the first non-blank character and the first lines."""
    head = data[:65536].lstrip()
    if head[:1] in (b"{", b"["):
        return JSON
    for line in head.split(b"\n", 50)[:50]:
        if line.startswith(b"RANKED\t") or line.count(b"\t") >= 2:
            return RANKED
    return LINES


def parse_ranked(text: str, report: ValidationReport, max_entries: int) -> Answers:
    """RANKED lines -> instance key -> [(candidate, score)] (a repeated key: the last line)."""
    answers = Answers(RANKED)
    seen: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        segments = line.split("\t")
        if len(segments) < 2 or not segments[1].strip():
            report.error("unreadable_line", f"line {number}: expected 'RANKED<TAB>lemma.pos ID"
                         "<TAB>candidate score...'", position=number)
            continue
        key = segments[1].strip()
        entries = _scored(segments, number, key, report)
        if len(entries) > max_entries:
            report.error("too_many_candidates", f"line {number} ({key}): {len(entries):,} "
                         f"scored candidates, at most {max_entries:,}", key, number)
            continue
        if key in seen:
            report.warnings.append(_dup(key, number, seen[key], "the last one is scored, as "
                                        "lst_gap.py does"))
        seen[key] = number
        answers.ranked[key] = entries
    return answers


def _scored(segments: list[str], number: int, key: str,
            report: ValidationReport) -> list[tuple[str, float]]:
    """A RANKED line's (candidate, score) pairs, split at each entry's last space.

    Comprehensions on the usual path (800,000 entries on CoInCo); one entry at a time, with
    the error, only when a score is unreadable or not finite (or the sum overflows)."""
    entries = [e for e in segments[2:] if e]
    cuts = [e.rfind(" ") for e in entries]
    try:
        scores = [float(e[i:]) for e, i in zip(entries, cuts, strict=True)]
        if math.isfinite(sum(scores)):   # nan, inf or overflow: look one by one
            return [(e[:i], v) for e, i, v in zip(entries, cuts, scores, strict=True)]
    except ValueError:
        pass
    kept = []
    for entry, i in zip(entries, cuts, strict=True):
        try:
            score = float(entry[i:])
        except ValueError:
            score = math.nan
        if math.isfinite(score):
            kept.append((entry[:i], score))
        else:
            report.error("bad_score", f"line {number} ({key}): {entry.strip()!r} does not "
                         "end in a finite score after its last space", key, number)
    return kept


def parse_lines(text: str, report: ValidationReport, max_entries: int) -> Answers:
    """score.pl answer lines, each kept with its number; a line of neither kind is an error."""
    answers = Answers(LINES)
    for number, line in enumerate(text.split("\n"), start=1):
        m = _OOT.search(line)
        target = answers.oot_lines if m else answers.best_lines
        m = m or _BEST.search(line)
        if m is None:
            if line.strip():
                report.error("unreadable_line", f"line {number}: neither 'lemma.pos ID :: "
                             "answers' (.best) nor 'lemma.pos ID ::: answers' (.oot); score.pl "
                             f"would skip it ('Error in file on line {number}')",
                             position=number)
            continue
        if m.group(3).count(";") > max_entries:
            report.error("too_many_candidates", f"line {number}: over {max_entries:,} answers",
                         f"{m.group(1)} {m.group(2)}", number)
            continue
        target.append((number, line))
    return answers


def _dup(key: str, number: int, first: int, what: str) -> Problem:
    return Problem("duplicate_instance", f"line {number}: {key} was already given on line "
                   f"{first}; {what}", key, number)


def too_many_lines(text: str, report: ValidationReport) -> bool:
    """Refuse a file of more than :data:`MAX_LINES` lines before parsing it."""
    lines = text.count("\n") + 1
    if lines > MAX_LINES:
        report.error("too_many_lines", f"{lines:,} lines, at most {MAX_LINES:,}")
        return True
    return False
