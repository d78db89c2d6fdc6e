"""The blocks of a ranking snapshot: for a set of systems on one POS, each system's tie
p-value against the next-better one per metric, and its rank, rank interval and
conservative rank per headline metric (:mod:`leaderboard.scoring.rank_state`); the
pairwise matrices of the top systems; each team's best system.

Built from nothing, or from the previous snapshot's blocks and rank states: a pair of
results already compared keeps its p-value, and a rank state is updated with the systems
that changed (:func:`ranked_state`). Values come from a
:class:`~leaderboard.services.ranking.resamples.Resamples`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from leaderboard.scoring.rank_build import build
from leaderboard.scoring.rank_state import RankState
from leaderboard.scoring.resample_ranks import ranking_values
from leaderboard.scoring.significance import p_beats_rows, p_value
from leaderboard.services.ranking import ranking_stats as rs
from leaderboard.services.ranking.anonymity import team_key
from leaderboard.services.ranking.board_state import BoardState
from leaderboard.services.ranking.resamples import Resamples

PAIRWISE_TOP = 30


def best_per_team(systems: list[dict[str, Any]], points: np.ndarray,
                  tiebreak: list | np.ndarray) -> list[int]:
    """Global indices of each team's best system on ``points`` (earliest wins a tie), in
    snapshot order."""
    best: dict[Any, int] = {}
    for i, system in enumerate(systems):
        team = team_key(system)
        j = best.get(team)
        if j is None or (-points[i], tiebreak[i]) < (-points[j], tiebreak[j]):
            best[team] = i
    return sorted(best.values())


def pairwise_matrices(systems: list[dict[str, Any]], points: dict[str, np.ndarray],
                      rows: Callable[[list[int], str], np.ndarray], members: list[int],
                      keys: tuple[str, ...], previous: dict[str, Any],
                      prefetch: Callable[[dict[int, set[str]]], None] | None = None
                      ) -> dict[str, Any]:
    """P(row beats column) among the top :data:`PAIRWISE_TOP` systems of every displayed
    metric ``keys`` (all targets), for the pairwise view; a metric whose top systems are the
    same results as in ``previous`` keeps its matrix. ``prefetch`` (global index -> metrics)
    is told first every value the new matrices need, so a system is computed once."""
    out: dict[str, Any] = {}
    if not members:
        return out
    tops, todo = _pairwise_tops(systems, points, members, keys, previous)
    if prefetch is not None and todo:
        prefetch(pairwise_needs(systems, points, members, keys, previous))
    for key, top in tops.items():
        rids = [systems[g]["result_id"] for g in top]
        if key not in todo:
            out[key] = previous[key]
            continue
        values = rows(top, key)
        matrix = p_beats_rows(values[:, None, :], values[None, :, :])
        out[key] = {"ids": [systems[g]["id"] for g in top], "result_ids": rids,
                    "p_beats": np.round(matrix, 4).tolist()}
    return out


def _pairwise_tops(systems: list[dict[str, Any]], points: dict[str, np.ndarray],
                   members: list[int], keys: tuple[str, ...], previous: dict[str, Any]
                   ) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """The top systems of each metric, and of those the metrics whose matrix changes."""
    tops: dict[str, list[int]] = {}
    for key in keys:
        ranked = sorted(members, key=lambda g: (-points[key][g], systems[g]["date"],
                                                systems[g]["id"]))
        tops[key] = [g for g in ranked if np.isfinite(points[key][g])][:PAIRWISE_TOP]
    todo = {key: top for key, top in tops.items()
            if (previous.get(key) or {}).get("result_ids")
            != [systems[g]["result_id"] for g in top]}
    return tops, todo


def pairwise_needs(systems: list[dict[str, Any]], points: dict[str, np.ndarray],
                   members: list[int], keys: tuple[str, ...], previous: dict[str, Any]
                   ) -> dict[int, set[str]]:
    """Global index -> the metrics :func:`pairwise_matrices` will read of it."""
    needs: dict[int, set[str]] = {}
    if members:
        for key, top in _pairwise_tops(systems, points, members, keys, previous)[1].items():
            for g in top:
                needs.setdefault(g, set()).add(key)
    return needs


def points_of(systems: list[dict[str, Any]], pos: str | None,
              keys: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Point estimates per metric over ``systems`` (-inf where a system has none)."""
    sources = [s["metrics"] if pos is None else s["by_pos"].get(pos, {}).get("metrics", {})
               for s in systems]
    table = np.array([[src.get(k) for k in keys] for src in sources],
                     dtype=float).reshape(len(systems), len(keys))  # None becomes NaN
    table[np.isnan(table)] = -np.inf
    return {k: table[:, i].copy() for i, k in enumerate(keys)}


class PreviousPairs:
    """The previous snapshot's data, read for the neighbour pairs it already compared."""

    def __init__(self, data: dict[str, Any] | None, now: dict[int, int]) -> None:
        """``now``: result id -> index among the current systems (a result's numbers never
        change, so its points are read from the current ones)."""
        self.data = data
        self._points: dict[str, dict[str, np.ndarray]] = {}
        systems = data["systems"] if data else []
        self.tiebreak = rs.tiebreak_ranks([(s["date"], s["id"]) for s in systems])
        self._now = np.array([now.get(s["result_id"], -1) for s in systems], dtype=int)
        self.current: dict[str, dict[str, np.ndarray]] = {}
        self._pairs: dict[tuple[str, str, str | None], Pairs] = {}

    def pairs(self, name: str, key: str, headline: str | None = None) -> Pairs:
        """Neighbour p-values by pair of result ids (:func:`pair_codes`, sorted): of the
        all-entries block, or of the best-per-team block of ``headline`` (once each: an
        update asks twice, for what it must compute and then for the block)."""
        if self.data is None or self.current.get(name, {}).get(key) is None:
            return self._read_pairs(name, key, headline)
        if (name, key, headline) not in self._pairs:
            self._pairs[(name, key, headline)] = self._read_pairs(name, key, headline)
        return self._pairs[(name, key, headline)]

    def _read_pairs(self, name: str, key: str, headline: str | None = None) -> Pairs:
        if self.data is None:
            return NO_PAIRS
        systems = self.data["systems"]
        if headline is None:
            subset = list(range(len(systems)))
            ties = self.data["stats"].get(name, {}).get("ties", {}).get(key)
        else:
            entry = self.data.get("best", {}).get(headline, {})
            subset = entry.get("members", [])
            ties = entry.get("stats", {}).get(name, {}).get("ties", {}).get(key)
        if not ties:
            return NO_PAIRS
        points = self._points.setdefault(name, {})
        if key not in points:
            current = self.current.get(name, {}).get(key)
            if current is None:
                return NO_PAIRS
            gone = np.flatnonzero(self._now < 0)
            values = np.where(self._now >= 0, current[np.maximum(self._now, 0)], 0.0)
            if gone.size:
                values[gone] = points_of([systems[i] for i in gone],
                                       None if name == "all" else name, (key,))[key]
            points[key] = values
        order = np.array(rs.order_by_points(points[key][subset], self.tiebreak[subset]),
                         dtype=np.int64)
        rids = np.array([systems[g]["result_id"] for g in subset], dtype=np.int64)
        p = np.array([np.nan if v is None else v for v in ties], dtype=float)
        codes, values = pair_codes(rids[order[:-1]], rids[order[1:]]), p[order[1:]]
        keep = ~np.isnan(values)
        codes, values = codes[keep], values[keep]
        sort = np.argsort(codes)
        return codes[sort], values[sort]


def pair_codes(above: np.ndarray, below: np.ndarray) -> np.ndarray:
    """One int64 per (above, below) pair of result ids."""
    return (above.astype(np.int64) << 32) | below.astype(np.int64)


def find_codes(known: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``codes``: its index in the sorted ``known`` and whether it is there."""
    at = np.minimum(np.searchsorted(known, codes), max(len(known) - 1, 0))
    found = (known[at] == codes) if len(known) else np.zeros(len(codes), bool)
    return at, found


#: Known neighbour p-values: pair codes (sorted) and their p-values.
Pairs = tuple[np.ndarray, np.ndarray]
NO_PAIRS: Pairs = (np.zeros(0, dtype=np.int64), np.zeros(0))


def _tie_plan(points: np.ndarray, tiebreak: np.ndarray, rids: list[int], members: set[int],
              known: Pairs) -> tuple[list[float | None], list[tuple[int, int]]]:
    """Each system's p-value against the next-better one where ``known`` has the pair of
    results, and the pairs (above, below) still to compare."""
    n = len(rids)
    if n < 2:
        return [None] * n, []
    order = np.array(rs.order_by_points(points, tiebreak), dtype=np.int64)
    inside = np.zeros(n, dtype=bool)
    inside[list(members)] = True
    above, below = order[:-1], order[1:]
    both = inside[above] & inside[below]
    above, below = above[both], below[both]
    ids = np.array(rids, dtype=np.int64)
    codes = pair_codes(ids[above], ids[below])
    known_codes, known_p = known
    at, found = find_codes(known_codes, codes)
    p = np.full(n, np.nan)
    p[below[found]] = known_p[at[found]]
    values: list[float | None] = [None if v != v else v for v in p.tolist()]  # NaN: None
    todo = list(zip(above[~found].tolist(), below[~found].tolist(), strict=True))
    return values, todo


def _compare_pairs(p: list[float | None], todo: list[tuple[int, int]],
                   rows: Callable[[list[int]], np.ndarray]) -> list[float | None]:
    """Fill ``p`` for the pairs ``todo``: the two-sided p-value (:mod:`significance`) of the
    lower system against the next-better one, as the compare page gives it."""
    if todo:
        beats = p_beats_rows(rows([a for a, _ in todo]), rows([b for _, b in todo]))
        for (_, below), value in zip(todo, beats, strict=True):
            # Six decimals: stored p must keep its side of the threshold (B <= 10^5).
            p[below] = round(float(p_value(float(value))), 6)
    return p


def _rank_lists(state: RankState | None, rids: list[int]
                ) -> tuple[list[int | None], list[int | None], list[int | None]]:
    lo: list[int | None] = [None] * len(rids)
    hi: list[int | None] = [None] * len(rids)
    cons: list[int | None] = [None] * len(rids)
    if state is None:
        return lo, hi, cons
    conservative = state.conservative()
    if state.ids == rids:  # every system ranked, in the same order (the usual case)
        return state.rank_lo.tolist(), state.rank_hi.tolist(), conservative.tolist()
    where = state.index()
    for g, rid in enumerate(rids):
        i = where.get(rid)
        if i is not None:
            lo[g], hi[g], cons[g] = (int(state.rank_lo[i]), int(state.rank_hi[i]),
                                     int(conservative[i]))
    return lo, hi, cons


#: Past this share of changed systems (and more than FULL_REBUILD_MIN), a refresh
#: recomputes everything. Up to there an update costs about a rebuild or less
#: (perf/bench_ranking.py --changes measures both) and keeps the per-resample ranks for
#: the next refresh.
FULL_REBUILD_SHARE = 0.5
FULL_REBUILD_MIN = 64


def small_change(before: list[int], now: list[int]) -> tuple[list[int], list[int]] | None:
    """(removed, added) ids from ``before`` to ``now`` when few enough changed for an
    update (:data:`FULL_REBUILD_SHARE`), else None."""
    kept, new = set(before), set(now)
    removed = [r for r in before if r not in new]
    added = [r for r in now if r not in kept]
    if len(removed) + len(added) > max(FULL_REBUILD_MIN, FULL_REBUILD_SHARE * len(now)):
        return None
    return removed, added


def _needs_of(plans: dict[str, tuple[list[float | None], list[tuple[int, int]]]],
              rids: list[int]) -> dict[int, set[str]]:
    """Result id -> metrics, of the pairs still to compare in ``plans``."""
    needs: dict[int, set[str]] = {}
    for key, (_, todo) in plans.items():
        for pair in todo:
            for n in pair:
                needs.setdefault(rids[n], set()).add(key)
    return dict(sorted(needs.items()))


def merge_needs(into: dict[int, set[str]], more: dict[int, set[str]]) -> None:
    for rid, keys in more.items():
        into.setdefault(rid, set()).update(keys)


@dataclass
class BlockBuilder:
    """What the blocks of one POS share: points and tiebreaks of every system (global
    indices), which of them have comparable resamples, where values come from, and the
    previous and new rank states."""

    pos: str | None
    points: dict[str, np.ndarray]
    tiebreak: np.ndarray
    rids: list[int]
    members: set[int]
    source: Resamples
    previous: BoardState | None
    states: dict[str, RankState]
    #: metric -> global indices set apart on it (:mod:`.set_apart`): never ranked or tied
    apart: dict[str, set[int]] = field(default_factory=dict)

    def _inside(self, subset: list[int]) -> Callable[[str], list[int]]:
        """Positions in ``subset`` of the systems with comparable resamples, per metric
        (without those set apart on it)."""
        everyone = [n for n, g in enumerate(subset) if g in self.members]

        def inside_on(key: str) -> list[int]:
            apart = self.apart.get(key)
            return [n for n in everyone if subset[n] not in apart] if apart else everyone
        return inside_on

    def _plans(self, subset: list[int], tie_keys: tuple[str, ...],
               old_pairs: Callable[[str], Pairs]
               ) -> dict[str, tuple[list[float | None], list[tuple[int, int]]]]:
        rids = [self.rids[g] for g in subset]
        tiebreak = self.tiebreak[subset]
        inside_on = self._inside(subset)
        return {key: _tie_plan(self.points[key][subset], tiebreak, rids, set(inside_on(key)),
                               old_pairs(key)) if inside_on(key)
                else ([None] * len(subset), []) for key in tie_keys}

    def needs(self, subset: list[int], tie_keys: tuple[str, ...],
              old_pairs: Callable[[str], Pairs]) -> dict[int, set[str]]:
        """Result id -> the metrics whose values the tie pairs of this block still need
        (:meth:`block` would compute them; told first, a refresh computes each result once
        for all its blocks)."""
        return _needs_of(self._plans(subset, tie_keys, old_pairs),
                         [self.rids[g] for g in subset])

    def block(self, subset: list[int], prefix: str, tie_keys: tuple[str, ...],
              rank_keys: tuple[str, ...],
              old_pairs: Callable[[str], Pairs]) -> dict[str, Any]:
        """Tie p-values (``tie_keys``) and ranks (``rank_keys``) over the systems ``subset``;
        lists are indexed like ``subset``."""
        rids = [self.rids[g] for g in subset]
        inside_on = self._inside(subset)
        block: dict[str, Any] = {"ties": {}, "ranks": {}}
        plans = self._plans(subset, tie_keys, old_pairs)
        # Every system some pair needs, read or computed at once (the metrics of its pairs).
        self.source.prefetch(_needs_of(plans, rids), self.pos)
        for key, (p, todo) in plans.items():
            block["ties"][key] = _compare_pairs(
                p, todo, lambda ns, key=key: self.source.rows([rids[n] for n in ns], self.pos,
                                                              key))

        def rank(key: str) -> RankState | None:
            inside = inside_on(key)
            if not inside:
                return None
            name = f"{prefix}{key}|{self.pos or 'all'}"
            old = self.previous.states.get(name) if self.previous else None
            points = self.points[key][subset]
            return ranked_state(lambda ids: self.source.rows(ids, self.pos, key), old,
                                {rids[n]: points[n] for n in inside})

        # Metrics in threads: most of a state's work is numpy sorting and comparing, which
        # runs outside the GIL (two cores: about half the time for the five headlines).
        with ThreadPoolExecutor(max(1, min(len(rank_keys), os.cpu_count() or 1))) as pool:
            states = list(pool.map(rank, rank_keys))
        for key, state in zip(rank_keys, states, strict=True):
            if state is not None:
                self.states[f"{prefix}{key}|{self.pos or 'all'}"] = state
            points = self.points[key][subset] if subset else np.zeros(0)
            lo, hi, cons = _rank_lists(state, rids)
            ranks: list[int | None] = rs.point_ranks(points).tolist()
            for n, g in enumerate(subset):
                if g in self.apart.get(key, ()):
                    ranks[n] = None
            block["ranks"][key] = {"rank": ranks, "lo": lo, "hi": hi, "conservative": cons}
        return block


class ValueTable:
    """Resampled values of one rank state's systems, as the ranking compares them
    (:func:`~leaderboard.scoring.resample_ranks.ranking_values`), each read once per refresh
    into one matrix: an update asks for the same systems' rows with every change (its
    overlapping ones), and gathering them from a matrix costs a copy, not a lookup and
    conversion per row."""

    def __init__(self, fetch: Callable[[list[int]], np.ndarray], b: int) -> None:
        self.fetch = fetch
        self.index: dict[int, int] = {}
        self.matrix = np.empty((0, b))

    def __call__(self, ids: list[int]) -> np.ndarray:
        missing = [r for r in dict.fromkeys(ids) if r not in self.index]
        if missing:
            rows = ranking_values(self.fetch(missing))
            start = len(self.index)
            if start + len(missing) > self.matrix.shape[0]:
                grown = np.empty((max(start + len(missing), 2 * self.matrix.shape[0], 64),
                                  rows.shape[1]))
                grown[:start] = self.matrix[:start]
                self.matrix = grown
            self.matrix[start:start + len(missing)] = rows
            self.index.update((r, start + n) for n, r in enumerate(missing))
        return self.matrix[[self.index[r] for r in ids]]


def ranked_state(fetch: Callable[[list[int]], np.ndarray], state: RankState | None,
                 points: dict[int, float]) -> RankState:
    """The rank state of the results ``points`` (result id -> point estimate): ``state``
    updated with what changed since, or built when there is none or most changed."""
    change = small_change(state.ids, list(points)) if state is not None else None
    if state is not None and change is not None:
        removed, added = change
        fetch = ValueTable(fetch, state.b)
        changed = [(*state.remove(rid, fetch([rid])[0], fetch), -1) for rid in removed]
        changed += [(*state.add(rid, fetch([rid])[0], points[rid], fetch), 1) for rid in added]
        state.settle(changed, added, fetch)
        return state
    ids = list(points)
    return build(fetch(ids), np.array([points[r] for r in ids], dtype=float), ids=ids)
