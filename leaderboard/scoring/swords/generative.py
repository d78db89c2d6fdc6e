"""Generative metrics at k = 10, pooled over targets (spec section 3).

Per target only counts are kept (hits in the top k, list sizes, gold sizes); the metrics are
ratios of their sums, so a bootstrap resample is just a weighted sum of the same rows.
"""

from __future__ import annotations

from collections.abc import Container

import numpy as np

K = 10

#: Per-target columns this module contributes to the statistics matrix.
COLUMNS = (
    "top_strict", "top_lenient",
    "hit_strict_a", "hit_strict_c", "hit_lenient_a", "hit_lenient_c",
    "gold_a_k", "gold_a", "gold_c_k", "gold_c",
    "top1_strict", "hit1_strict_c",
)


def safe_div(num, den):
    """num / den, and 0 where den is 0 (upstream divides by zero only on empty submissions)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out if out.ndim else float(out)


def generative_row(ranked: list[str], candidates: Container[str], acceptable: frozenset[str],
                   conceivable: frozenset[str]) -> tuple[float, ...]:
    """Per-target values of :data:`COLUMNS` for a system's ranked, deduplicated lemma list.

    strict: the top 10 of the whole list; lenient: the top 10 of the list restricted to the
    target's candidates (every gold substitute, whatever its score).
    """
    top = ranked[:K]
    lenient = [s for s in ranked if s in candidates][:K]
    return (
        float(len(top)), float(len(lenient)),
        float(sum(s in acceptable for s in top)), float(sum(s in conceivable for s in top)),
        float(sum(s in acceptable for s in lenient)), float(sum(s in conceivable for s in lenient)),
        float(min(len(acceptable), K)), float(len(acceptable)),
        float(min(len(conceivable), K)), float(len(conceivable)),
        float(min(len(ranked), 1)), float(bool(ranked) and ranked[0] in conceivable),
    )


def _prf(hits, n_sys, gold_k, gold_all, prefix: str) -> dict[str, object]:
    p = safe_div(hits, n_sys)
    r = safe_div(hits, gold_k)
    rs = safe_div(hits, gold_all)
    return {
        f"{prefix}_f@{K}": safe_div(2 * np.multiply(p, r), np.add(p, r)),
        f"{prefix}_fs@{K}": safe_div(2 * np.multiply(p, rs), np.add(p, rs)),
        f"{prefix}_p@{K}": p,
        f"{prefix}_r@{K}": r,
        f"{prefix}_rs@{K}": rs,
    }


def generative_metrics(s: dict) -> dict[str, object]:
    """All generative metrics (fractions) from summed columns; arrays broadcast."""
    out: dict[str, object] = {}
    for mode in ("strict", "lenient"):
        for ref, gk, ga in (("a", "gold_a_k", "gold_a"), ("c", "gold_c_k", "gold_c")):
            out.update(_prf(s[f"hit_{mode}_{ref}"], s[f"top_{mode}"], s[gk], s[ga],
                            f"{mode}_{ref}"))
    out["strict_c_p@1"] = safe_div(s["hit1_strict_c"], s["top1_strict"])
    return out
