"""Submission validation: every problem at once, nothing derived from the gold labels.

A submission is ``{"substitutes_lemmatized": bool, "substitutes": {tid: [[sub, score], ...]
or [sub, ...]}}`` (spec section 1), plain or gzipped. Only the split's target ids are
consulted, which are public.
"""

from __future__ import annotations

import json
import math
from collections import namedtuple

from leaderboard.scoring.swords.submission_file import Document, read_document

TYPE_CHECKING = False  # typing itself is not imported: validation needs no more than this
if TYPE_CHECKING:  # an annotation only: gold's module imports numpy, which the problems
    # and reports of LS07/CoInCo's numpy-free one-off scoring do not need
    from leaderboard.scoring.swords.gold import PreparedSplit

MAX_DETAILED_PROBLEMS = 1000
# Commas and brackets a file may hold (an upper bound on its JSON values): what the reader
# may build is proportional to it. The largest real system output (Thesaurus on the test
# split, 44,216 substitutes) has about 130,000; 1,500,000 allows about 500,000 pairs.
MAX_STRUCTURE_UNITS = 1_500_000
# Bytes in a row without a double quote: bounds every string and every gap between strings
# (a number, blank space) before anything is built. Target ids have 42 characters and real
# substitutes a few words, so nothing valid comes near it.
MAX_TOKEN_BYTES = 64 * 1024
# Text of the "substitutes" object, and the largest file re-read in full to list every problem
# when it does not fit the format: what is built is about as large as the text it comes from,
# on top of the buffer. Real outputs, and the text of as many pairs as the structure budget
# allows, are well under it.
MAX_SUBSTITUTES_BYTES = 32 * 1024 * 1024


class Problem(namedtuple("Problem", "code message target_id position", defaults=(None, None))):
    """One finding: a machine ``code``, where it is, and a message for people."""

    __slots__ = ()

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"code": self.code, "message": self.message, "target_id": self.target_id,
                "position": self.position}


class Submission:
    """A valid submission: per target, (substitute, score) in the order submitted."""

    __slots__ = ("substitutes_lemmatized", "entries")

    def __init__(self, substitutes_lemmatized: bool,
                 entries: dict[str, list[tuple[str, float]]]) -> None:
        self.substitutes_lemmatized = substitutes_lemmatized
        self.entries = entries


class ValidationReport:
    """Errors (which make a submission invalid), warnings, counts and the parsed submission."""

    __slots__ = ("errors", "warnings", "counts", "submission", "errors_not_shown")

    def __init__(self, errors: list[Problem] | None = None,
                 warnings: list[Problem] | None = None, counts: dict[str, int] | None = None,
                 submission: Submission | None = None, errors_not_shown: int = 0) -> None:
        self.errors, self.warnings = errors or [], warnings or []
        self.counts = {} if counts is None else counts
        self.submission, self.errors_not_shown = submission, errors_not_shown

    @property
    def ok(self) -> bool:
        """True when there is no error (warnings allowed)."""
        return not self.errors and not self.errors_not_shown

    def error(self, code: str, message: str, target_id: str | None = None,
              position: int | None = None) -> None:
        """Record an error; beyond :data:`MAX_DETAILED_PROBLEMS` only count it."""
        if len(self.errors) < MAX_DETAILED_PROBLEMS:
            self.errors.append(Problem(code, message, target_id, position))
        else:
            self.errors_not_shown += 1

    def to_dict(self) -> dict:
        """JSON-ready form (without the parsed submission)."""
        return {"ok": self.ok, "errors": [p.to_dict() for p in self.errors],
                "errors_not_shown": self.errors_not_shown,
                "warnings": [p.to_dict() for p in self.warnings], "counts": dict(self.counts)}


def _score(value: object) -> tuple[float | None, str | None]:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None, "non_numeric_score"
    try:
        f = float(value)
    except OverflowError:
        return None, "non_finite_score"
    return (f, None) if math.isfinite(f) else (None, "non_finite_score")


# Each empty substitute is named up to this many; the summary warning counts them all.
MAX_EMPTY_WARNINGS = 20


def validate_submission(raw: bytes | str, prepared: PreparedSplit, *,
                        max_bytes: int = 50_000_000,
                        max_substitutes: int = 5000,
                        allow_empty: bool = True,
                        max_structure: int = MAX_STRUCTURE_UNITS,
                        max_token: int = MAX_TOKEN_BYTES,
                        max_substitutes_bytes: int = MAX_SUBSTITUTES_BYTES,
                        min_answered_fraction: float = 0.0,
                        unknown_targets: str = "error") -> ValidationReport:
    """Check a submission against a split and report every problem found.

    ``unknown_targets`` is "error" (SWORDS: an id not in the split is a mistake) or "warn"
    (LS07/CoInCo: ignored with one warning, as their scripts ignore such lines).

    ``max_bytes`` caps both the upload and its decompressed size (gzip bombs stop there);
    ``max_substitutes`` caps one target's list; ``max_structure`` caps commas plus brackets,
    checked before anything is parsed, so that what is built stays proportional to it (see
    :mod:`leaderboard.scoring.swords.parse`); ``max_token`` caps the bytes in a row without a
    double quote (one string, number or blank space), also checked before parsing;
    ``max_substitutes_bytes`` caps the text of ``"substitutes"`` (checked before it is
    decoded) and the size of a file that is re-read to list every problem. Missing
    targets are a warning: they count as abstentions. The report's ``submission`` is set
    when there is no error.

    Empty (or blank) substitutes are kept and scored as the original scorer did (a guess
    that matches nothing), each reported as a warning with its target and position: real
    outputs contain them (the paper's Thesaurus file has five), and rejecting them would
    make published numbers impossible to reproduce. ``allow_empty=False`` makes them errors.

    ``min_answered_fraction`` (used for splits whose labels are hidden) makes a file that
    answers (a non-empty list) fewer targets than that share of the split invalid: scores of
    a handful of targets read back their hidden labels (docs/hosts/security.md).
    """
    report = ValidationReport()
    split_ids = prepared.target_index
    report.counts = {"targets_in_split": len(split_ids), "answered": 0, "missing": len(split_ids),
                     "unknown": 0, "substitutes_total": 0}
    document, refusal = read_document(raw, max_bytes, max_structure, max_token,
                                      max_substitutes_bytes)
    if refusal is not None:
        report.error(*refusal)
        return report
    doc, subs = document.top, document.substitutes
    _check_top_level(report, document)
    if "substitutes" not in doc:
        report.error("missing_substitutes", "the object has no \"substitutes\" key")
        return report
    if not isinstance(subs, dict):
        report.error("wrong_type", "\"substitutes\" must be an object mapping target ids to "
                     f"lists, not {type(subs).__name__}")
        return report
    for tid in document.substitutes_duplicates:
        report.error("duplicate_target", f"target {tid} appears more than once", tid)
    unknown = [tid for tid in subs if tid not in split_ids]
    _report_unknown_targets(report, unknown, unknown_targets)
    entries = _check_lists(report, subs, split_ids, max_substitutes, allow_empty)
    _count_answers(report, subs, split_ids, len(unknown), min_answered_fraction)
    if report.ok:
        report.submission = Submission(document.lemmatized is True, entries)
    return report


def _check_top_level(report: ValidationReport, document: Document) -> None:
    """Report repeated, unknown or mistyped top-level keys."""
    doc = document.top
    for key in document.top_duplicates:
        report.error("duplicate_key", f"the top-level key {key!r} appears more than once")
    if "substitutes_lemmatized" not in doc:
        report.warnings.append(Problem("substitutes_lemmatized_missing",
                                       "\"substitutes_lemmatized\" is absent; recorded as false "
                                       "(every substitute is lemmatized anyway)"))
    elif not isinstance(document.lemmatized, bool):
        report.error("wrong_type", "\"substitutes_lemmatized\" must be true or false")
    for key in doc:
        if key not in ("substitutes", "substitutes_lemmatized"):
            report.warnings.append(Problem("unknown_key", f"top-level key {key!r} is ignored"))


def _report_unknown_targets(report: ValidationReport, unknown: list[str],
                            unknown_targets: str) -> None:
    """One warning for all ids outside the split ("warn"), or an error for each ("error")."""
    if unknown and unknown_targets == "warn":
        report.warnings.append(Problem(
            "unknown_targets", f"{len(unknown):,} instances are not in this split (first: "
            f"{unknown[0]}); they are ignored", unknown[0]))
    else:
        for tid in unknown:
            report.error("unknown_target", f"target {tid} is not in this split", tid)


def _check_lists(report: ValidationReport, subs: dict, split_ids: dict,
                 max_substitutes: int, allow_empty: bool) -> dict[str, list[tuple[str, float]]]:
    """Check the list of every target in the split; return the clean ones by target id."""
    entries: dict[str, list[tuple[str, float]]] = {}
    for tid, items in subs.items():
        if tid in split_ids:
            parsed = _check_list(report, tid, items, max_substitutes, allow_empty)
            if parsed is not None:
                entries[tid] = parsed
    return entries


def _count_answers(report: ValidationReport, subs: dict, split_ids: dict, n_unknown: int,
                   min_answered_fraction: float) -> None:
    """Count answers and abstentions, and refuse a file that answers too few targets."""
    answered = sum(1 for tid in subs if tid in split_ids and isinstance(subs[tid], list)
                   and subs[tid])
    missing = [tid for tid in split_ids if tid not in subs]
    empty_lists = sum(1 for tid in subs if tid in split_ids and subs[tid] == [])
    report.counts.update(answered=answered, missing=len(missing), unknown=n_unknown,
                         empty_lists=empty_lists, abstentions=len(missing) + empty_lists,
                         substitutes_total=sum(len(v) for v in subs.values()
                                               if isinstance(v, list)))
    required = math.ceil(min_answered_fraction * len(split_ids) - 1e-9)
    if answered < required:
        report.error("too_few_targets", f"{answered} of {len(split_ids)} targets are answered "
                     f"(a non-empty list); this split's labels are hidden, so at least "
                     f"{required} ({min_answered_fraction:.0%}) must be answered. Give a "
                     "ranked list of substitutes for more targets.")
    if report.counts.get("empty_substitutes"):
        report.warnings.append(Problem(
            "empty_substitutes", f"{report.counts['empty_substitutes']} empty substitutes are "
            "kept as guesses that match nothing"))
    if missing or empty_lists:
        report.warnings.append(Problem(
            "missing_targets", f"{len(missing) + empty_lists} of {len(split_ids)} targets are "
            f"abstentions ({len(missing)} without an entry, {empty_lists} with an empty "
            "list); they score 0"))


def _check_list(report: ValidationReport, tid: str, items: object, max_substitutes: int,
                allow_empty: bool) -> list[tuple[str, float]] | None:
    """Validate one target's list; return it as (substitute, score) pairs when clean."""
    if not isinstance(items, list):
        report.error("wrong_type", f"the entry of {tid} must be a list, not "
                     f"{type(items).__name__}", tid)
        return None
    if len(items) > max_substitutes:
        report.error("too_many_substitutes", f"{tid} has {len(items):,} substitutes; the limit "
                     f"is {max_substitutes:,}", tid)
        return None
    out: list[tuple[str, float]] = []
    clean = True
    for i, item in enumerate(items):
        if isinstance(item, str):
            sub, score = item, float(-i)  # a bare list ranks by position: scores 0, -1, -2...
        elif isinstance(item, list | tuple) and len(item) == 2:
            sub, raw_score = item
            score, code = _score(raw_score)
            if code:
                report.error(code, f"the score of item {i} of {tid} must be a finite number, "
                             f"not {json.dumps(raw_score)}", tid, i)
                clean = False
        else:
            report.error("wrong_type", f"item {i} of {tid} must be a string or a "
                         "[substitute, score] pair", tid, i)
            clean = False
            continue
        if not isinstance(sub, str):
            report.error("non_string_substitute", f"the substitute of item {i} of {tid} must be "
                         f"a string, not {type(sub).__name__}", tid, i)
            clean = False
        elif not sub.strip() and allow_empty:
            empties = report.counts["empty_substitutes"] = report.counts.get(
                "empty_substitutes", 0) + 1
            if empties <= MAX_EMPTY_WARNINGS:
                report.warnings.append(Problem(
                    "empty_substitute", f"item {i} of {tid} is an empty substitute", tid, i))
            if clean:
                out.append((sub, score))
        elif not sub.strip():
            report.error("empty_substitute", f"item {i} of {tid} is an empty substitute", tid, i)
            clean = False
        elif clean:
            out.append((sub, score))
    return out if clean else None
