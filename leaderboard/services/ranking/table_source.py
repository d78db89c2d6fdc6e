"""Where a ranking table reads a snapshot: the whole parsed snapshot, or the parts of it a
ranker prepared, so that a web process answers any query (another sort, a POS, a filter,
every entry) from the few parts it reads, never parsing the whole snapshot (15 MB at 1,000
systems, half a second).

The parts, each a JSON value stored with the snapshot (:func:`table_parts`):

- ``table-systems``: each system's identity (name, team, date, links, flags…) in the
  snapshot's order, and which headlines have one-row-per-team blocks;
- ``table-column`` (POS, metric): every system's value and interval of one metric (flat
  lists: values, lower and upper bounds), stored as doubles (:func:`encode_part`);
- ``table-shown`` (POS, headline or ""): the entries shown (each team's best on a headline,
  or every system) and their ranks;
- ``table-ties`` (POS, headline or "", metric): the tie p-values of one metric among those
  entries. A query reads its view's (5 of the 27 a block has, but in the all-metrics view);
  kept in the block, they were 78% of its bytes (2.7 ms of JSON at 1,000 systems).

A query reads the systems, its view's columns, one shown block and its ties. No database
access here.
The parts are JSON but for the columns: 8 bytes a number, read with a copy instead of a
parse (the all-metrics view reads 23 columns, 69,000 numbers at 1,000 systems: 5 ms of a web
process's CPU as JSON).
"""

from __future__ import annotations

import json
import math
import struct
import sys
from array import array
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import msgspec

from leaderboard.services.ranking.metric_info import POS_VALUES, displayed, track_of

SYSTEMS = "table-systems"
COLUMN = "table-column"
SHOWN = "table-shown"
TIES = "table-ties"
#: Not a stored part: a column's values rounded, kept beside the parts read.
ROUNDED = "rounded"
#: A system's keys a table row reads (its metrics come from the columns).
SYSTEM_KEYS = ("id", "system", "team", "team_id", "date", "paper_url", "code_url", "coverage",
               "signature", "flags", "items_with_duplicates")
#: The part names of the snapshot-wide values: "all" stands for no POS.
ALL = "all"


def rounded_values(values: Sequence[Any]) -> list[float | None]:
    """``values`` rounded to 2 decimals, None kept."""
    return [None if v is None else round(float(v), 2) for v in values]


class MissingPart(LookupError):
    """A part the query needs was not prepared (an older snapshot, a prepare not done yet):
    the caller reads the whole snapshot instead."""


class TableSource(Protocol):
    """What a ranking table reads of a snapshot."""

    #: The snapshot's small keys (benchmark, board, references, reported, signature…).
    top: Any

    def systems(self) -> Sequence[dict[str, Any]]:
        """Every system of the snapshot (at least :data:`SYSTEM_KEYS`), in its order."""

    def column(self, pos: str | None, metric: str) -> tuple[Sequence[Any], Sequence[Any]]:
        """Each system's value and interval of ``metric`` on ``pos`` (None: all)."""

    def rounded(self, pos: str | None, metric: str) -> Sequence[float | None]:
        """Each system's value of ``metric`` on ``pos`` rounded to 2 decimals (what sorting
        and the API read), None where it has none."""

    def shown(self, headline: str, entries: str,
              pos: str | None) -> tuple[list[int], dict[str, Any]]:
        """Indices of the systems shown (``entries`` ``best``: each team's best on
        ``headline``) and their stats block (ties and ranks, lists indexed alike)."""

    def want(self, pos_values: Sequence[str | None], metrics: Sequence[str],
             shown: Sequence[tuple[str, str]] = (), ties: Sequence[str] = ()) -> None:
        """Say which columns (each of ``metrics`` on each of ``pos_values``), shown blocks
        ((headline, entries) on each POS) and their ``ties`` (metrics) are about to be
        read: read at once."""


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


class _Pairs(Sequence):
    """Intervals kept as two flat lists (lower, upper bounds): a pair, or None, per system."""

    def __init__(self, lows: list[Any], highs: list[Any]) -> None:
        self._lows, self._highs = lows, highs

    def __getitem__(self, g):  # type: ignore[override]
        low = self._lows[g]
        return None if low is None else (low, self._highs[g])

    def __len__(self) -> int:
        return len(self._lows)


def interval_bounds(intervals: Sequence[Any]) -> tuple[list[Any], list[Any]] | None:
    """The lower and upper bounds of a column's intervals as two flat lists (None where a
    system has none, floats otherwise), where the source keeps them so; else None."""
    return (intervals._lows, intervals._highs) if isinstance(intervals, _Pairs) else None


class WholeSource:
    """A parsed snapshot (its read filter already applied, if any)."""

    def __init__(self, data: Any) -> None:
        self.top = data
        self._systems = data.get("systems", [])

    def systems(self) -> Sequence[dict[str, Any]]:
        return self._systems

    def column(self, pos: str | None, metric: str) -> tuple[Sequence[Any], Sequence[Any]]:
        return _Lazy(self._systems, pos, metric, 0), _Lazy(self._systems, pos, metric, 1)

    def rounded(self, pos: str | None, metric: str) -> Sequence[float | None]:
        return rounded_values(self.column(pos, metric)[0])

    def shown(self, headline: str, entries: str,
              pos: str | None) -> tuple[list[int], dict[str, Any]]:
        name = pos or ALL
        if entries == "best":
            best = self.top.get("best", {}).get(headline)
            if best is not None:
                return best["members"], best["stats"].get(name, {})
            # A snapshot from before one-row-per-team: show every entry rather than nothing.
        return list(range(len(self._systems))), self.top.get("stats", {}).get(name, {})

    def want(self, pos_values: Sequence[str | None], metrics: Sequence[str],
             shown: Sequence[tuple[str, str]] = (), ties: Sequence[str] = ()) -> None:
        """Nothing to read: the snapshot is parsed."""


class PartsSource:
    """A snapshot read in the parts a ranker prepared: ``parts`` holds those read so far
    ((kind, variant) -> value), ``read(wanted)`` adds those of ``wanted`` that exist; ``top``
    is the snapshot's small keys. Raises :class:`MissingPart`."""

    def __init__(self, top: Any, parts: dict[tuple[str, tuple], Any],
                 read: Callable[[list[tuple[str, tuple]]], None]) -> None:
        self.top = top
        self._parts, self._read = parts, read
        self._index = self._part(SYSTEMS, ())

    def _part(self, kind: str, variant: tuple) -> Any:
        key = (kind, variant)
        if key not in self._parts:
            self._read([key])
            if key not in self._parts:
                raise MissingPart(f"{kind} {variant}")
        return self._parts[key]

    def want(self, pos_values: Sequence[str | None], metrics: Sequence[str],
             shown: Sequence[tuple[str, str]] = (), ties: Sequence[str] = ()) -> None:
        wanted = [(COLUMN, (pos or ALL, m)) for pos in pos_values for m in metrics
                  if m in self._index["columns"]]
        blocks = [(pos or ALL, self._shown_key(headline, entries))
                  for pos in pos_values for headline, entries in shown]
        wanted += [(SHOWN, block) for block in blocks]
        wanted += [(TIES, (*block, m)) for block in blocks for m in ties]
        missing = [key for key in wanted if key not in self._parts]
        if missing:
            self._read(missing)

    def systems(self) -> Sequence[dict[str, Any]]:
        return self._index["systems"]

    def column(self, pos: str | None, metric: str) -> tuple[Sequence[Any], Sequence[Any]]:
        if metric not in self._index["columns"]:
            # No system has it: the whole snapshot reads None for each.
            nothing = [None] * len(self.systems())
            return nothing, nothing
        values, lows, highs = self._part(COLUMN, (pos or ALL, metric))
        return values, _Pairs(lows, highs)

    def rounded(self, pos: str | None, metric: str) -> Sequence[float | None]:
        """Kept with the parts: round() costs a microsecond a value, and every query on a
        POS orders its systems by the headline's rounded values."""
        key = (ROUNDED, (pos or ALL, metric))
        found = self._parts.get(key)
        if found is None:
            found = self._parts[key] = rounded_values(self.column(pos, metric)[0])
        return found

    def _shown_key(self, headline: str, entries: str) -> str:
        return headline if entries == "best" and headline in self._index["best"] else ""

    def shown(self, headline: str, entries: str,
              pos: str | None) -> tuple[list[int], dict[str, Any]]:
        name = (pos or ALL, self._shown_key(headline, entries))
        block = self._part(SHOWN, name)
        members = block["members"]
        stats = {**block["stats"], "ties": _Ties(lambda metric: self._ties(name, metric))}
        return list(range(len(self.systems()))) if members is None else members, stats

    def _ties(self, name: tuple[str, str], metric: str) -> Any:
        """A shown block's tie p-values of ``metric`` (None: the block has none of it)."""
        key = (TIES, (*name, metric))
        if key not in self._parts:
            self._read([key])
            # Not stored: no tie of that metric in this block (read once, then known).
            self._parts.setdefault(key, None)
        return self._parts[key]


class _Ties:
    """A shown block's ties by metric (``get``, as the dict of a parsed snapshot), each read
    when first asked for."""

    def __init__(self, read: Callable[[str], Any]) -> None:
        self._read = read
        self._known: dict[str, Any] = {}

    def get(self, metric: str, default: Any = None) -> Any:
        if metric not in self._known:
            self._known[metric] = self._read(metric)
        found = self._known[metric]
        return default if found is None else found


def table_parts(data: dict[str, Any]) -> dict[tuple[str, tuple], Any]:
    """The parts of a snapshot a :class:`PartsSource` reads ((kind, variant) -> JSON value):
    a column for each metric the board displays and some system has, on each POS (every
    POS a query may name, on every board: a POS a board has not reads as nothing)."""
    systems = data.get("systems", [])
    given = {k for s in systems for k in s.get("metrics", {})} | {
        k for s in systems for block in s.get("by_pos", {}).values()
        for k in block.get("metrics", {})}
    metrics = [k for k in displayed(track_of(data)) if k in given]
    best = list(data.get("best", {}))
    parts: dict[tuple[str, tuple], Any] = {(SYSTEMS, ()): {
        "systems": [{k: s.get(k) for k in SYSTEM_KEYS} for s in systems],
        "best": best, "columns": metrics}}
    for pos in (None, *POS_VALUES):
        blocks = [block_of(s, pos) for s in systems]
        for metric in metrics:
            intervals = [b[1].get(metric) or (None, None) for b in blocks]
            # Flat lists of numbers, not a pair per system: a reader's garbage collector
            # walks three lists, not a thousand.
            parts[(COLUMN, (pos or ALL, metric))] = [
                [b[0].get(metric) for b in blocks], [i[0] for i in intervals],
                [i[1] for i in intervals]]
        blocks = [("", None, data.get("stats", {}).get(pos or ALL, {}))]
        blocks += [(headline, data["best"][headline]["members"],
                    data["best"][headline]["stats"].get(pos or ALL, {})) for headline in best]
        for key, members, stats in blocks:
            parts[(SHOWN, (pos or ALL, key))] = {
                "members": members, "stats": {k: v for k, v in stats.items() if k != "ties"}}
            for metric, ties in stats.get("ties", {}).items():
                parts[(TIES, (pos or ALL, key, metric))] = ties
    return parts


#: A column part's bytes: this tag, the number of systems and how many of each list are
#: None (unsigned 32-bit, little-endian), then the three lists as little-endian doubles
#: (None written as NaN, which no snapshot holds: JSON has none).
_COLUMN_TAG = b"col1"
_COLUMN_HEAD = struct.Struct("<4s4I")


def encode_part(kind: str, value: Any) -> bytes:
    """A part's stored bytes (:func:`table_parts`' values)."""
    if kind != COLUMN:
        return json.dumps(value, separators=(",", ":")).encode()
    lists = [[math.nan if v is None else float(v) for v in values] for values in value]
    numbers = array("d", [v for values in lists for v in values])
    if sys.byteorder == "big":
        numbers.byteswap()
    missing = [sum(v is None for v in values) for values in value]
    return _COLUMN_HEAD.pack(_COLUMN_TAG, len(lists[0]), *missing) + numbers.tobytes()


def decode_part(kind: str, body: bytes) -> Any:
    """A part from its stored bytes (:func:`encode_part`)."""
    if kind != COLUMN:
        return msgspec.json.decode(body)
    tag, n, *missing = _COLUMN_HEAD.unpack_from(body)
    if tag != _COLUMN_TAG:
        raise ValueError(f"not a column part: {tag!r}")
    numbers = array("d")
    numbers.frombytes(body[_COLUMN_HEAD.size:])
    if sys.byteorder == "big":
        numbers.byteswap()
    lists = [numbers[i * n:(i + 1) * n].tolist() for i in range(3)]
    return [[None if v != v else v for v in values] if gaps else values
            for values, gaps in zip(lists, missing, strict=True)]
