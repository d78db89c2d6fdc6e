"""Read path of leaderboard snapshots: what every page load and API call does.

A request costs one indexed query for the latest snapshot's id. Everything derived from a
snapshot is kept per process and keyed by that id, so a new snapshot invalidates it all:

- the parsed snapshot JSON (one per board; parsed by one thread while the others wait,
  instead of every concurrent request parsing the same 15 MB on a cold process);
- built ranking tables per query (LRU);
- finished response bodies per (snapshot, kind, query) as bytes, with a gzipped copy (LRU),
  so a repeat request only looks up bytes: nothing is rendered or serialised per request.

Snapshots themselves are written by :func:`leaderboard.services.ranking.snapshots.refresh_snapshot`.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, col, select

from leaderboard.models import LeaderboardSnapshot
from leaderboard.services.ranking import prepared_pages, read_filter
from leaderboard.services.ranking.ranking_table import RankingTable, build_table
from leaderboard.services.ranking.snapshots import SNAPSHOT_FORMAT, refresh_snapshot
from leaderboard.services.ranking.table_source import MissingPart, PartsSource, decode_part

log = logging.getLogger(__name__)

#: Bump when the cached pages' markup changes, so validators (ETags) change with it.
CACHE_VERSION = 10
TABLES_MAX = 64
BODIES_MAX = 48

_lock = threading.Lock()
_data: dict[tuple[str, int], tuple[tuple, dict[str, Any]]] = {}
#: The parsed data without the read filter's systems, per board: (ref key, data).
_shown: dict[tuple[str, int], tuple[tuple, dict[str, Any]]] = {}
_load_locks: dict[tuple[str, int], threading.Lock] = {}
_tables: OrderedDict[tuple, RankingTable] = OrderedDict()
#: The table parts read of each board's latest snapshot: (snapshot key, (kind, variant) ->
#: decoded value). A few MB at 1,000 systems, replaced with the snapshot.
_parts: dict[tuple[str, int], tuple[tuple, dict[tuple, Any]]] = {}
_bodies: OrderedDict[tuple, CachedBody] = OrderedDict()


@dataclass(frozen=True)
class SnapshotRef:
    """Identity of a board's latest snapshot (no data loaded)."""

    engine: str
    board_id: int
    id: int
    created_at: datetime
    #: Systems the snapshot lists that are no longer public (:mod:`read_filter`).
    hidden: frozenset[int] = frozenset()

    @property
    def key(self) -> tuple:
        """Cache key: ids restart in a fresh database, the creation time tells them apart;
        every page built from the snapshot also depends on the read filter."""
        return (self.engine, self.board_id, self.id, str(self.created_at), self.hidden)


#: zlib level of the gzipped copies. 3, not 6: on a 590 KB all-metrics page 2.2 ms against
#: 9.6 (16% more bytes), in the web process's first request of each body after a snapshot.
GZIP_LEVEL = 3


@dataclass(frozen=True)
class CachedBody:
    """A finished response body, its validator and (made at the first request that accepts
    it) its gzipped copy."""

    body: bytes
    etag: str

    @functools.cached_property
    def gzipped(self) -> bytes:
        return gzip.compress(self.body, GZIP_LEVEL, mtime=0)


#: How a web request asks the workers for a board's snapshot (the app sets it: a queued
#: refresh job; it answers False outside a request). Without one, or when it answers False
#: (host commands, scripts), a missing snapshot is computed here.
_refresh_requester: Callable[[int], bool] | None = None

#: What a board shows while its first (or first current-format) snapshot is computed.
UPDATING: dict[str, Any] = {"updating": True}
_EPOCH = datetime(1970, 1, 1)


def set_refresh_requester(requester: Callable[[int], bool] | None) -> None:
    """Make reads ask ``requester(board_id)`` for a snapshot instead of computing one."""
    global _refresh_requester
    _refresh_requester = requester


def refresh_or_request(session: Session, board_id: int) -> LeaderboardSnapshot | None:
    """Ask the workers for the board's snapshot and return None; without a requester, or
    outside a web request (a host command), compute it here instead (flushed, not
    committed)."""
    try:
        asked = _refresh_requester is not None and _refresh_requester(board_id)
    except Exception:  # Redis down: the page still answers; the next request asks again
        log.warning("could not queue a refresh of leaderboard %s", board_id, exc_info=True)
        asked = True
    if asked:
        return None
    return refresh_snapshot(session=session, board_id=board_id)


def _refreshed(session: Session, board_id: int) -> LeaderboardSnapshot | None:
    """:func:`refresh_or_request`, committed (a read: the caller serves :data:`UPDATING`
    while a worker computes it)."""
    snapshot = refresh_or_request(session, board_id)
    if snapshot is not None:
        session.commit()
    return snapshot


def latest_snapshot(session: Session, board_id: int) -> SnapshotRef:
    """The latest snapshot of a board that readers are shown. A board without one yet gets
    a refresh job and, until a worker has written it, a placeholder (id 0, data
    :data:`UPDATING`): a request never waits on a ranking computation (a 10,000-system board
    takes minutes). While a ranker still prepares the newest snapshot's bytes
    (:data:`~leaderboard.services.ranking.prepared_pages.PENDING`), the one before it."""
    latest = session.exec(select(LeaderboardSnapshot.id, LeaderboardSnapshot.created_at)
                          .where(LeaderboardSnapshot.board_id == board_id)
                          .order_by(col(LeaderboardSnapshot.id).desc()).limit(2)).all()
    if not latest:
        snapshot = _refreshed(session, board_id)
        if snapshot is None:
            return SnapshotRef(str(session.get_bind().url), board_id, 0, _EPOCH)
        latest = [(snapshot.id, snapshot.created_at)]
    engine = str(session.get_bind().url)
    shown = _shown_of(session, engine, latest)
    hidden = read_filter.hidden_ids(board_id, session=session)
    return SnapshotRef(engine, board_id, int(shown[0]), shown[1], hidden)


#: Snapshots seen without a pending marker (engine, id, created_at): a marker is only ever
#: written with its snapshot, so they need no second look.
_settled: set[tuple[str, int, str]] = set()
_SETTLED_MAX = 4096


def _shown_of(session: Session, engine: str, latest: list) -> tuple[int, datetime]:
    """The newest of a board's two newest snapshots ``latest`` (id, created_at) unless it is
    still being prepared, for at most ``PENDING_SECONDS``, and an older one is there."""
    newest = latest[0]
    key = (engine, int(newest[0]), str(newest[1]))
    if key in _settled or len(latest) < 2:
        return newest
    if newest[0] not in prepared_pages.pending_among(session, [newest[0]]):
        if len(_settled) >= _SETTLED_MAX:
            _settled.clear()
        _settled.add(key)
        return newest
    written = newest[1] if newest[1].tzinfo else newest[1].replace(tzinfo=UTC)
    if (datetime.now(UTC) - written).total_seconds() > prepared_pages.PENDING_SECONDS:
        return newest
    return latest[1]


def load_data(session: Session, ref: SnapshotRef) -> dict[str, Any]:
    """The snapshot's data without the systems withdrawn since it was written (the read
    filter), parsed once per process and filtered once per filter."""
    shown = _shown.get(ref.key[:2])
    if shown is not None and shown[0] == ref.key:
        return shown[1]
    data = _parsed(session, ref)
    if ref.hidden and data is not UPDATING:
        data = read_filter.filtered(data, ref.hidden)
    _shown[ref.key[:2]] = (ref.key, data)
    return data


def _parsed(session: Session, ref: SnapshotRef) -> dict[str, Any]:
    """The snapshot's data, parsed once per process (concurrent callers wait for one parse)."""
    slot = ref.key[:2]
    base = ref.key[:4]
    cached = _data.get(slot)
    if cached is not None and cached[0] == base:
        return cached[1]
    with _lock:
        load_lock = _load_locks.setdefault(slot, threading.Lock())
    if ref.id == 0:
        return UPDATING
    with load_lock:
        cached = _data.get(slot)
        if cached is not None and cached[0] == base:
            return cached[1]
        row = session.get(LeaderboardSnapshot, ref.id)
        data = row.data if row is not None else {}
        if row is not None:
            # The request session must not keep the parsed 15 MB alive in its identity map.
            session.expunge(row)
            data = _upgraded(session, ref, data)
        _data[slot] = (base, data)
        return data


def _upgraded(session: Session, ref: SnapshotRef, data: dict[str, Any]) -> dict[str, Any]:
    """A snapshot written by an older version (other significance rule, no best-per-team
    blocks) is not shown: a worker recomputes it, and meanwhile the board says it is
    updating, so no page mixes the old and the new rule after a deploy."""
    if not data or int(data.get("format", 0)) >= SNAPSHOT_FORMAT:
        return data
    snapshot = _refreshed(session, ref.board_id)
    return UPDATING if snapshot is None else snapshot.data


def snapshot_data(session: Session, board_id: int) -> tuple[int | None, dict[str, Any]]:
    """The latest snapshot's (id, data), cached per process."""
    ref = latest_snapshot(session, board_id)
    return ref.id, load_data(session, ref)


def ranking_rows(*, session: Session, board_id: int, pos: str | None = None,
                 sort: str | None = None, direction: str | None = None,
                 view: str | None = None, ref: SnapshotRef | None = None,
                 entries: str | None = None, q: str | None = None) -> RankingTable:
    """The ranking table as shown (see :class:`RankingTable`), built once per snapshot and
    query; raises :class:`~leaderboard.services.ranking.ranking_table.BadQuery`."""
    ref = ref or latest_snapshot(session, board_id)
    key = (ref.key, pos, sort, direction, view, entries, q)
    table = _tables.get(key)
    if table is None:
        table = build_table(load_data(session, ref), snapshot_id=ref.id, pos=pos, sort=sort,
                            direction=direction, view=view, entries=entries, q=q)
        table.withdrawn = tuple(sorted(ref.hidden))
        _remember(_tables, key, table, TABLES_MAX)
    return table


def table_source(session: Session, ref: SnapshotRef, top: Any) -> PartsSource | None:
    """The snapshot's table parts as a ranker prepared them (``top``: its small keys), each
    read once per process and snapshot; None when they were not prepared (the caller reads
    the whole snapshot). The read filter is the caller's to apply (``ref.hidden``)."""
    if ref.id == 0 or top is None:
        return None
    slot, base = ref.key[:2], ref.key[:4]
    entry = _parts.get(slot)
    if entry is None or entry[0] != base:
        entry = _parts[slot] = (base, {})
    decoded = entry[1]

    def read(wanted: list[tuple[str, tuple]]) -> None:
        """Read the parts ``wanted`` (kind, variant) not read yet, in one query."""
        names = {prepared_pages.variant_key(prepared_pages.VALUE, kind, list(variant)): (
            kind, variant) for kind, variant in wanted if (kind, variant) not in decoded}
        found = prepared_pages.load_many(session, ref.id, prepared_pages.VALUE, names)
        for name, body in found.items():
            decoded[names[name]] = decode_part(names[name][0], body)

    try:
        return PartsSource(top, decoded, read)
    except MissingPart:
        return None


def cached_body(ref: SnapshotRef, kind: str, variant: tuple,
                build: Callable[[], bytes | str]) -> CachedBody:
    """The response body of ``kind`` for this snapshot and query ``variant``, built once.

    ``build`` runs only on a miss; its result (and a gzipped copy) is kept until the LRU
    drops it or a newer snapshot appears. Its ETag is a digest of the body itself: whatever
    else a page shows (the board bar's counts, a field the key forgot), two processes that
    built different bodies never answer with one validator (issue 30).
    """
    key = (ref.key, kind, variant)
    entry = _bodies.get(key)
    if entry is None:
        raw = build()
        body = raw.encode("utf-8") if isinstance(raw, str) else raw
        etag = hashlib.sha1(body, usedforsecurity=False).hexdigest()[:20]
        entry = CachedBody(body, etag)
        _remember(_bodies, key, entry, BODIES_MAX)
    return entry


def cached_value(ref: SnapshotRef, kind: str, variant: tuple,
                 build: Callable[[], Any], keep_none: bool = True) -> Any:
    """Anything derived from one snapshot (a chart's JSON, a pairwise table), built once per
    snapshot and ``variant`` and kept with the response bodies (same LRU, same eviction).
    ``keep_none=False``: a None built is not kept (a lookup that found nothing: queries
    nobody prepared must not push the bodies out of the LRU)."""
    key = (ref.key, "value:" + kind, variant)
    entry = _bodies.get(key)
    if entry is None:
        entry = build()
        if entry is not None or keep_none:
            _remember(_bodies, key, entry, BODIES_MAX)
    return entry


def etag_for(ref: SnapshotRef, kind: str, variant: tuple) -> str:
    """Validator for a streamed body (an export, never held whole): same snapshot, kind,
    query and markup version, same ETag in every worker process. Exports are written from
    the ranking table alone, which those determine."""
    text = repr((CACHE_VERSION, ref.id, str(ref.created_at), ref.board_id, kind, variant,
                 sorted(ref.hidden)))
    return hashlib.sha1(text.encode()).hexdigest()[:20]


def clear_caches() -> None:
    """Forget everything (tests that reuse snapshot ids in fresh databases)."""
    with _lock:
        _data.clear()
        _shown.clear()
        _parts.clear()
        _tables.clear()
        _bodies.clear()


def _remember(cache: OrderedDict, key: tuple, value: Any, limit: int) -> None:
    with _lock:
        cache[key] = value
        cache.move_to_end(key)
        # Entries of older snapshots go first: nothing can ask for them again.
        for stale in [k for k in cache if k[0][:2] == key[0][:2] and k[0] != key[0]]:
            del cache[stale]
        while len(cache) > limit:
            cache.popitem(last=False)
