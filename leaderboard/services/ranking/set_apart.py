"""Systems set apart from a ranking: a file whose number is the field's script's, faithfully,
but inflated by a quirk of that script, is shown below the ranked systems, unranked, with why.

The one such quirk is a repeated answer (``items_with_duplicates`` in a result's counts,
counted by :mod:`leaderboard.scoring.lexsub.repeats`): score.pl credits each repeat on an .oot
line and lst_gap.py each repeat of a ranked candidate, so they inflate oot P/R and GAP. best
(credit divided by the number of answers), the mode metrics (one hit at most) and Jabbari et
al.'s (distinct answers) are not inflated: there such a system is ranked, and flagged.
"""

from __future__ import annotations

from typing import Any

from leaderboard.scoring.printing import shown

DUPLICATE_ANSWERS = "duplicate_answers"

#: flag -> the metrics it inflates (a system so flagged has no rank on them)
INFLATES: dict[str, frozenset[str]] = {DUPLICATE_ANSWERS: frozenset({"oot_p", "oot_r", "gap"})}


def flags_of(counts: dict[str, Any] | None) -> list[str]:
    """The flags of a result from its stored counts: a file that repeats answers, unless
    its repeats change no figure as printed (``without_repeats`` empty; a result scored
    before it was kept has none, and is flagged)."""
    counts = counts or {}
    changed = counts.get("without_repeats", True)
    return [DUPLICATE_ANSWERS] if counts.get("items_with_duplicates") and changed else []


def repeat_facts(counts: dict[str, Any] | None) -> dict[str, Any]:
    """What a system row (snapshot, system page, team page) keeps of its repeats."""
    counts = counts or {}
    return {"flags": flags_of(counts),
            "items_with_duplicates": counts.get("items_with_duplicates"),
            "without_repeats": counts.get("without_repeats")}


def is_apart(system: dict[str, Any], metric: str) -> bool:
    """Whether ``system`` (a snapshot row) is set apart on ``metric``: flagged, and its
    figure there differs without the repeats (where that is known)."""
    if not any(metric in INFLATES.get(flag, ()) for flag in system.get("flags") or ()):
        return False
    free = system.get("without_repeats")
    return free is None or metric in free


def apart_indices(systems: list[dict[str, Any]], keys: tuple[str, ...]) -> dict[str, set[int]]:
    """Metric -> indices of ``systems`` set apart on it (metrics with none are left out)."""
    out: dict[str, set[int]] = {}
    for key in keys:
        found = {g for g, s in enumerate(systems) if is_apart(s, key)}
        if found:
            out[key] = found
    return out


def why(system: dict[str, Any], metric: str) -> str:
    """Why ``system`` is set apart on ``metric`` (empty when it is not)."""
    if not is_apart(system, metric):
        return ""
    n = system.get("items_with_duplicates") or 0
    free = (system.get("without_repeats") or {}).get(metric)
    without = "" if free is None else f" (without the repeats: {shown(free)})"
    if metric == "gap":
        return (f"ranks a candidate twice on {n:,} instances; lst_gap.py credits each "
                f"repeat, so its GAP is not ranked{without}")
    return (f"repeats answers on {n:,} items; score.pl counts each repeat, so its oot is not "
            f"ranked{without}")


def apart_reasons(system: dict[str, Any], keys: Any) -> dict[str, str]:
    """Metric -> why, for each of ``keys`` on which ``system`` is set apart (a figure that
    relies on repeated answers: flagged wherever it is printed)."""
    return {key: why(system, key) for key in keys if is_apart(system, key)}

