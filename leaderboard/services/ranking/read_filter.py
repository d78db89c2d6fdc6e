"""The read path's filter: a snapshot's data without the systems it lists that are no longer
public (unpublished, hidden by an admin, of a disabled team, held), as the database says at
each request (:func:`~leaderboard.services.ranking.snapshots.withdrawn_ids`). A withdrawn
system leaves every page at once; the ranker's next snapshot leaves it out for good.
"""

from __future__ import annotations

from typing import Any


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
