"""Read path of leaderboard snapshots: what every page load and API call does.

A request asks the database two cheap questions: the board's latest snapshot (id and time,
from an index) and which systems it lists that are no longer public (unpublished, hidden,
of a disabled team, held: :func:`~leaderboard.services.ranking.snapshots.withdrawn_ids`).
The database is the truth for who may be seen, so a withdrawn system leaves every page at
the next request whatever Redis holds or loses; the ranker's next snapshot drops it for
good.

Per process, keyed by (snapshot, withdrawn systems):

- the parsed snapshot, one per board (a new one replaces it; concurrent first readers wait
  for one parse instead of each parsing megabytes of JSON);
- one bounded LRU of what is made from it: finished response bodies (with their gzipped
  copy and ETag) and the values pages derive (a table, a chart's JSON, a grid).

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
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from leaderboard.models import LeaderboardSnapshot
from leaderboard.services.ranking.anonymity import anonymous_now, masked_data
from leaderboard.services.ranking.ranking_table import RankingTable, build_table
from leaderboard.services.ranking.read_filter import filtered
from leaderboard.services.ranking.snapshots import (
    SNAPSHOT_FORMAT,
    refresh_snapshot,
    withdrawn_ids,
)

log = logging.getLogger(__name__)

#: Entries of the LRU (bodies and derived values of every board together).
CACHE_MAX = 128

_lock = threading.Lock()
#: Per board: (snapshot key without the filter, parsed data, the submission ids it lists).
_data: dict[tuple[str, int], tuple[tuple, dict[str, Any], frozenset[int], frozenset[str]]] = {}
#: Per board: (snapshot key, parsed data without the withdrawn systems).
_shown: dict[tuple[str, int], tuple[tuple, dict[str, Any]]] = {}
_load_locks: dict[tuple[str, int], threading.Lock] = {}
_cache: OrderedDict[tuple, Any] = OrderedDict()


@dataclass(frozen=True)
class SnapshotRef:
    """Identity of a board's latest snapshot (no data loaded) and the systems it lists
    that the database says are no longer public."""

    engine: str
    board_id: int
    id: int
    created_at: datetime
    hidden: frozenset[int] = frozenset()
    #: (slug, tag) of the systems it lists named that are anonymous now.
    masked: frozenset[tuple[str, str]] = frozenset()

    @property
    def key(self) -> tuple:
        """Cache key: ids restart in a fresh database, the creation time tells them apart;
        every page built from the snapshot also depends on who was withdrawn since, and on
        who was made anonymous since."""
        return (self.engine, self.board_id, self.id, str(self.created_at), self.hidden,
                self.masked)


#: zlib level of the gzipped copies: a fast level, as each is made once per process and
#: body while a reader waits.
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


#: How a web request asks the rankers for a board's snapshot (the app sets it: a queued
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
    """Ask the rankers for the board's snapshot and return None; without a requester, or
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
    while a ranker computes it)."""
    snapshot = refresh_or_request(session, board_id)
    if snapshot is not None:
        session.commit()
    return snapshot


def latest_snapshot(session: Session, board_id: int) -> SnapshotRef:
    """The board's latest snapshot and the systems it lists that are no longer public. A
    board without one yet gets a refresh job and, until a ranker has written it, a
    placeholder (id 0, data :data:`UPDATING`): a request never waits on a ranking
    computation (a 10,000-system board takes minutes)."""
    latest = session.exec(select(LeaderboardSnapshot.id, LeaderboardSnapshot.created_at)
                          .where(LeaderboardSnapshot.board_id == board_id)
                          .order_by(col(LeaderboardSnapshot.id).desc()).limit(1)).first()
    engine = str(session.get_bind().url)
    if latest is None:
        snapshot = _refreshed(session, board_id)
        if snapshot is None:
            return SnapshotRef(engine, board_id, 0, _EPOCH)
        latest = (snapshot.id, snapshot.created_at)
    ref = SnapshotRef(engine, board_id, int(latest[0]), latest[1])
    withdrawn, anonymous = withdrawn_ids(session, board_id), anonymous_now(session)
    if not withdrawn and not anonymous:
        return ref
    _, listed, slugs = _parsed(session, ref)
    masked = frozenset((slug, tag) for slug, tag in anonymous.items() if slug in slugs)
    return SnapshotRef(engine, board_id, ref.id, ref.created_at, withdrawn & listed, masked)


def load_data(session: Session, ref: SnapshotRef) -> dict[str, Any]:
    """The snapshot's data without the systems withdrawn since it was written, parsed once
    per process and filtered once per set of withdrawn systems."""
    shown = _shown.get(ref.key[:2])
    if shown is not None and shown[0] == ref.key:
        return shown[1]
    data = _parsed(session, ref)[0]
    if ref.hidden and data is not UPDATING:
        data = filtered(data, ref.hidden)
    if ref.masked and data is not UPDATING:
        data = masked_data(data, dict(ref.masked))
    _shown[ref.key[:2]] = (ref.key, data)
    return data


def _parsed(session: Session, ref: SnapshotRef
            ) -> tuple[dict[str, Any], frozenset[int], frozenset[str]]:
    """The snapshot's data, the submission ids it lists and the slugs of those it lists
    named, parsed once per process (concurrent callers wait for one parse)."""
    slot, base = ref.key[:2], ref.key[:4]
    cached = _data.get(slot)
    if cached is not None and cached[0] == base:
        return cached[1], cached[2], cached[3]
    if ref.id == 0:
        return UPDATING, frozenset(), frozenset()
    with _lock:
        load_lock = _load_locks.setdefault(slot, threading.Lock())
    with load_lock:
        cached = _data.get(slot)
        if cached is not None and cached[0] == base:
            return cached[1], cached[2], cached[3]
        row = session.get(LeaderboardSnapshot, ref.id)
        data = row.data if row is not None else {}
        if row is not None:
            # The request session must not keep the parsed snapshot alive in its identity map.
            session.expunge(row)
            data = _upgraded(session, ref, data)
        listed = frozenset(int(s["id"]) for s in data.get("systems", []))
        named = frozenset(str(s.get("system_slug")) for s in data.get("systems", [])
                          if not s.get("anonymous"))
        _data[slot] = (base, data, listed, named)
        return data, listed, named


def _upgraded(session: Session, ref: SnapshotRef, data: dict[str, Any]) -> dict[str, Any]:
    """A snapshot written by an older version (other significance rule, no best-per-team
    blocks) is not shown: a ranker recomputes it, and meanwhile the board says it is
    updating, so no page mixes the old and the new rule after a deploy."""
    if not data or int(data.get("format", 0)) >= SNAPSHOT_FORMAT:
        return data
    snapshot = _refreshed(session, ref.board_id)
    return UPDATING if snapshot is None else snapshot.data



def ranking_rows(*, session: Session, board_id: int, pos: str | None = None,
                 sort: str | None = None, direction: str | None = None,
                 view: str | None = None, ref: SnapshotRef | None = None,
                 entries: str | None = None, q: str | None = None) -> RankingTable:
    """The ranking table as shown (see :class:`RankingTable`), built once per snapshot and
    query; raises :class:`~leaderboard.services.ranking.ranking_table.BadQuery`."""
    ref = ref or latest_snapshot(session, board_id)

    def build() -> RankingTable:
        return build_table(load_data(session, ref), snapshot_id=ref.id, pos=pos, sort=sort,
                           direction=direction, view=view, entries=entries, q=q)

    return cached_value(ref, "table", (pos, sort, direction, view, entries, q), build)


def cached_body(ref: SnapshotRef, kind: str, variant: tuple,
                build: Callable[[], bytes | str]) -> CachedBody:
    """The response body of ``kind`` for this snapshot and query ``variant``, built once.

    ``build`` runs only on a miss. Its ETag is a digest of the body itself: two processes
    that built different bodies (another release, a field the key forgot) never answer
    with one validator."""

    def made() -> CachedBody:
        raw = build()
        body = raw.encode("utf-8") if isinstance(raw, str) else raw
        return CachedBody(body, hashlib.sha1(body, usedforsecurity=False).hexdigest()[:20])

    return cached_value(ref, "body:" + kind, variant, made)


def cached_value(ref: SnapshotRef, kind: str, variant: tuple, build: Callable[[], Any]) -> Any:
    """Anything made from one snapshot for ``kind`` and ``variant`` (a body, a table, a
    chart's JSON), built once and kept in the process's LRU until it drops it or the board
    has a newer snapshot or other withdrawn systems."""
    key = (ref.key, kind, variant)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    value = build()
    with _lock:
        _cache[key] = value
        # Entries of the board's older snapshots (or filters) go first: nobody asks again.
        for stale in [k for k in _cache if k[0][:2] == key[0][:2] and k[0] != key[0]]:
            del _cache[stale]
        while len(_cache) > CACHE_MAX:
            _cache.popitem(last=False)
    return value


def clear_caches() -> None:
    """Forget everything (tests that reuse snapshot ids in fresh databases)."""
    with _lock:
        _data.clear()
        _shown.clear()
        _cache.clear()
