"""Where a ranking table reads a snapshot: :class:`WholeSource` over the parsed snapshot
(its withdrawn systems already left out), read by
:mod:`leaderboard.services.ranking.ranking_table`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from leaderboard.scoring.families import family_for
from leaderboard.scoring.printing import printed

#: The name of the snapshot-wide stats block: "all" stands for no POS.
ALL = "all"


def block_of(entry: dict[str, Any], pos: str | None) -> tuple[dict, dict]:
    """A snapshot entry's metrics and intervals on ``pos`` (None: all)."""
    if pos is None:
        return entry.get("metrics", {}), entry.get("intervals", {})
    block = entry.get("by_pos", {}).get(pos, {})
    return block.get("metrics", {}), block.get("intervals", {})


class _Lazy(Sequence):
    """One metric's values (or intervals) of every system, read from its entry on access."""

    def __init__(self, systems: Sequence[dict[str, Any]], pos: str | None, metric: str,
                 part: int) -> None:
        self._systems, self._pos, self._metric, self._part = systems, pos, metric, part

    def __getitem__(self, g):  # type: ignore[override]
        return block_of(self._systems[g], self._pos)[self._part].get(self._metric)

    def __len__(self) -> int:
        return len(self._systems)


class WholeSource:
    """A parsed snapshot (its withdrawn systems already left out)."""

    def __init__(self, data: Any) -> None:
        self.top = data
        self._systems = data.get("systems", [])

    def systems(self) -> Sequence[dict[str, Any]]:
        return self._systems

    def column(self, pos: str | None, metric: str) -> tuple[Sequence[Any], Sequence[Any]]:
        return _Lazy(self._systems, pos, metric, 0), _Lazy(self._systems, pos, metric, 1)

    def rounded(self, pos: str | None, metric: str) -> Sequence[float | None]:
        """A metric's values as the API prints them (None kept)."""
        family = family_for((self.top.get("benchmark") or {}).get("name", "")).name
        return [printed(v, family) for v in self.column(pos, metric)[0]]

    def shown(self, headline: str, entries: str,
              pos: str | None) -> tuple[list[int], dict[str, Any]]:
        name = pos or ALL
        if entries == "best":
            best = self.top.get("best", {}).get(headline)
            if best is not None:
                return best["members"], best["stats"].get(name, {})
            # A snapshot from before one-row-per-team: show every entry rather than nothing.
        return list(range(len(self._systems))), self.top.get("stats", {}).get(name, {})
