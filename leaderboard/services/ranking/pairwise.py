"""The pairwise significance view: P(row beats column) among the top systems of a metric.

Read from the snapshot (computed at refresh time, see ``blocks.pairwise_matrices``);
verdicts and letters follow :mod:`leaderboard.scoring.significance`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from leaderboard.scoring.printing import printed
from leaderboard.scoring.significance import compact_letters, significant
from leaderboard.services.ranking.anonymity import page_path, public_ids, shown_id
from leaderboard.services.ranking.metric_info import LABELS, displayed, track_of
from leaderboard.services.ranking.neighbours import WINDOW
from leaderboard.services.ranking.ranking_table import BadQuery, shown_style
from leaderboard.services.ranking.set_apart import is_apart, why

MAX_TOP = 30


def parse_top(top: str | None) -> int:
    """``top`` as a whole number from 2 to 30 (default 30); raises :class:`BadQuery`."""
    if top in (None, ""):
        return MAX_TOP
    try:
        value = int(top)
    except ValueError:
        raise BadQuery("top must be a whole number from 2 to 30") from None
    if not 2 <= value <= MAX_TOP:
        raise BadQuery("top must be a whole number from 2 to 30")
    return value


def pairwise_table(data: dict[str, Any], metric: str, top: int = MAX_TOP) -> dict[str, Any]:
    """Systems best first with score and letters, and the P / p / verdict matrices.

    ``p_beats[i][j]`` is P(system i beats system j); ``p_value`` its two-sided p;
    ``significant`` whether p < 0.05. Raises :class:`BadQuery` on a metric the board's track
    does not show.
    """
    if metric not in displayed(track_of(data)):
        raise BadQuery(f"unknown metric {metric!r} on a {track_of(data)}-track leaderboard")
    entry = data.get("pairwise", {}).get(metric, {"ids": [], "p_beats": []})
    by_id = {s["id"]: s for s in data.get("systems", [])}
    ids = [i for i in entry["ids"][:top] if i in by_id]
    keep = [entry["ids"].index(i) for i in ids]
    # A board without public systems has no matrix (reshape(0, -1) of nothing fails).
    beats = (np.array(entry["p_beats"], dtype=float).reshape(len(entry["ids"]), -1)[
        np.ix_(keep, keep)] if keep else np.zeros((0, 0)))
    return {**_table(by_id, metric, ids, beats, shown_style(data)[0]),
            "set_apart": set_apart(data, metric)}


def set_apart(data: dict[str, Any], metric: str) -> list[dict[str, Any]]:
    """Systems set apart on ``metric`` (:mod:`.set_apart`), best first: never compared, listed
    below the grid with why."""
    family = shown_style(data)[0]
    rows = [{"id": shown_id(s), "page": page_path(s), "system": s["system"], "team": s["team"],
             "score": printed(s["metrics"].get(metric), family), "why": why(s, metric)}
            for s in data.get("systems", []) if is_apart(s, metric)]
    return sorted(rows, key=lambda r: -(r["score"] if r["score"] is not None else -1e9))


def parse_around(around: str | None) -> int | None:
    """``around`` as a submission id (None when absent); raises :class:`BadQuery`."""
    if around in (None, ""):
        return None
    if not around.isdigit() or len(around) > 12:
        raise BadQuery("around must be a submission id (a whole number)")
    return int(around)


def window_start(data: dict[str, Any], metric: str, around: int) -> int:
    """Where the :data:`WINDOW` systems around submission ``around`` start in the order of
    ``metric`` (0-based): every system of one window has the same one, so a window's table
    and chart are built once for all of them. Raises :class:`BadQuery`."""
    track = track_of(data)
    if metric not in displayed(track):
        raise BadQuery(f"unknown metric {metric!r} on a {track}-track leaderboard")
    band = data.get("neighbours", {}).get(metric)
    if band is None:
        raise BadQuery(f"the window around a system is kept for the ranked metrics only "
                       f"({', '.join(data.get('neighbours', {})) or 'none on this board'})")
    try:
        # an anonymous system's submission id answers as one the board does not rank
        at = -1 if around in public_ids(data) else band["ids"].index(around)
        if at < 0:
            raise ValueError(around)
    except ValueError:
        raise BadQuery(f"submission {around} is not ranked on this board's "
                       f"{LABELS.get(metric, metric)}") from None
    return max(0, min(at - WINDOW // 2, len(band["ids"]) - WINDOW))


def window_table(data: dict[str, Any], metric: str, around: int) -> dict[str, Any]:
    """:func:`pairwise_table` of the :data:`WINDOW` systems around submission ``around`` in
    the order of ``metric`` (a headline: the snapshot keeps every system against its
    neighbours, ``neighbours.neighbour_bands``), with where the window starts."""
    start = window_start(data, metric, around)
    band = data["neighbours"][metric]
    n = len(band["ids"])
    ids = band["ids"][start:start + WINDOW]
    beats = np.full((len(ids), len(ids)), 0.5)
    for i in range(len(ids)):
        for j in range(i + 1, len(ids)):
            beats[i, j] = band["down"][start + i][j - i - 1]
            beats[j, i] = band["up"][start + i][j - i - 1]
    by_id = {s["id"]: s for s in data.get("systems", [])}
    return {**_table(by_id, metric, ids, beats, shown_style(data)[0]), "around": around,
            "first_rank": start + 1, "ranked": n, "set_apart": set_apart(data, metric)}


def _table(by_id: dict[int, dict[str, Any]], metric: str, ids: list[int],
           beats: np.ndarray, family: str) -> dict[str, Any]:
    """The systems ``ids`` (rows of the snapshot by id) with letters and the P / p / verdict
    matrices of ``beats``."""
    p = np.minimum(1.0, 2.0 * np.minimum(beats, 1.0 - beats))
    sig = np.vectorize(significant, otypes=[bool])(p) if p.size else np.zeros((0, 0), bool)
    np.fill_diagonal(sig, False)
    letters = compact_letters(sig) if len(ids) else []
    systems = []
    for n, i in enumerate(ids):
        s = by_id[i]
        systems.append({"id": shown_id(s), "page": page_path(s), "system": s["system"],
                        "team": s["team"],
                        "score": printed(s["metrics"].get(metric), family),
                        "letters": letters[n]})
    return {"metric": metric, "label": LABELS.get(metric, metric), "systems": systems,
            "p_beats": np.round(beats, 4).tolist(), "p_value": np.round(p, 6).tolist(),
            "significant": sig.tolist()}
