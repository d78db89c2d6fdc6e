"""The ranking setting (paper, Appendix D; Thater et al. 2010): score every given candidate.

A ranking-track system receives, for each target, every substitute string of the split
(inconceivable ones included), exactly as the public inputs file lists them, and must give
each one a score; it is then scored with GAP by the ordinary engine.

How submitted strings are matched to candidates: by :func:`candidate_key`, which strips
surrounding whitespace and lowercases (``str.lower``). The original evaluation compares
``lemmatize(s).lower().strip()`` on both sides, so case and surrounding whitespace never
changed a ranking score there, and rejecting ``"Car "`` for ``car`` would only reject files
that the original scorer accepted with the same result. Inflection is *not* forgiven: the
task hands out the strings to score, so ``cars`` for the candidate ``car`` is a non-candidate
(the split itself never holds two candidates of one target that differ only in case or
surrounding whitespace; v1.1 dev, test and test-subset checked).
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from leaderboard.scoring.swords.gold import PreparedSplit
from leaderboard.scoring.swords.validate import Problem, ValidationReport, validate_submission

#: Strings named in one problem message; the message says how many more there are.
MAX_LISTED = 10
#: The ranking track's headline metric and the metrics shown beside it (the F^10 views
#: mean nothing when every candidate is given).
HEADLINE = "gap"
SHOWN_METRICS = ("gap", "gap_rat", "strict_c_p@1")


def candidate_key(substitute: str) -> str:
    """The form in which a submitted string is compared with a candidate."""
    return substitute.strip().lower()


def candidates_by_target(split: Mapping) -> dict[str, list[str]]:
    """Target id -> the candidate strings a ranking-track system must score.

    Every substitute of the split for that target, in the order of the split's
    ``substitutes`` object (the order of the public inputs export, which copies it), with
    the strings exactly as given there. Works on a full split or on its label-free inputs
    export alike. Every target of the split is a key (an empty list when it has no
    substitute); a string repeated for one target is listed once.
    """
    out: dict[str, list[str]] = {tid: [] for tid in split["targets"]}
    seen: dict[str, set[str]] = {tid: set() for tid in out}
    for sub in split["substitutes"].values():
        tid, text = sub["target_id"], sub["substitute"]
        if tid not in out:
            raise ValueError(f"a substitute points to unknown target {tid}")
        if text not in seen[tid]:
            seen[tid].add(text)
            out[tid].append(text)
    return out


def _listed(strings: list[str]) -> str:
    shown = ", ".join(repr(s) for s in strings[:MAX_LISTED])
    more = len(strings) - MAX_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def check_ranking_submission(entries: Mapping[str, list[tuple[str, float]]],
                             candidates: Mapping[str, list[str]]) -> list[Problem]:
    """Errors that make a parsed submission invalid on the ranking track.

    ``entries`` is :attr:`Submission.entries` (target id -> [(substitute, score), ...]);
    ``candidates`` is :func:`candidates_by_target` of the split. Each answered target (a
    non-empty list) must score every candidate once and nothing else; an empty or absent
    list is an abstention, as on the generative track. Per target at most one problem of
    each code, naming at most :data:`MAX_LISTED` strings:

    - ``missing_candidates``: candidates of the target that got no score;
    - ``unknown_candidates``: submitted strings that are not candidates of the target;
    - ``duplicate_candidate``: one candidate scored more than once (``position`` is the
      first repeat's index in the submitted list);
    - ``unknown_target``: a target id the split does not have (validation already rejects
      these; listed here so the check stands on its own).
    """
    problems: list[Problem] = []
    for tid, items in entries.items():
        if not items:
            continue
        if tid not in candidates:
            problems.append(Problem("unknown_target", f"target {tid} is not in this split", tid))
        else:
            problems += _check_target(tid, items, candidates[tid])
    return problems


def _check_target(tid: str, items: list[tuple[str, float]], cands: list[str]) -> list[Problem]:
    # Counted per key: a split could hold two candidates that differ only in case ("US",
    # "us"); both must then be scored, and naming the one not given verbatim helps most.
    wanted: dict[str, list[str]] = {}
    for c in cands:
        wanted.setdefault(candidate_key(c), []).append(c)
    given: dict[str, int] = {}
    verbatim: set[str] = set()
    unknown: list[str] = []
    repeated: list[str] = []
    first_repeat = None
    for i, (sub, _score) in enumerate(items):
        key = candidate_key(sub)
        if key not in wanted:
            unknown.append(sub)
        elif given.get(key, 0) >= len(wanted[key]):
            repeated.append(sub)
            first_repeat = i if first_repeat is None else first_repeat
        else:
            given[key] = given.get(key, 0) + 1
            verbatim.add(sub.strip())
    missing = []
    for key, group in wanted.items():
        short = len(group) - given.get(key, 0)
        if short:
            missing += sorted(group, key=lambda c: c.strip() in verbatim)[:short]
    problems = []
    if missing:
        problems.append(Problem(
            "missing_candidates", f"{tid}: no score for {len(missing)} of {len(cands)} "
            f"candidates: {_listed(missing)}", tid))
    if unknown:
        problems.append(Problem(
            "unknown_candidates", f"{tid}: not candidates of this target ({len(unknown)}): "
            f"{_listed(unknown)}", tid))
    if repeated:
        problems.append(Problem(
            "duplicate_candidate", f"{tid}: scored more than once ({len(repeated)}): "
            f"{_listed(repeated)}", tid, first_repeat))
    return problems


def random_ranking_submission(split: Mapping, seed: int = 0) -> dict:
    """The paper's Random row: each candidate gets a uniform score from a seeded generator.

    Returns a submission JSON object (``substitutes_lemmatized`` copied from the split) that
    answers every target with a candidate; the same split and seed give the same object.
    """
    rng = random.Random(seed)
    substitutes = {
        tid: [[c, rng.random()] for c in cands]
        for tid, cands in candidates_by_target(split).items() if cands
    }
    return {"substitutes_lemmatized": bool(split.get("substitutes_lemmatized", False)),
            "substitutes": substitutes}


def validate_ranking_submission(raw: bytes | str, prepared: PreparedSplit,
                                candidates: Mapping[str, list[str]],
                                **options: object) -> ValidationReport:
    """:func:`validate_submission` (``options`` passed on), then, when the file is otherwise
    valid, :func:`check_ranking_submission`; its problems become errors of the report, whose
    ``submission`` is then unset. ``candidates`` must be those of ``prepared``'s split.
    """
    if set(candidates) != set(prepared.target_index):
        raise ValueError("the candidate lists belong to another split than the prepared gold")
    report = validate_submission(raw, prepared, **options)
    if report.submission is None:
        return report
    for problem in check_ranking_submission(report.submission.entries, candidates):
        report.error(problem.code, problem.message, problem.target_id, problem.position)
    if not report.ok:
        report.submission = None
    return report
