"""Each ranked system against its nearest neighbours, for the significance window.

For every headline metric, the systems in the order of the pairwise view (point estimate,
then date and id) and, for each one, P(it beats the d-th system below it) and P(that
system beats it) for d = 1 .. :data:`REACH` on the shared resamples (all targets). Any
window of :data:`WINDOW` consecutive systems reads its whole matrix from this band
(``pairwise.window_table``), so ``/significance?around=`` costs the read path nothing.

A pair of results keeps its numbers across snapshots (matched by result ids, as the
neighbour ties are): a new result adds the 2 × REACH pairs around it and little else.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import Any

import numpy as np

from leaderboard.scoring.significance import p_beats_rows
from leaderboard.services.ranking.blocks import find_codes, pair_codes

WINDOW = 30
REACH = WINDOW - 1
#: Pairs compared at once: two (CHUNK, B) float arrays at a time.
CHUNK = 4096


def _pairs(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair within REACH of ``n`` ranked systems, by upper system then distance: the
    upper system's index, the distance d, and how many pairs each system heads."""
    lengths = np.minimum(REACH, np.arange(n - 1, -1, -1, dtype=np.int64))
    upper = np.repeat(np.arange(n, dtype=np.int64), lengths)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return upper, np.arange(len(upper), dtype=np.int64) - starts + 1, lengths


def _known(previous: dict[str, Any] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted pair codes, P(upper beats lower), P(lower beats upper)) of a previous band."""
    if not previous:
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)
    rids = np.array(previous["result_ids"], dtype=np.int64)
    upper, gaps, _ = _pairs(len(rids))
    codes = pair_codes(rids[upper], rids[upper + gaps])
    down = np.fromiter(chain.from_iterable(previous["down"]), float, len(codes))
    up = np.fromiter(chain.from_iterable(previous["up"]), float, len(codes))
    order = np.argsort(codes)
    return codes[order], down[order], up[order]


def neighbour_bands(systems: list[dict[str, Any]], points: dict[str, np.ndarray],
                    rows: Callable[[list[int], str], np.ndarray], members: list[int],
                    keys: tuple[str, ...], previous: dict[str, Any]) -> dict[str, Any]:
    """The band of every metric in ``keys`` (global indices ``members``; ``rows`` gives
    their resampled values); pairs already in ``previous`` keep their numbers."""
    out: dict[str, Any] = {}
    if not members:
        return out
    for key in keys:
        ranked = sorted((g for g in members if np.isfinite(points[key][g])),
                        key=lambda g: (-points[key][g], systems[g]["date"], systems[g]["id"]))
        rids = np.array([systems[g]["result_id"] for g in ranked], dtype=np.int64)
        upper, gaps, lengths = _pairs(len(rids))
        codes = pair_codes(rids[upper], rids[upper + gaps])
        known_codes, known_down, known_up = _known(previous.get(key))
        at, found = find_codes(known_codes, codes)
        down, up = np.full(len(codes), np.nan), np.full(len(codes), np.nan)
        down[found], up[found] = known_down[at[found]], known_up[at[found]]
        todo = np.flatnonzero(~found)
        if todo.size:
            needed = np.unique(np.concatenate([upper[todo], upper[todo] + gaps[todo]]))
            values = rows([ranked[i] for i in needed], key)
            where = np.searchsorted(needed, np.arange(len(ranked)))
            for start in range(0, todo.size, CHUNK):
                part = todo[start:start + CHUNK]
                a = values[where[upper[part]]]
                b = values[where[upper[part] + gaps[part]]]
                down[part] = np.round(p_beats_rows(a, b), 4)
                up[part] = np.round(p_beats_rows(b, a), 4)
        ends = np.cumsum(lengths)
        starts, ends = (ends - lengths).tolist(), ends.tolist()
        down_list, up_list = down.tolist(), up.tolist()
        out[key] = {"ids": [systems[g]["id"] for g in ranked], "result_ids": rids.tolist(),
                    "down": [down_list[s:e] for s, e in zip(starts, ends, strict=True)],
                    "up": [up_list[s:e] for s, e in zip(starts, ends, strict=True)]}
    return out
