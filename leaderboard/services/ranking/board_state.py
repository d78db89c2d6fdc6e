"""The ranking state kept beside each snapshot (:class:`~leaderboard.models.RankingState`):
one :class:`~leaderboard.scoring.rank_state.RankState` per ranked metric and POS, the
results it covers and what they were resampled with. The next refresh updates it instead of
comparing every pair of systems again."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlmodel import Session, col, select

from leaderboard.models import LeaderboardSnapshot, RankingState
from leaderboard.scoring.rank_state import RankState
from leaderboard.services.ranking.resamples import forget_statistics, keep_statistics


@dataclass
class BoardState:
    """``meta`` says what the states are valid for (snapshot format, resampling signature,
    view set); ``members`` are the result ids they rank; ``data`` is the snapshot's JSON."""

    meta: dict[str, Any]
    states: dict[str, RankState]
    members: list[int] = field(default_factory=list)
    data: dict[str, Any] | None = None
    #: Whether the refresh that made it updated the previous state (else: rebuilt it all).
    incremental: bool = False

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        arrays = {f"state:{name}": np.frombuffer(state.to_bytes(), dtype=np.uint8)
                  for name, state in self.states.items()}
        np.savez(buffer, meta=np.array(json.dumps(self.meta)),
                 members=np.array(self.members, dtype=np.int64), **arrays)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, blob: bytes, data: dict[str, Any] | None = None) -> BoardState:
        with np.load(io.BytesIO(blob)) as z:
            states = {name.removeprefix("state:"): RankState.from_bytes(z[name].tobytes())
                      for name in z.files if name.startswith("state:")}
            return cls(meta=json.loads(str(z["meta"])), states=states,
                       members=[int(x) for x in z["members"]], data=data)


#: What this process wrote last per board, by snapshot stamp: the snapshot's data and, in a
#: worker (:func:`keep_states`), its rank states with their per-resample ranks. The next
#: refresh in the same worker (RQ's SimpleWorker: one process) need not read and parse them
#: again (megabytes of JSON) and updates known ranks instead of re-ranking. Data is never
#: changed once made. States are changed in place by the refresh that takes them, so they
#: are handed out once: a refresh that fails leaves none, and the next one reads them from
#: the database.
_LAST_WRITTEN: dict[int, tuple[tuple[int | None, Any], dict[str, Any], BoardState | None]] = {}


def load_board_state(session: Session, board_id: int, *,
                     cached: bool = True) -> BoardState | None:
    """The state of the board's latest snapshot, with that snapshot's data (None if absent).

    With ``cached``, states this process wrote for that snapshot are taken from memory (and
    no longer kept there); without, they are read from the database."""
    row = session.exec(select(LeaderboardSnapshot.id, LeaderboardSnapshot.created_at)
                       .where(LeaderboardSnapshot.board_id == board_id)
                       .order_by(col(LeaderboardSnapshot.id).desc()).limit(1)).first()
    _ORIGIN[board_id] = "none"
    if row is None:
        return None
    latest, stamp = row[0], _stamp(row[0], row[1])
    written = _LAST_WRITTEN.get(board_id)
    # (id, created_at): a rolled-back snapshot's id may be given again by SQLite.
    mine = written is not None and written[0] == stamp
    if mine and cached and written[2] is not None:
        _LAST_WRITTEN[board_id] = (stamp, written[1], None)
        _ORIGIN[board_id] = "memory"
        return written[2]
    _ORIGIN[board_id] = "database"
    blob = session.exec(select(RankingState.data)
                        .where(RankingState.snapshot_id == latest)).first()
    if blob is None:
        return None
    data = (written[1] if mine else
            session.exec(select(LeaderboardSnapshot.data)
                         .where(LeaderboardSnapshot.id == latest)).one())
    try:
        return BoardState.from_bytes(blob, data=data)
    except Exception:  # an unreadable state only costs a full refresh
        return None


#: Where each board's last :func:`load_board_state` found the state: "memory" (a warm
#: refresh), "database" or "none" (cold).
_ORIGIN: dict[int, str] = {}


def state_origin(board_id: int) -> str:
    """Where the last state of ``board_id`` loaded in this process came from."""
    return _ORIGIN.get(board_id, "none")


_KEEP_STATES = False


def keep_states(enabled: bool = True) -> None:
    """Keep the rank states this process writes (the worker, at start): about 2 bytes × B
    per system and ranked metric, which grows with the board and which a web process that
    refreshes after an admin action should not hold; and up to
    :data:`~.resamples.KEPT_STATS_BYTES` of the results' decompressed statistics."""
    global _KEEP_STATES
    _KEEP_STATES = enabled
    keep_statistics(enabled)


def forget_kept() -> None:
    """Drop what this process keeps: the next refresh of every board starts as one in a
    worker that did not write the board's last snapshot (benchmarks measure that case)."""
    _LAST_WRITTEN.clear()
    forget_statistics()


@dataclass(frozen=True)
class Written:
    """What this process's last refresh of a board did: whether it found the state in memory
    (``origin``), whether it updated it (``incremental``), and the systems it lists."""

    origin: str
    incremental: bool
    systems: tuple[int, ...]


_WRITTEN: dict[int, Written] = {}


def last_written(board_id: int) -> Written | None:
    """The last refresh of ``board_id`` in this process (None: none yet)."""
    return _WRITTEN.get(board_id)


def save_board_state(session: Session, snapshot: LeaderboardSnapshot,
                     state: BoardState) -> None:
    session.add(RankingState(snapshot_id=snapshot.id, data=state.to_bytes()))
    _WRITTEN[snapshot.board_id] = Written(
        state_origin(snapshot.board_id), state.incremental,
        tuple(int(s["id"]) for s in (state.data or {}).get("systems", [])))
    if state.data is not None:
        _LAST_WRITTEN[snapshot.board_id] = (_stamp(snapshot.id, snapshot.created_at),
                                            state.data, state if _KEEP_STATES else None)


def _stamp(snapshot_id: int | None, created_at: Any) -> tuple[int | None, Any]:
    """(id, creation time without time zone): the database may drop the zone."""
    return snapshot_id, getattr(created_at, "replace", lambda **_: created_at)(tzinfo=None)
