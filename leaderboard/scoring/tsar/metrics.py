"""TSAR-2022's metrics as per-instance columns (no import of the statistics module: it
imports this one).

Per instance, with the gold annotations counted (minus any equal to the complex word) and the
system's substitutes in order (repeats and the complex word dropped):

* ACC@1: the first substitute is a gold annotation (= MAP@1 = Potential@1);
* ACC@k@Top1 (k = 1, 2, 3): one of the first k is among the most frequent annotations (ties
  included);
* Potential@k (k = 3, 5, 10): one of the first k is a gold annotation;
* MAP@k (k = 3, 5, 10): the sum, over the first k positions holding a gold annotation, of the
  gold annotations seen so far over the position, divided by k.

Each metric is a mean over the instances (``ts_item`` counts them), so intervals resample
instances as on every other board.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from leaderboard.scoring.swords.generative import safe_div

TOP1_CUTS = (1, 2, 3)
CUTS = (3, 5, 10)
METRIC_KEYS: tuple[str, ...] = (("acc@1",) + tuple(f"acc@{k}@top1" for k in TOP1_CUTS)
                                + tuple(f"map@{k}" for k in CUTS)
                                + tuple(f"potential@{k}" for k in CUTS))
COLUMNS: tuple[str, ...] = ("ts_item",) + tuple(f"ts_{key}" for key in METRIC_KEYS)


def gold_counts(annotations: Iterable[str], complex_word: str) -> dict[str, int]:
    """Each annotation (stripped) and how many annotators gave it, the complex word left out."""
    counts: dict[str, int] = {}
    for item in annotations:
        item = item.strip()
        if item != complex_word:
            counts[item] = counts.get(item, 0) + 1
    return counts


def top_gold(counts: Mapping[str, int]) -> set[str]:
    """The annotations with the highest count (every one of equals); empty for no gold."""
    if not counts:
        return set()
    best = max(counts.values())
    return {item for item, n in counts.items() if n == best}


def system_list(substitutes: Iterable[str], complex_word: str) -> list[str]:
    """The substitutes as scored: stripped, first occurrence kept, the complex word dropped."""
    seen: dict[str, None] = {}
    for item in substitutes:
        item = item.strip()
        if item != complex_word:
            seen.setdefault(item, None)
    return list(seen)


def average_precision(hits: Sequence[bool], k: int) -> float:
    """MAP@k of one instance: precision at each hit within the first k, summed, over k."""
    found, total = 0, 0.0
    for position, hit in enumerate(hits[:k], start=1):
        if hit:
            found += 1
            total += found / position
    return total / k


def tsar_row(counts: Mapping[str, int], ranked: Sequence[str]) -> tuple[float, ...]:
    """Values of :data:`COLUMNS` for one instance (``ranked`` as :func:`system_list` gives)."""
    hits = [item in counts for item in ranked]
    top = top_gold(counts)
    values = [1.0, float(bool(hits[:1]) and hits[0])]
    values += [float(any(item in top for item in ranked[:k])) for k in TOP1_CUTS]
    values += [average_precision(hits, k) for k in CUTS]
    values += [float(any(hits[:k])) for k in CUTS]
    return tuple(values)


def tsar_metrics(s: Mapping) -> dict[str, object]:
    """Means (fractions) from summed columns; arrays broadcast (for resamples)."""
    return {key: safe_div(s[f"ts_{key}"], s["ts_item"]) for key in METRIC_KEYS}
