"""Head-to-head comparison of two systems on every metric (compare page and API).

Verdicts use :mod:`leaderboard.scoring.significance`, the rule of every other page. Needs
the two results' private per-target statistics, so it reads the database (two rows, cached
per result pair), never the hidden gold.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from sqlmodel import Session, col, select

from leaderboard.models import Board, Result, Split
from leaderboard.scoring import TargetStats
from leaderboard.scoring.bootstrap import shared_counts
from leaderboard.scoring.printing import printed
from leaderboard.scoring.significance import (
    diff_interval,
    format_p,
    p_beats,
    p_value,
    significant,
)
from leaderboard.services.catalog.boards import board_family, board_views
from leaderboard.services.ranking.metric_info import (
    DISPLAYED,
    LABELS,
    POS_VALUES,
    default_sort,
    displayed,
)
from leaderboard.services.ranking.set_apart import why
from leaderboard.services.ranking.systems import system_detail

_CACHE: OrderedDict[tuple, dict[str, Any]] = OrderedDict()
_LOCK = threading.Lock()
#: Paired comparisons kept per process (a few KB each): results never change, so an entry
#: stays right across snapshots; the LRU bounds memory.
_CACHE_SIZE = 1024


class NotComparable(ValueError):
    """The two systems were not scored on the same resamples (other split or settings)."""


def _metrics_at(detail: dict[str, Any], pos: str | None) -> dict[str, float]:
    if pos is None:
        return detail["metrics"]
    return detail["by_pos"].get(pos, {}).get("metrics", {})


def _paired(session: Session, result_a: int, result_b: int, pos: str | None,
            on_miss: Callable[[], None] | None = None) -> dict[str, dict[str, Any]]:
    key = (str(session.get_bind().url), result_a, result_b, pos)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    if on_miss is not None:
        on_miss()  # may refuse (a budget of computations): before any work
    rows = {r.id: r for r in session.exec(select(Result).where(
        col(Result.id).in_([result_a, result_b]))).all()}
    a = TargetStats.from_bytes(rows[result_a].target_stats)
    b = TargetStats.from_bytes(rows[result_b].target_stats)
    try:
        counts = shared_counts([a, b], pos)
    except ValueError as exc:
        raise NotComparable("the two systems were not scored on the same resamples: "
                            + str(exc)) from exc
    if counts.shape[0] == 0:
        raise NotComparable("the two systems were scored without bootstrap resamples")
    va, vb = a.resampled(counts, pos), b.resampled(counts, pos)
    out = {}
    for k in DISPLAYED:
        beat = p_beats(va[k], vb[k])
        p = p_value(beat)
        out[k] = {"diff_interval": [printed(x) for x in diff_interval(va[k], vb[k])],
                  "p_beats": round(beat, 6), "p_value": round(float(p), 6),
                  "significant": significant(p)}
    with _LOCK:
        _CACHE[key] = out
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return out


def _labels_hidden(session: Session, board_id: int) -> bool:
    board = session.get(Board, board_id)
    benchmark = session.get(Split, board.split_id,
                            options=Split.without_files()) if board else None
    return bool(benchmark is not None and benchmark.hidden and not board.labels_public)


def _summary(detail: dict[str, Any]) -> dict[str, Any]:
    return {"id": detail["id"], "system": detail["system"], "team": detail["team"],
            "team_id": detail["team_id"], "date": detail["date"],
            "paper_url": detail["paper_url"], "code_url": detail["code_url"]}


def head_to_head(*, session: Session, a_id: int, b_id: int, viewer: Any = None,
                 pos: str | None = None,
                 on_miss: Callable[[], None] | None = None) -> dict[str, Any] | None:
    """Both systems, then per metric: scores, difference ``a − b`` with its 95% paired
    bootstrap interval, P(A beats B), the two-sided p and the verdict; and a summary of the
    metrics each one wins (significantly or not).

    None when either system does not exist, is not visible to ``viewer`` or has no result;
    raises :class:`NotComparable` when no paired comparison is possible, ValueError on an
    unknown POS. ``on_miss`` is called before a paired comparison that is not cached yet is
    computed (the web's budget of such computations; it may raise to refuse).
    """
    if pos is not None and pos not in POS_VALUES:
        raise ValueError(f"unknown pos {pos!r}; use ALL, {', '.join(POS_VALUES)}")
    a = system_detail(session=session, submission_id=a_id, viewer=viewer)
    b = system_detail(session=session, submission_id=b_id, viewer=viewer)
    if a is None or b is None or a["result_id"] is None or b["result_id"] is None:
        return None
    if a["board_id"] != b["board_id"]:
        # Same split and resamples maybe, but a generative list and a scored candidate list
        # (or a dev and a test upload) answer different questions.
        raise NotComparable("the two systems are on different leaderboards")
    if not a["public"] and not b["public"] and a["team_id"] == b["team_id"] \
            and _labels_hidden(session, a["board_id"]):
        # A paired test between two of one's own unpublished files, which differ on a few
        # targets, reads those targets' hidden labels back.
        raise NotComparable("two private submissions of one team are not compared on a "
                            "leaderboard whose labels are hidden; compare them on the dev "
                            "leaderboard, or publish one")
    paired = _paired(session, a["result_id"], b["result_id"], pos, on_miss)
    ma, mb = _metrics_at(a, pos), _metrics_at(b, pos)
    # The metrics of A's board's track: a ranking board compares GAP, GAP ratio and P@1 only.
    board = session.get(Board, a["board_id"]) if a.get("board_id") is not None else None
    track = board.track if board is not None else None
    views = board_views(board, session) if board is not None else None
    family = board_family(board, session)
    metrics = {k: _entry(k, float(ma[k]), float(mb[k]), paired[k], (a, b), family)
               for k in displayed(views) if k in ma and k in mb}
    return {"a": _summary(a), "b": _summary(b), "pos": pos or "ALL", "family": family,
            "track": track or "generative", "headline": default_sort(views),
            "summary": _won(metrics), "metrics": metrics}


def _entry(k: str, x: float, y: float, paired: dict[str, Any], systems: tuple[dict, dict],
           family: str) -> dict[str, Any]:
    """One metric's comparison, printed by the family's rule (two decimals, as the tables
    print: finer values helped read hidden labels back); a metric on which either file is
    set apart for its repeats gets a caveat instead of a verdict."""
    caveat = "; ".join(f"{side} {why(d, k)}" for side, d in zip("AB", systems, strict=True)
                       if why(d, k))
    return {"label": LABELS.get(k, k), "a": printed(x, family), "b": printed(y, family),
            "diff": printed(x - y), **paired, "caveat": caveat}


def _won(metrics: dict[str, dict[str, Any]]) -> dict[str, int]:
    """How many metrics each side scores higher on (and significantly), those with a caveat
    left out of the count."""
    won = {"a": [0, 0], "b": [0, 0], "even": 0}
    fair = [m for m in metrics.values() if not m["caveat"]]
    for m in fair:
        side = "a" if m["diff"] > 0 else "b" if m["diff"] < 0 else None
        if side is None:
            won["even"] += 1
        else:
            won[side][0] += 1
            won[side][1] += int(m["significant"])
    return {"metrics": len(fair), "caveated": len(metrics) - len(fair), "a_won": won["a"][0],
            "a_won_significantly": won["a"][1], "b_won": won["b"][0],
            "b_won_significantly": won["b"][1], "even": won["even"]}


def p_text(p: float | None) -> str:
    """Template helper: p as printed everywhere (see :func:`format_p`)."""
    return format_p(p)
