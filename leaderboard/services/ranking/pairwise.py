"""The pairwise significance view: P(row beats column) among the top systems of a metric.

Read from the snapshot (computed at refresh time, see ``blocks.pairwise_matrices``);
verdicts and letters follow :mod:`leaderboard.scoring.significance`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from leaderboard.scoring.significance import compact_letters, significant
from leaderboard.services.ranking.metric_info import LABELS, displayed, track_of
from leaderboard.services.ranking.neighbours import WINDOW
from leaderboard.services.ranking.ranking_table import BadQuery
from leaderboard.services.ranking.set_apart import is_apart, why

MAX_TOP = 30
#: Ranks per prepared window block (:func:`window_parts`).
WINDOW_BLOCK = 100


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
    return {**_table(by_id, metric, ids, beats), "set_apart": set_apart(data, metric)}


def set_apart(data: dict[str, Any], metric: str) -> list[dict[str, Any]]:
    """Systems set apart on ``metric`` (:mod:`.set_apart`), best first: never compared, listed
    below the grid with why."""
    rows = [{"id": s["id"], "system": s["system"], "team": s["team"],
             "score": s["metrics"].get(metric), "why": why(s, metric)}
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
        at = band["ids"].index(around)
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
    return {**_table(by_id, metric, ids, beats), "around": around, "first_rank": start + 1,
            "ranked": n, "set_apart": set_apart(data, metric)}


def _table(by_id: dict[int, dict[str, Any]], metric: str, ids: list[int],
           beats: np.ndarray) -> dict[str, Any]:
    """The systems ``ids`` (rows of the snapshot by id) with letters and the P / p / verdict
    matrices of ``beats``."""
    p = np.minimum(1.0, 2.0 * np.minimum(beats, 1.0 - beats))
    sig = np.vectorize(significant, otypes=[bool])(p) if p.size else np.zeros((0, 0), bool)
    np.fill_diagonal(sig, False)
    letters = compact_letters(sig) if len(ids) else []
    systems = []
    for n, i in enumerate(ids):
        s = by_id[i]
        systems.append({"id": i, "system": s["system"], "team": s["team"],
                        "score": s["metrics"].get(metric), "letters": letters[n]})
    return {"metric": metric, "label": LABELS.get(metric, metric), "systems": systems,
            "p_beats": np.round(beats, 4).tolist(), "p_value": np.round(p, 6).tolist(),
            "significant": sig.tolist()}


#: A system's keys a window reads (with its score on the window's metric).
_WINDOW_KEYS = ("id", "system", "team", "flags", "items_with_duplicates")


def _window_system(system: dict[str, Any], metric: str) -> dict[str, Any]:
    return {**{k: system[k] for k in _WINDOW_KEYS if k in system},
            "metrics": ({metric: system["metrics"][metric]}
                        if metric in system["metrics"] else {})}


def window_parts(data: dict[str, Any], metric: str) -> dict[tuple[str, tuple], Any]:
    """What a window around a system on a ranked ``metric`` reads, as a ranker prepares it:
    an index (the board, the ranked ids, the block size) and, for each
    :data:`WINDOW_BLOCK` ranks, their neighbour band rows and those of the :data:`WINDOW` - 1
    ranks after them, with the systems they name and every system set apart (listed under
    each window). A window reads the index and one block: a tenth of the band at 1,000
    systems (the whole band was a 480 KB part, 3 ms of a window's first request to parse)."""
    block = WINDOW_BLOCK
    band = data["neighbours"][metric]
    ids = band["ids"]
    systems = data.get("systems", [])
    apart = [s for s in systems if is_apart(s, metric)]
    parts: dict[tuple[str, tuple], Any] = {
        ("window", (metric,)): {"board": data.get("board"), "ids": ids, "block": block}}
    by_id = {s["id"]: s for s in systems}
    for number in range(max(1, -(-len(ids) // block))):
        low, high = number * block, min(len(ids), (number + 1) * block + WINDOW - 1)
        named = [by_id[i] for i in ids[low:high] if i in by_id and not is_apart(by_id[i], metric)]
        parts[("window", (metric, number))] = {
            "down": band["down"][low:high], "up": band["up"][low:high],
            "systems": [_window_system(s, metric) for s in named + apart]}
    return parts


class _Shifted(Sequence):
    """Rows of a band from rank ``first`` on, read by rank."""

    def __init__(self, rows: list[Any], first: int) -> None:
        self._rows, self._first = rows, first

    def __getitem__(self, rank):  # type: ignore[override]
        return self._rows[rank - self._first]

    def __len__(self) -> int:
        return self._first + len(self._rows)


def prepared_window(prepared: Callable[[str, tuple], Any], metric: str,
                    around: int) -> dict[str, Any] | None:
    """What :func:`window_table` reads for the window around ``around``, from the parts
    :func:`window_parts` made (``prepared(kind, variant)``: a part, or None); None when they
    were not prepared. An id not ranked gets a source :func:`window_start` refuses."""
    index = prepared("window", (metric,))
    if index is None:
        return None
    ids = index["ids"]
    band: dict[str, Any] = {"ids": ids, "down": [], "up": []}
    source = {"board": index["board"], "neighbours": {metric: band}, "systems": []}
    if around not in ids:
        return source
    number = window_start(source, metric, around) // index["block"]
    part = prepared("window", (metric, number))
    if part is None:
        return None
    first = number * index["block"]
    band["down"], band["up"] = _Shifted(part["down"], first), _Shifted(part["up"], first)
    source["systems"] = part["systems"]
    return source
