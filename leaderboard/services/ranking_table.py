"""Turn a snapshot's data into the ranking table shown on screen, exported and served by the API.

No database access here: everything comes from ``LeaderboardSnapshot.data``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from leaderboard.services.metric_info import (
    DEFAULT_SORT,
    DEFAULT_VIEW,
    POS_VALUES,
    TIE_ALPHA,
    VIEWS,
    View,
)

TEXT_SORTS = ("rank", "system", "team", "date")
DEFAULT_DIRECTION = {"rank": "asc", "system": "asc", "team": "asc", "date": "desc"}


class BadQuery(ValueError):
    """A query-string value the ranking does not know (the view answers 400)."""


@dataclass
class RankingTable:
    """What the ranking page shows for one view, POS and sort order."""

    view: View
    pos: str | None
    sort: str
    direction: str
    rows: list[dict[str, Any]]
    references: list[dict[str, Any]]
    benchmark: dict[str, Any]
    generated_at: str | None
    snapshot_id: int | None
    humans: dict[str, Any] | None = field(default=None)

    @property
    def human_defined(self) -> bool:
        """Whether the Humans reference provides the headline metric (for "% of Humans")."""
        return any(r["pct_humans"] is not None for r in self.rows)

    @property
    def columns(self) -> tuple[str, ...]:
        """Metric keys of the view, in display order."""
        return self.view.columns

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (API and JSON export)."""
        return {
            "benchmark": self.benchmark, "generated_at": self.generated_at,
            "view": self.view.key, "pos": self.pos or "ALL", "sort": self.sort,
            "dir": self.direction, "headline": self.view.headline, "metrics": list(self.columns),
            "rows": [_row_json(r, "system") for r in self.rows],
            "references": [_row_json(r, r["kind"]) for r in self.references],
        }


def _row_json(row: dict[str, Any], row_type: str) -> dict[str, Any]:
    out = {k: v for k, v in row.items() if k not in ("cells", "kind")}
    out["row_type"] = row_type
    out["metrics"] = {c["key"]: {"value": c["value"], "interval": c["interval"],
                                 "tie_p": c.get("p")} for c in row["cells"]}
    return out


def parse_query(view: str | None, pos: str | None, sort: str | None,
                direction: str | None) -> tuple[View, str | None, str, str]:
    """Validate query-string values, filling defaults; raises :class:`BadQuery`."""
    view_obj = VIEWS.get(view or DEFAULT_VIEW)
    if view_obj is None:
        raise BadQuery(f"unknown view {view!r}; use one of {', '.join(VIEWS)}")
    pos_value = None if pos in (None, "", "ALL", "all") else pos
    if pos_value is not None and pos_value not in POS_VALUES:
        raise BadQuery(f"unknown pos {pos!r}; use ALL, {', '.join(POS_VALUES)}")
    sort_key = sort or (view_obj.headline if view_obj.headline in view_obj.columns
                        else DEFAULT_SORT)
    if sort_key not in TEXT_SORTS and sort_key not in view_obj.columns:
        raise BadQuery(f"cannot sort by {sort!r} in view {view_obj.key!r}")
    dir_value = direction or DEFAULT_DIRECTION.get(sort_key, "desc")
    if dir_value not in ("asc", "desc"):
        raise BadQuery(f"dir must be asc or desc, not {direction!r}")
    return view_obj, pos_value, sort_key, dir_value


def _block(entry: dict[str, Any], pos: str | None) -> tuple[dict, dict]:
    if pos is None:
        return entry.get("metrics", {}), entry.get("intervals", {})
    block = entry.get("by_pos", {}).get(pos, {})
    return block.get("metrics", {}), block.get("intervals", {})


def _cell(key: str, metrics: dict, intervals: dict, p: float | None = None) -> dict[str, Any]:
    value = metrics.get(key)
    interval = intervals.get(key)
    return {"key": key, "value": None if value is None else round(float(value), 2),
            "interval": None if not interval else [round(float(x), 2) for x in interval],
            "p": p, "tied": p is not None and p >= TIE_ALPHA}


def build_table(data: dict[str, Any], *, snapshot_id: int | None, pos: str | None = None,
                sort: str | None = None, direction: str | None = None,
                view: str | None = None) -> RankingTable:
    """The ranking for one view/POS/sort from snapshot data; raises :class:`BadQuery`."""
    view_obj, pos, sort, direction = parse_query(view, pos, sort, direction)
    stats = data.get("stats", {}).get(pos or "all", {})
    ties = stats.get("ties", {})
    ranks = stats.get("ranks", {}).get(view_obj.headline, {})
    references = data.get("references", [])
    humans = next((r for r in references if r.get("kind") == "human"), None)
    human_value = _block(humans, pos)[0].get(view_obj.headline) if humans else None
    rows = []
    for i, system in enumerate(data.get("systems", [])):
        metrics, intervals = _block(system, pos)
        cells = [_cell(k, metrics, intervals, (ties.get(k) or [None] * (i + 1))[i])
                 for k in view_obj.columns]
        headline = metrics.get(view_obj.headline)
        pct = (round(100.0 * headline / human_value, 1)
               if headline is not None and human_value else None)
        head_p = (ties.get(view_obj.headline) or [None] * (i + 1))[i]

        def at(name: str, i: int = i) -> Any:
            values = ranks.get(name) or []
            return values[i] if i < len(values) else None

        rows.append({
            "id": system["id"], "system": system["system"], "team": system["team"],
            "team_id": system["team_id"], "date": system["date"][:10],
            "rank": at("rank"), "rank_lo": at("lo"), "rank_hi": at("hi"),
            "conservative_rank": at("conservative"),
            "tied_with_next_better": head_p is not None and head_p >= TIE_ALPHA,
            "headline": None if headline is None else round(float(headline), 2),
            "pct_humans": pct, "cells": cells,
        })
    _sort_rows(rows, view_obj, sort, direction)
    refs = []
    for ref in references:
        metrics, intervals = _block(ref, pos)
        refs.append({"name": ref["name"], "kind": ref["kind"], "note": ref.get("note", ""),
                     "subset": ref.get("subset", False), "split": ref.get("split"),
                     "n_targets": ref.get("n_targets"),
                     "cells": [_cell(k, metrics, intervals) for k in view_obj.columns]})
    return RankingTable(view_obj, pos, sort, direction, rows, refs, data.get("benchmark", {}),
                        data.get("generated_at"), snapshot_id, humans)


def _sort_rows(rows: list[dict[str, Any]], view: View, sort: str, direction: str) -> None:
    # Stable base order: headline descending, then date and id, so equal keys stay ranked.
    rows.sort(key=lambda r: r["id"])
    rows.sort(key=lambda r: r["date"])
    rows.sort(key=lambda r: -(r["headline"] if r["headline"] is not None else float("-inf")))
    reverse = direction == "desc"
    if sort == "rank":
        if reverse:
            rows.reverse()
        return
    if sort in ("system", "team"):
        rows.sort(key=lambda r: r[sort].casefold(), reverse=reverse)
        return
    if sort == "date":
        rows.sort(key=lambda r: r["date"], reverse=reverse)
        return
    index = view.columns.index(sort)
    missing = float("-inf") if reverse else float("inf")
    rows.sort(key=lambda r: r["cells"][index]["value"] if r["cells"][index]["value"] is not None
              else missing, reverse=reverse)


def build_matrix(data: dict[str, Any], metric: str) -> dict[str, Any]:
    """Systems × POS for one metric (value and interval per cell), best overall first."""
    if not any(metric in v.columns for v in VIEWS.values()):
        raise BadQuery(f"unknown metric {metric!r}")
    columns = (None, *POS_VALUES)

    def cells(entry: dict[str, Any]) -> list[dict[str, Any]]:
        return [_cell(metric, *_block(entry, p)) for p in columns]

    systems = [{"id": s["id"], "system": s["system"], "team": s["team"], "cells": cells(s)}
               for s in data.get("systems", [])]
    systems.sort(key=lambda r: -(r["cells"][0]["value"] if r["cells"][0]["value"] is not None
                                 else float("-inf")))
    refs = [{"name": r["name"], "kind": r["kind"], "subset": r.get("subset", False),
             "cells": cells(r)} for r in data.get("references", [])]
    return {"metric": metric, "columns": ["ALL", *POS_VALUES], "rows": systems,
            "references": refs}
