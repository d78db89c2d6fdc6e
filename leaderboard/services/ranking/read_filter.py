"""The read path's filter: systems a board's latest snapshot still lists but that are no
longer public (unpublished, hidden by an admin, of a disabled team).

A snapshot is rewritten by a ranker, seconds to minutes after the change (or, if the ranker
dies, after another takes its work over). Until then every public route drops these rows
from what it reads of the snapshot (:func:`filtered`), so a withdrawn system leaves every
page at once. The set lives in Redis, where every web process sees it at the next request:
one set per board of submission ids, and one version counter per site bumped on every
change. The web action that withdraws a system adds it (:func:`mark_hidden`) after its
commit; one that shows it again removes it (:func:`mark_shown`); the ranker removes the ids
its new snapshot no longer lists (:func:`settle`). With Redis unreachable the database is
the truth: the board's non-public submissions with a current result
(:func:`~leaderboard.services.ranking.snapshots.withdrawn_ids`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from redis import Redis
from redis.exceptions import RedisError
from sqlmodel import Session

log = logging.getLogger(__name__)

#: Where the filter lives: () -> (Redis connection, queue name), or None outside a web app.
Source = Callable[[], "tuple[Redis, str] | None"]
_source: Source | None = None
NONE: frozenset[int] = frozenset()


def configure(source: Source | None) -> None:
    """Set where :func:`hidden_ids` reads the filter when not given a connection (the app)."""
    global _source
    _source = source


def board_key(queue_name: str, board_id: int) -> str:
    return f"leaderboard:readfilter:{queue_name}:board-{board_id}"


def version_key(queue_name: str) -> str:
    return f"leaderboard:readfilter:{queue_name}:version"


def _where(connection: Redis | None, queue_name: str | None) -> tuple[Redis, str] | None:
    if connection is not None and queue_name is not None:
        return connection, queue_name
    return _source() if _source is not None else None


def filter_state(board_id: int, *, session: Session | None = None,
                 connection: Redis | None = None,
                 queue_name: str | None = None) -> tuple[int, frozenset[int]]:
    """(site's filter version, ids withdrawn from ``board_id``'s snapshot): one Redis round
    trip. Version -1: read from the database (Redis unreachable, or no Redis configured and
    a ``session`` given); without either, (0, empty)."""
    try:
        where = _where(connection, queue_name)
        if where is not None:
            conn, name = where
            with conn.pipeline(transaction=False) as pipe:
                pipe.get(version_key(name))
                pipe.smembers(board_key(name, board_id))
                version, members = pipe.execute()
            return int(version or 0), frozenset(int(m) for m in members)
    except (RedisError, OSError):
        log.warning("read filter unreachable in Redis; asking the database", exc_info=True)
    if session is None:
        return 0, NONE
    from leaderboard.services.ranking.snapshots import withdrawn_ids

    return -1, withdrawn_ids(session, board_id)


def hidden_ids(board_id: int, *, session: Session | None = None,
               connection: Redis | None = None, queue_name: str | None = None) -> frozenset[int]:
    """Submission ids the board's pages must not show although its snapshot may list them
    (empty in the usual case: then a page built from the snapshot alone is right)."""
    return filter_state(board_id, session=session, connection=connection,
                        queue_name=queue_name)[1]


def _change(connection: Redis, queue_name: str, ids_by_board: Mapping[int, Iterable[int]],
            add: bool) -> None:
    with connection.pipeline(transaction=True) as pipe:
        changed = False
        for board_id, ids in ids_by_board.items():
            members = [int(i) for i in ids]
            if members:
                key = board_key(queue_name, board_id)
                (pipe.sadd if add else pipe.srem)(key, *members)
                changed = True
        if changed:
            pipe.incr(version_key(queue_name))
            pipe.execute()


def mark_hidden(connection: Redis, queue_name: str,
                ids_by_board: Mapping[int, Iterable[int]]) -> None:
    """After committing a withdrawal: these submissions leave their boards' pages now."""
    _change(connection, queue_name, ids_by_board, add=True)


def mark_shown(connection: Redis, queue_name: str,
               ids_by_board: Mapping[int, Iterable[int]]) -> None:
    """After committing a re-publication: these submissions may be shown again (pass only
    those public now: a hidden submission of a re-enabled team stays filtered)."""
    _change(connection, queue_name, ids_by_board, add=False)


def settle(connection: Redis, queue_name: str, board_id: int, listed: Iterable[int]) -> int:
    """After a board's new snapshot is committed: forget the withdrawn ids it no longer
    lists (an id it still lists was withdrawn while it was computed and stays). Returns how
    many were forgotten."""
    key = board_key(queue_name, board_id)
    still = {int(i) for i in listed}
    gone = [m for m in connection.smembers(key) if int(m) not in still]
    if not gone:
        return 0
    with connection.pipeline(transaction=True) as pipe:
        pipe.srem(key, *gone)
        pipe.incr(version_key(queue_name))
        pipe.execute()
    return len(gone)


def filtered(data: dict[str, Any], hidden: frozenset[int]) -> dict[str, Any]:
    """A snapshot's data without the systems ``hidden`` (a new dict; ``data`` is shared and
    never changed). Ranks, rank intervals and tie marks of the other systems are the
    snapshot's own, so ranks may have gaps until the next snapshot; a withdrawn system's
    pairs leave the significance windows (a window's missing pair reads P = 0.5)."""
    systems = data.get("systems") or []
    drop = [s["id"] in hidden for s in systems]
    if not any(drop):
        return data
    keep = [i for i, gone in enumerate(drop) if not gone]
    new_index = {old: new for new, old in enumerate(keep)}
    out = dict(data)
    out["systems"] = [systems[i] for i in keep]
    out["stats"] = {pos: _block(block, keep) for pos, block in (data.get("stats") or {}).items()}
    best: dict[str, Any] = {}
    for headline, entry in (data.get("best") or {}).items():
        members = entry.get("members", [])
        kept = [n for n, g in enumerate(members) if g in new_index]
        best[headline] = {**entry, "members": [new_index[members[n]] for n in kept],
                          "stats": {pos: _block(block, kept)
                                    for pos, block in entry.get("stats", {}).items()}}
    out["best"] = best
    out["pairwise"] = {key: _matrix(entry, hidden)
                       for key, entry in (data.get("pairwise") or {}).items()}
    out["neighbours"] = {key: _band(entry, hidden)
                         for key, entry in (data.get("neighbours") or {}).items()}
    return out


def _pick(values: Any, keep: list[int]) -> Any:
    return [values[i] for i in keep] if isinstance(values, list) else values


def _block(block: dict[str, Any], keep: list[int]) -> dict[str, Any]:
    """A stats block (lists indexed like its systems) restricted to ``keep``."""
    return {"ties": {k: _pick(v, keep) for k, v in block.get("ties", {}).items()},
            "ranks": {k: {f: _pick(v, keep) for f, v in ranks.items()}
                      for k, ranks in block.get("ranks", {}).items()},
            **{k: v for k, v in block.items() if k not in ("ties", "ranks")}}


def _matrix(entry: dict[str, Any], hidden: frozenset[int]) -> dict[str, Any]:
    keep = [i for i, sid in enumerate(entry.get("ids", [])) if sid not in hidden]
    if len(keep) == len(entry.get("ids", [])):
        return entry
    return {**entry, "ids": _pick(entry["ids"], keep),
            "result_ids": _pick(entry.get("result_ids", []), keep),
            "p_beats": [[entry["p_beats"][i][j] for j in keep] for i in keep]}


def _band(entry: dict[str, Any], hidden: frozenset[int]) -> dict[str, Any]:
    """A neighbour band without the hidden systems: each system keeps its pairs with the
    systems that remain, padded with 0.5 (not compared) to the band's reach."""
    ids = entry.get("ids", [])
    keep = [i for i, sid in enumerate(ids) if sid not in hidden]
    if len(keep) == len(ids):
        return entry
    reach = max((len(d) for d in entry["down"]), default=0)
    kept = set(keep)
    down: list[list[float]] = []
    up: list[list[float]] = []
    for n, i in enumerate(keep):
        width = min(reach, len(keep) - 1 - n)
        d = [entry["down"][i][k - i - 1] for k in range(i + 1, i + 1 + len(entry["down"][i]))
             if k in kept][:width]
        u = [entry["up"][i][k - i - 1] for k in range(i + 1, i + 1 + len(entry["up"][i]))
             if k in kept][:width]
        down.append(d + [0.5] * (width - len(d)))
        up.append(u + [0.5] * (width - len(u)))
    return {**entry, "ids": _pick(ids, keep), "result_ids": _pick(entry.get("result_ids", []),
                                                                  keep),
            "down": down, "up": up}
