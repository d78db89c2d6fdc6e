"""The figure of a system's page: its metrics grouped by part of speech."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from leaderboard.services.ranking.charts import error_bars, errors, label, layout, title
from leaderboard.services.ranking.metric_info import POS_VALUES


def pos_bars(detail: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    """One system: the given metrics grouped by POS, with 95% interval bars."""
    data = [{"type": "bar", "name": pos, "x": [label(k) for k in shown], "y": values,
             "error_y": error_bars(errs),
             "hovertemplate": f"{pos} · %{{x}}: %{{y:.1f}}<extra></extra>"}
            for pos, shown, values, errs in _pos_series(detail, keys)]
    return {"data": data, "layout": layout(
        title("Metrics by part of speech", "95% interval bars"), barmode="group",
        yaxis={"title": {"text": "score (%)"}})}


def _pos_series(detail: dict[str, Any], keys: list[str]) -> Iterator[tuple[
        str, list[str], list[float], list[tuple[float, float]]]]:
    """(POS, metrics shown, values, interval errors) of each bar group of a system's chart:
    all, then each POS the result has a block of."""
    for pos in ("ALL", *POS_VALUES):
        if pos == "ALL":
            metrics, intervals = detail["metrics"], detail["intervals"]
        else:
            block = detail["by_pos"].get(pos)
            if not block:
                continue
            metrics, intervals = block.get("metrics", {}), block.get("intervals", {})
        shown = [k for k in keys if k in metrics]
        yield (pos, shown, [metrics[k] for k in shown],
               [errors(metrics[k], intervals.get(k)) for k in shown])
