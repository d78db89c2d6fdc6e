"""Rank intervals and conservative ranks of one metric on one POS, kept up to date one
result at a time.

A :class:`RankState` holds, for every system of a board (by result id): its point estimate,
the bounds of its *residual* resampled values (each resample's value minus a shared shift),
its Holm family's p-values that can matter, and its 95% rank interval. :func:`rank_build.build`
computes it for a whole board; :meth:`RankState.add` and :meth:`RankState.remove` compare
one system only with the systems whose residual bounds overlap its own. Both give the same
numbers (``tests/scoring``). Why the bounds suffice: subtracting the same number from every
system in a resample changes no pairwise outcome, so a system whose lowest residual exceeds
another's highest beats it in every resample (p = 0) and is above it in every resample's
ranking. The shift is any fixed per-resample vector (:func:`build`: the mean).

Conservative rank (scoring spec, section 6): 1 + the Holm rejections among the systems with
a higher point estimate. Only p-values below ALPHA can be rejected: a system keeps the count
of its zeros and the sorted numerators q (p = q / B) of the others below ALPHA, its
*nears*. A p-value q / B > 0 passes Holm's first threshold ALPHA / (family - zeros) only
while family - zeros < ALPHA · B; past that a system rejects exactly its zeros and keeps no
nears (None; on a large board almost every system, whose nears were most of the bytes).
When changes bring it under the bound, its nears are computed from its family.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from leaderboard.scoring.resample_ranks import (
    rank_bounds,
    rank_dtype,
    ranking_values,
    resample_ranks,
    residual_bounds,
)
from leaderboard.scoring.significance import ALPHA, beat_q, holm_count, kept_nears, tracks_nears

#: Reads the resampled values (rows in the order of the ids) of systems already in a state.
Fetch = Callable[[list[int]], np.ndarray]


@dataclass
class RankState:
    """What the ranking keeps for one (metric, POS): see the module docstring."""

    b: int
    shift: np.ndarray
    ids: list[int] = field(default_factory=list)
    points: np.ndarray = field(default_factory=lambda: np.zeros(0))
    low: np.ndarray = field(default_factory=lambda: np.zeros(0))
    high: np.ndarray = field(default_factory=lambda: np.zeros(0))
    zeros: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    nears: list[np.ndarray | None] = field(default_factory=list)
    rank_lo: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    rank_hi: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    #: Per-resample ranks (m, B) of the systems marked ``known``, in memory only (a state
    #: read from bytes knows none): a change adds or takes away one in the resamples where
    #: the changed system is above, so a known system's interval is updated without
    #: re-ranking it among its neighbours. Systems re-ranked become known.
    ranks: np.ndarray | None = field(default=None, repr=False, compare=False)
    known: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool), repr=False,
                              compare=False)
    #: Added to each row of ``ranks`` at :meth:`settle`: a change certified above a system
    #: moves it in every resample, so it is counted here once instead of rewriting its row
    #: (most of the matrix, per change).
    _pending: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: Rows of ``ranks`` with room below for systems added before :meth:`settle` (``ranks``
    #: is a view of its first rows); one copy per refresh instead of one per added system.
    _room: np.ndarray | None = field(default=None, repr=False, compare=False)

    # -- reading ---------------------------------------------------------------------------
    def families(self) -> np.ndarray:
        """How many systems have a higher point estimate than each one."""
        return len(self.points) - np.searchsorted(np.sort(self.points), self.points,
                                                  side="right")

    def conservative(self) -> np.ndarray:
        """1 + Holm rejections per system, in state order."""
        family = self.families()
        out = 1 + self.zeros.astype(int)
        for i, near in enumerate(self.nears):
            if near is not None and near.size:
                out[i] = 1 + holm_count(int(family[i]), int(self.zeros[i]), near, self.b)
        return out

    def index(self) -> dict[int, int]:
        return {rid: i for i, rid in enumerate(self.ids)}

    # -- changing --------------------------------------------------------------------------
    def _overlapping(self, low: float, high: float) -> np.ndarray:
        return np.flatnonzero(~((self.low > high) | (self.high < low)))

    def _family_change(self, values: np.ndarray, point: float, low: float, high: float,
                       fetch: Fetch, sign: int) -> None:
        """Add (sign 1) or take away (-1) a system's p-value from the families of the
        systems below it."""
        below = np.flatnonzero(self.points < point)
        if below.size == 0:
            return
        sure = below[low > self.high[below]]
        self.zeros[sure] += sign
        unsure = below[~(low > self.high[below])]
        unsure = unsure[~(high < self.low[unsure])]  # certified below: p = 1, nothing kept
        if unsure.size == 0:
            return
        rows = ranking_values(fetch([self.ids[j] for j in unsure]))
        q = beat_q(np.broadcast_to(values, rows.shape), rows)
        for j, qj in zip(unsure, q, strict=True):
            if qj == 0:
                self.zeros[j] += sign
            elif qj > 0 and qj / self.b < ALPHA and self.nears[j] is not None:
                near = self.nears[j]
                if sign > 0:
                    self.nears[j] = np.insert(near, np.searchsorted(near, qj), qj)
                else:
                    self.nears[j] = np.delete(near, np.searchsorted(near, qj))

    def _move_ranks(self, values: np.ndarray, low: float, high: float, fetch: Fetch,
                    sign: int) -> np.ndarray | None:
        """Known per-resample ranks after a system (``values``, residual bounds) comes in
        (sign 1) or goes (-1); on coming in, its own per-resample ranks."""
        if self.ranks is None:
            return None
        if self._pending is None:
            self._pending = np.zeros(len(self.ids), dtype=np.int64)
        self._pending[self.known & (self.high < low)] += sign  # above them everywhere
        overlapping = self._overlapping(low, high)
        wanted = overlapping if sign > 0 else overlapping[self.known[overlapping]]
        rows = ranking_values(fetch([self.ids[j] for j in wanted])) if wanted.size else \
            np.zeros((0, self.b))
        mine = self.known[wanted]
        self.ranks[wanted[mine]] += (sign * (values > rows[mine])).astype(self.ranks.dtype)
        if sign < 0:
            return None
        above = int(np.count_nonzero(self.low > high))
        return 1 + above + np.count_nonzero(rows > values, axis=0)

    def remove(self, rid: int, values: np.ndarray, fetch: Fetch) -> tuple[float, float]:
        """Take system ``rid`` (resampled ``values``) out; returns its residual bounds."""
        values = ranking_values(values)
        i = self.ids.index(rid)
        point, low, high = self.points[i], self.low[i], self.high[i]
        self._drop(i)
        self._family_change(values, point, low, high, fetch, -1)
        self._move_ranks(values, low, high, fetch, -1)
        return float(low), float(high)

    def _drop(self, i: int) -> None:
        del self.ids[i]
        del self.nears[i]
        self.points, self.low, self.high, self.zeros, self.rank_lo, self.rank_hi = (
            np.delete(a, i) for a in (self.points, self.low, self.high, self.zeros,
                                      self.rank_lo, self.rank_hi))
        self.known = np.delete(self.known, i)
        if self.ranks is not None:
            self.ranks = np.delete(self.ranks, i, axis=0)
            self._room = None
        if self._pending is not None:
            self._pending = np.delete(self._pending, i)

    def add(self, rid: int, values: np.ndarray, point: float,
            fetch: Fetch) -> tuple[float, float]:
        """Put system ``rid`` in; returns its residual bounds. Rank intervals are left to
        :meth:`settle`."""
        values = ranking_values(values)
        low, high = (float(x[0]) for x in residual_bounds(values[None, :], self.shift))
        family = np.flatnonzero(self.points > point)
        zeros, nears = 0, np.zeros(0, dtype=int)
        if family.size:
            sure = self.low[family] > high
            zeros = int(sure.sum())
            unsure = family[~sure]
            if unsure.size:
                q = beat_q(ranking_values(fetch([self.ids[j] for j in unsure])), values)
                zeros += int(np.sum(q == 0))
                nears = kept_nears(q, self.b)
        self._family_change(values, point, low, high, fetch, 1)
        own_ranks = self._move_ranks(values, low, high, fetch, 1)
        if self.ranks is not None and own_ranks is not None:
            self._append_ranks(own_ranks)
        if self._pending is not None:
            self._pending = np.append(self._pending, 0)
        self.known = np.append(self.known, own_ranks is not None)
        self.ids.append(rid)
        self.nears.append(nears)
        self.points = np.append(self.points, point)
        self.low, self.high = np.append(self.low, low), np.append(self.high, high)
        self.zeros = np.append(self.zeros, zeros)
        self.rank_lo, self.rank_hi = np.append(self.rank_lo, 0), np.append(self.rank_hi, 0)
        return low, high

    def _append_ranks(self, row: np.ndarray) -> None:
        """``ranks`` with ``row`` below, in the room kept for it (grown by a quarter)."""
        assert self.ranks is not None
        m = self.ranks.shape[0]
        dtype = rank_dtype(m + 1)
        room = self._room
        if (room is None or room.shape[0] <= m or room.dtype != dtype
                or not np.shares_memory(room, self.ranks)):
            room = np.empty((m + 1 + m // 4 + 8, self.b), dtype=dtype)
            room[:m] = self.ranks
            self._room = room
        room[m] = row
        self.ranks = room[:m + 1]

    def _flush_ranks(self) -> None:
        """Apply the pending moves to ``ranks`` and give back the room left below it."""
        if self.ranks is not None and self._pending is not None:
            moved = np.flatnonzero(self._pending)
            self.ranks[moved] += self._pending[moved, None].astype(self.ranks.dtype)
        self._pending = None
        if self._room is not None and self.ranks is not None:
            self.ranks = self.ranks.copy()
        self._room = None

    def settle(self, changed: Iterable[tuple[float, float, int]], added: Iterable[int],
               fetch: Fetch) -> None:
        """Bring rank intervals up to date after :meth:`add`/:meth:`remove`; ``changed``:
        (low, high, +1 added / -1 removed) of every changed system. A system overlapping
        none moves by the changes certified above it. The others and the added ones: from
        their per-resample ranks when known, else re-ranked among their overlapping ones."""
        changed = list(changed)
        self._flush_ranks()
        self._track_nears(fetch)
        index = self.index()
        window = np.zeros(len(self.ids), dtype=bool)
        window[[index[rid] for rid in added if rid in index]] = True
        delta = np.zeros(len(self.ids), dtype=int)
        for low, high, sign in changed:
            window |= ~((self.low > high) | (self.high < low))
            delta += sign * (low > self.high)
        steady = ~window
        self.rank_lo[steady] += delta[steady]
        self.rank_hi[steady] += delta[steady]
        rows = np.flatnonzero(window)
        known, rows = rows[self.known[rows]], rows[~self.known[rows]]
        if known.size and self.ranks is not None:
            self.rank_lo[known], self.rank_hi[known] = rank_bounds(self.ranks[known])
        if rows.size:
            self._rerank(rows, fetch)

    def _track_nears(self, fetch: Fetch) -> None:
        """Nears of the systems that can now reject one (computed from their family), none
        for those that no longer can."""
        tracked = tracks_nears(self.families(), self.zeros, self.b)
        for i in np.flatnonzero(~tracked):
            self.nears[i] = None
        start = [i for i in np.flatnonzero(tracked) if self.nears[i] is None]
        for i in start:
            family = np.flatnonzero(self.points > self.points[i])
            unsure = family[~(self.low[family] > self.high[i])]
            if unsure.size == 0:
                self.nears[i] = np.zeros(0, dtype=int)
                continue
            own = ranking_values(fetch([self.ids[i]]))[0]
            q = beat_q(ranking_values(fetch([self.ids[j] for j in unsure])), own)
            self.nears[i] = kept_nears(q, self.b)

    def _rerank(self, rows: np.ndarray, fetch: Fetch) -> None:
        hull_low, hull_high = self.low[rows].min(), self.high[rows].max()
        near = np.flatnonzero(~((self.low > hull_high) | (self.high < hull_low)))
        far_low = np.sort(np.delete(self.low, near))
        # Systems outside the hull are certified above or below every re-ranked one.
        above = len(far_low) - np.searchsorted(far_low, self.high[rows], side="right")
        values = ranking_values(fetch([self.ids[j] for j in near]))
        ranks = resample_ranks(values, np.searchsorted(near, rows)) + above[:, None]
        self.rank_lo[rows], self.rank_hi[rows] = rank_bounds(ranks)
        if self.ranks is None:
            self.ranks = np.zeros((len(self.ids), self.b), dtype=rank_dtype(len(self.ids)))
        self.ranks[rows], self.known[rows] = ranks, True

    # -- storing ---------------------------------------------------------------------------
    def to_bytes(self) -> bytes:  # per-resample ranks stay in memory (megabytes)
        lengths = np.array([-1 if n is None else len(n) for n in self.nears], dtype=np.int64)
        kept = [n for n in self.nears if n is not None]
        flat = np.concatenate(kept) if kept else np.zeros(0, dtype=int)
        buffer = io.BytesIO()
        np.savez(buffer, b=self.b, shift=self.shift, ids=np.array(self.ids, dtype=np.int64),
                 points=self.points, low=self.low, high=self.high, zeros=self.zeros,
                 near_lengths=lengths, nears=flat.astype(np.int64), rank_lo=self.rank_lo,
                 rank_hi=self.rank_hi)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, blob: bytes) -> RankState:
        with np.load(io.BytesIO(blob)) as z:
            lengths, flat = z["near_lengths"], z["nears"]
            ends = np.cumsum(np.maximum(lengths, 0))
            nears = [None if n < 0 else flat[end - n:end]
                     for n, end in zip(lengths.tolist(), ends.tolist(), strict=True)]
            return cls(b=int(z["b"]), shift=z["shift"], ids=[int(x) for x in z["ids"]],
                       points=z["points"], low=z["low"], high=z["high"],
                       zeros=z["zeros"].astype(int), nears=nears,
                       rank_lo=z["rank_lo"].astype(int), rank_hi=z["rank_hi"].astype(int),
                       known=np.zeros(len(z["ids"]), dtype=bool))
