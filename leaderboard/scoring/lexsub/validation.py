"""Validation of an answer file on an LS07 or CoInCo split, without numpy: its format read,
its coverage, repeats and blank lines counted and warned about (:func:`validate`). Scoring
(:mod:`.score`, per-target rows and resamples) reads the report it returns.
"""

from __future__ import annotations

from operator import itemgetter

from leaderboard.scoring.lexsub import formats, reader
from leaderboard.scoring.lexsub.ranked import parse_ranked
from leaderboard.scoring.lexsub.repeats import oot_repeats, ranked_repeats, scorepl_gold
from leaderboard.scoring.lexsub.split import LexsubGold
from leaderboard.scoring.swords.validate import (
    Problem,
    ValidationReport,
    validate_submission,
)

GENERATIVE, RANKING = "generative", "ranking"
_first = itemgetter(0)


def _bytes_text(value: str) -> str:
    """A JSON (Unicode) string as the latin-1 view of its UTF-8 bytes, like the gold files."""
    return value.encode("utf-8").decode("latin-1")


def _from_json(data: bytes, split: LexsubGold, report: ValidationReport,
               limits: dict) -> formats.Answers | None:
    # One rule for every format: an instance not in the split is ignored with a warning.
    checked = validate_submission(bytes(data), split, max_bytes=limits.get(
        "max_bytes", 50_000_000), unknown_targets="warn",
        **{k: v for k, v in limits.items() if k != "max_bytes"})
    report.errors.extend(checked.errors)
    report.errors_not_shown += checked.errors_not_shown
    report.warnings.extend(checked.warnings)
    report.counts.update(checked.counts)
    if checked.submission is None:
        return None
    answers = formats.Answers(formats.JSON, substitutes_lemmatized=checked.submission
                              .substitutes_lemmatized)
    for key, entries in checked.submission.entries.items():
        answers.ranked[key] = [(_bytes_text(w), s) for w, s in entries]
    return answers


def _json_lines(answers: formats.Answers) -> tuple[list, list]:
    """Scored rankings as score.pl's (.best, .oot) lines: the list, by score, is the .best and
    the .oot answer (as the SWORDS evaluation writes it)."""
    best, oot = [], []
    for key, entries in answers.ranked.items():
        ordered = sorted(entries, key=lambda e: -e[1])
        text = f"{key} :: " + "".join(f"{w};" for w, _ in ordered)
        best.append((0, text))
        oot.append((0, text.replace(" :: ", " ::: ", 1)))
    return best, oot


def _repeat_warning(answers: formats.Answers, split: LexsubGold, track: str,
                    report: ValidationReport) -> None:
    """Count the items with duplicates (:mod:`.repeats`) into ``items_with_duplicates`` and
    warn (``duplicate_answers``) when there are any."""
    if track == RANKING:
        keys = ranked_repeats(split, answers.ranked, answers.distinct)
        report.counts["items_with_duplicates"] = len(keys)
        if keys:
            report.warnings.append(Problem(
                "duplicate_answers", f"{len(keys):,} instances rank a candidate more than "
                f"once (first: {keys[0]}): lst_gap.py credits every repeat (GAP can pass 100), "
                "so the GAP shown is lst_gap.py's, but the ranking lists this file apart, "
                "unranked", keys[0]))
        return
    if answers.kind == formats.LINES:
        found = oot_repeats(scorepl_gold(split), answers.oot_lines, answers.matches("oot"))
    else:
        found = oot_repeats(scorepl_gold(split), _json_lines(answers)[1])
    report.counts["items_with_duplicates"] = len(found)
    if found:
        number, item = found[0]
        where = f"line {number:,}, item {item}" if number else f"item {item}"
        report.warnings.append(Problem(
            "duplicate_answers", f"{len(found):,} items repeat an answer in their oot "
            f"answers (first: {where}): score.pl credits every repeat and warns 'OOT file "
            f"contains duplicates on {len(found)} lines'; the oot numbers are score.pl's, "
            "but the oot views list this file apart, unranked (best is not affected: it "
            "divides an item's credit by its number of answers)", position=number or None))


def _coverage_warnings(answers: formats.Answers, split: LexsubGold, track: str,
                       report: ValidationReport) -> None:
    """Count the answered, missing, blank and unknown instances, and warn of each kind."""
    given = answers.entries
    if answers.kind == formats.LINES:  # lines match by the id, as score.pl matches them
        given = split.by_instance(given)
    if split.target_index.keys() <= given.keys() and all(given.values()):
        missing = []  # the usual file: every instance answered
    else:
        missing = [t.target_id for t in split.targets if not given.get(t.target_id)]
    blank: list[str] = []
    if missing and answers.kind == formats.LINES:
        with_line = {split.instance_key(k) for k in answers.line_keys}
        blank = [key for key in missing if key in with_line]
        missing = [key for key in missing if key not in with_line]
    no_pool: list[str] = []
    if track == RANKING:  # nothing of the inputs answers an instance whose pool is empty
        no_pool = [key for key in missing if key in split.no_candidates]
        missing = [key for key in missing if key not in split.no_candidates]
        report.counts["targets_no_candidates"] = len(no_pool)
    unknown = ([] if given.keys() <= split.target_index.keys()
               else [k for k in given if k not in split.target_index])
    report.counts.update({"targets_in_split": len(split.targets),
                          "targets_answered": len(split.targets) - len(missing) - len(blank)
                          - len(no_pool),
                          "missing": len(missing), "blank_lines": len(blank),
                          "unknown": len(unknown)})
    if no_pool:
        report.warnings.append(Problem("no_candidates", f"{len(no_pool):,} instances have no "
                               f"candidates to rank (first: {no_pool[0]}: the pool file has "
                               "none for its lemma.pos), so no ranking of the inputs answers "
                               "them: they count 0 in every system's mean GAP, as in "
                               "lst_gap.py, and are left out of the coverage counts",
                               no_pool[0]))
    if blank:
        report.warnings.append(Problem("blank_answers", f"{len(blank):,} instances have an "
                               f"answer line with no answer (first: {blank[0]}): score.pl, "
                               "and this scorer with it, credits each with the answers of the "
                               "line before it", blank[0]))
    if missing:
        report.warnings.append(Problem("missing_targets", f"{len(missing):,} of "
                               f"{len(split.targets) - len(no_pool):,} "
                               f"{'answerable ' if no_pool else ''}instances have no answer "
                               f"(first: {missing[0]}); they earn nothing", missing[0]))
    if unknown:
        report.warnings.append(Problem("unknown_targets", f"{len(unknown):,} instances are not "
                               f"in this split (first: {unknown[0]}); they are ignored",
                               unknown[0]))
    if track == RANKING:
        _pool_warnings(given, split, answers.distinct, report)


def _pool_warnings(given: dict, split: LexsubGold, distinct: set[str],
                   report: ValidationReport) -> None:
    """Ranking track: warn of ranked strings outside the pool and candidates left out."""
    outside, outside_gold, left_out = _pool_counts(given, split, distinct)
    if outside:
        report.warnings.append(Problem("outside_pool", f"{outside:,} ranked strings are neither "
                               "candidates nor gold answers of their instance; they earn "
                               "nothing"))
    if outside_gold:
        report.warnings.append(Problem("outside_pool_gold", f"{outside_gold:,} ranked strings "
                               "are not candidates of their instance but are among its gold "
                               "answers: they earn credit, as in lst_gap.py (which ranks "
                               "whatever it is given)"))
    if left_out:
        report.warnings.append(Problem("candidates_left_out", f"{left_out:,} candidates of "
                               "answered instances are not ranked; they earn nothing, as in "
                               "lst_gap.py"))


def _pool_counts(given: dict, split: LexsubGold, distinct: set[str]) -> tuple[int, int, int]:
    """(Strings outside the pool, those among the gold answers, pool candidates left out),
    summed over the answered instances; the instances that rank no candidate twice are added
    to ``distinct``."""
    outside, outside_gold, left_out = 0, 0, 0
    pool_sets = split.pool_sets
    for target, (gold_map, _) in zip(split.targets, split.gap_gold, strict=True):
        entries = given.get(target.target_id)
        if not entries:
            continue
        pool = pool_sets[target.target_id]
        ranked = set(map(_first, entries))
        if len(ranked) == len(entries):
            distinct.add(target.target_id)
        if ranked == pool:  # the usual file: every candidate, nothing else
            continue
        strangers = ranked - pool
        # the gold map is a handful of answers, the strangers may be thousands
        credited = sum(w > 0 and c in strangers for c, w in gold_map.items())
        outside += len(strangers) - credited
        outside_gold += credited
        left_out += len(pool - ranked)
    return outside, outside_gold, left_out


def validate(raw: bytes, split: LexsubGold, *, track: str, max_bytes: int = 50_000_000,
             max_substitutes: int = 5000, **limits) -> ValidationReport:
    """Check an answer file in any accepted format; ``report.submission`` is its parse."""
    report = ValidationReport()
    try:
        upload = reader.Upload(raw, max_bytes)
        kind = formats.detect(upload.head(65536))
        if kind == formats.JSON:
            limits = {k: v for k, v in limits.items() if k != "min_answered_fraction"}
            answers = _from_json(upload.read_all(), split, report, {
                "max_bytes": max_bytes, "max_substitutes": max_substitutes, **limits})
        else:
            read = parse_ranked if kind == formats.RANKED else formats.parse_lines
            answers = read(upload.lines(), report, max_substitutes)
    except reader.Refused as refused:
        report.error(refused.code, refused.message, position=refused.position)
        return report
    if answers is None or not report.ok:
        return report
    if track == GENERATIVE and kind == formats.RANKED:
        report.error("ranked_on_generative", "this is a RANKED file (a score for each "
                     "candidate of the pool), which the field scores with GAP: upload it to "
                     "this split's ranking leaderboard (its name ends in '-ranking'); a "
                     "generative board scores your own answers as .best/.oot lines or JSON")
        return report
    if track == RANKING and answers.kind == formats.LINES:
        report.error("ranking_needs_scores", "a ranking board scores a ranking of the "
                     "candidates: upload RANKED lines or JSON with [candidate, score] pairs, "
                     "not .best/.oot answers")
        return report
    _coverage_warnings(answers, split, track, report)
    _repeat_warning(answers, split, track, report)
    if track == GENERATIVE and answers.kind == formats.LINES:
        if not answers.oot_lines:
            report.warnings.append(Problem("no_oot_lines", "no .oot lines (lemma.pos ID ::: "
                                   "answers): oot metrics are 0; add the .oot file to the "
                                   "upload (cat run.best run.oot) to score them"))
        if not answers.best_lines:
            report.warnings.append(Problem("no_best_lines", "no .best lines (lemma.pos ID :: "
                                   "answers): best metrics are 0"))
    report.submission = answers
    return report
