"""Validate and score a TSAR-2022 answer file.

Rows are the universal per-target statistics (:data:`leaderboard.scoring.swords.stats.COLUMNS`), one
per gold instance, every instance of the split counted: an instance the file leaves out
scores 0 (``tsar_eval.py`` divides by the instances the file holds instead, so a file that
leaves the hard ones out would keep its score). On a complete file the two agree.
"""

from __future__ import annotations

import math

import numpy as np

from leaderboard.scoring.lexsub import reader
from leaderboard.scoring.swords.engine import ScoreResult, result_from_rows
from leaderboard.scoring.swords.stats import COLUMN_INDEX, COLUMNS
from leaderboard.scoring.swords.validate import Problem, ValidationReport, validate_submission
from leaderboard.scoring.tsar import formats
from leaderboard.scoring.tsar.data import TsarSplit
from leaderboard.scoring.tsar.metrics import COLUMNS as TSAR_COLUMNS
from leaderboard.scoring.tsar.metrics import METRIC_KEYS, system_list, tsar_row

GENERATIVE = "generative"


def _from_json(data: bytes, split: TsarSplit, report: ValidationReport,
               limits: dict) -> formats.Answers | None:
    checked = validate_submission(bytes(data), split, unknown_targets="warn", **limits)
    report.errors.extend(checked.errors)
    report.errors_not_shown += checked.errors_not_shown
    report.warnings.extend(checked.warnings)
    if checked.submission is None:
        return None
    answers = formats.Answers(formats.JSON, substitutes_lemmatized=checked.submission
                              .substitutes_lemmatized)
    for key, entries in checked.submission.entries.items():
        if key in split.target_index:
            answers.lists[key] = [w.strip() for w, _ in sorted(entries, key=lambda e: -e[1])]
        else:
            answers.unknown += 1
    return answers


def _coverage(answers: formats.Answers, split: TsarSplit, report: ValidationReport) -> None:
    given = answers.lists
    missing = [t.target_id for t in split.targets if t.target_id not in given]
    empty = [t.target_id for t in split.targets
             if t.target_id in given and not system_list(given[t.target_id], t.word)]
    n = len(split.targets)
    report.counts.update({"targets_in_split": n, "targets_answered": n - len(missing)
                          - len(empty), "missing": len(missing), "empty": len(empty),
                          "unknown": answers.unknown})
    if missing:
        report.warnings.append(Problem(
            "missing_targets", f"{len(missing):,} of {n:,} instances have no line (first: "
            f"{missing[0][:100]!r}); each scores 0 here, while tsar_eval.py would leave them "
            "out of its denominators", missing[0]))
    if empty:
        report.warnings.append(Problem(
            "empty_lists", f"{len(empty):,} instances have no substitute left once repeats "
            f"and the complex word are dropped (first: {empty[0][:100]!r}); each scores 0, "
            "as in tsar_eval.py", empty[0]))


def validate(raw: bytes, split: TsarSplit, *, track: str = GENERATIVE,
             max_bytes: int = 50_000_000, max_substitutes: int = 5000,
             **limits) -> ValidationReport:
    """Check an answer file (TSV or JSON); ``report.submission`` is its parse."""
    report = ValidationReport()
    if track != GENERATIVE:
        report.error("generative_only", "TSAR-2022 boards score the system's own ranked "
                     "substitutes (generative track); there is no candidate pool to rank")
        return report
    limits.pop("min_answered_fraction", None)  # labels are public: nothing to probe
    try:
        upload = reader.Upload(raw, max_bytes)
        if formats.detect(upload.head(65536)) == formats.JSON:
            answers = _from_json(upload.read_all(), split, report, {
                "max_bytes": max_bytes, "max_substitutes": max_substitutes, **limits})
        else:
            answers = formats.parse_tsv(upload.lines(), split, report, max_substitutes)
    except reader.Refused as refused:
        report.error(refused.code, refused.message, position=refused.position)
        return report
    if answers is None or not report.ok:
        return report
    if not answers.lists:
        report.error("no_instances", "no line of the file is an instance of this split "
                     "(sentence<TAB>complex word<TAB>substitutes..., the split's sentences "
                     "as its inputs give them): a file for another split or language?")
        return report
    _coverage(answers, split, report)
    report.submission = answers
    return report


def instance_rows(split: TsarSplit, answers: formats.Answers) -> np.ndarray:
    """One row of the statistics per instance of ``split``, in split order."""
    rows = np.zeros((len(split.targets), len(COLUMNS)))
    start = COLUMN_INDEX[TSAR_COLUMNS[0]]
    for i, target in enumerate(split.targets):
        ranked = system_list(answers.lists.get(target.target_id, ()), target.word)
        rows[i, start:start + len(TSAR_COLUMNS)] = tsar_row(target.counts, ranked)
    return rows


def score(split: TsarSplit, report: ValidationReport, *, track: str = GENERATIVE,
          bootstrap: int | None = None, seed: int | None = None) -> ScoreResult:
    """Score a valid report of :func:`validate` on ``split`` (no POS: no per-POS block)."""
    if not report.ok or report.submission is None:
        raise ValueError(f"invalid submission: {[p.message for p in report.errors[:5]]}")
    answers = report.submission
    rows = instance_rows(split, answers)
    lengths = [n for n in (len(system_list(answers.lists.get(t.target_id, ()), t.word))
                           for t in split.targets) if n]
    result = result_from_rows(
        split, rows, [p.message for p in report.warnings], answered=len(lengths),
        lengths=lengths, bootstrap=split.bootstrap if bootstrap is None else bootstrap,
        seed=split.seed if seed is None else seed, swords_rules=False,
        given=sum(1 for t in split.targets if t.target_id in answers.lists))
    result.by_pos = {}
    if not report.counts.get("missing"):
        # A line for every instance: tsar_eval.py's figures are ours, to the digit its own
        # float sums decide at a boundary (a MAP of exactly 0.2 summed as 0.19999... prints
        # 0.1999): its floors are the point values every surface prints.
        result.metrics.update((k, round(v * 100, 2))
                              for k, v in official_floors(split, report).items())
    return result


def official_floors(split: TsarSplit, report: ValidationReport) -> dict[str, float]:
    """Each metric as ``tsar_eval.py`` prints it for this file: the fraction floored to 4
    decimals, summed over the instances the file holds, in the file's order (a repeated
    instance where it first appeared), divided by their number, as the script sums and
    divides (on a complete file, our value; on another, what the script says of it)."""
    answers = report.submission
    rows = instance_rows(split, answers)
    index = {t.target_id: i for i, t in enumerate(split.targets)}
    order = [index[key] for key in answers.lists if key in index]
    out = {}
    for key in METRIC_KEYS:
        column, total = rows[:, COLUMN_INDEX[f"ts_{key}"]], 0.0
        for i in order:
            total += float(column[i])
        out[key] = math.floor(total / len(order) * 10000) / 10000 if order else 0.0
    return out
