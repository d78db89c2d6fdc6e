"""Plotly figures of the public site, as JSON for ``static/js/charts.js`` (no Flask here).

Figures carry only public aggregates: point estimates, 95% intervals and per-POS aggregates.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from leaderboard.services.metric_info import LABELS, POS_VALUES

_LAYOUT = dict(template="plotly_white", margin=dict(l=60, r=20, t=50, b=60),
               font=dict(family="system-ui, sans-serif", size=13),
               legend=dict(orientation="h", y=-0.2))
_REF_SYMBOLS = {"human": "star", "oracle": "diamond"}


def _errors(value: float, interval: list[float] | None) -> tuple[float, float]:
    if not interval:
        return 0.0, 0.0
    return max(interval[1] - value, 0.0), max(value - interval[0], 0.0)


def _point_trace(entries: list[dict[str, Any]], px: str, py: str, name: str,
                 symbol: str, size: int) -> go.Scatter | None:
    xs, ys, ex, exm, ey, eym, labels = [], [], [], [], [], [], []
    for e in entries:
        x, y = e["metrics"].get(px), e["metrics"].get(py)
        if x is None or y is None:
            continue
        up, down = _errors(x, e["intervals"].get(px))
        ex.append(up)
        exm.append(down)
        up, down = _errors(y, e["intervals"].get(py))
        ey.append(up)
        eym.append(down)
        xs.append(x)
        ys.append(y)
        labels.append(e["label"])
    if not xs:
        return None
    return go.Scatter(
        x=xs, y=ys, mode="markers", name=name, text=labels,
        marker=dict(symbol=symbol, size=size),
        error_x=dict(type="data", array=ex, arrayminus=exm, thickness=1),
        error_y=dict(type="data", array=ey, arrayminus=eym, thickness=1),
        hovertemplate="%{text}<br>R %{x:.1f}<br>P %{y:.1f}<extra></extra>")


def precision_recall(data: dict[str, Any], mode: str = "strict", ref: str = "a") -> go.Figure:
    """Precision vs recall at 10 of every public system and reference row, with 95% bars."""
    px, py = f"{mode}_{ref}_r@10", f"{mode}_{ref}_p@10"
    fig = go.Figure()
    systems = [{"metrics": s["metrics"], "intervals": s["intervals"],
                "label": f"{s['system']} ({s['team']})"} for s in data.get("systems", [])]
    trace = _point_trace(systems, px, py, "Systems", "circle", 9)
    if trace is not None:
        fig.add_trace(trace)
    for r in data.get("references", []):
        label = r["name"] + (" (subset)" if r.get("subset") else "")
        entry = {"metrics": r["metrics"], "intervals": r["intervals"], "label": label}
        trace = _point_trace([entry], px, py, label, _REF_SYMBOLS.get(r["kind"], "square"), 13)
        if trace is not None:
            fig.add_trace(trace)
    ref_name = "acceptable" if ref == "a" else "conceivable"
    fig.update_layout(title=f"Precision vs recall at 10 ({mode}, {ref_name})",
                      xaxis_title=f"Recall@10 ({mode})", yaxis_title=f"Precision@10 ({mode})",
                      **_LAYOUT)
    return fig


def pos_bars(detail: dict[str, Any], keys: list[str]) -> go.Figure:
    """One system: the given metrics grouped by POS, with 95% interval bars."""
    fig = go.Figure()
    for pos in ("ALL", *POS_VALUES):
        if pos == "ALL":
            metrics, intervals = detail["metrics"], detail["intervals"]
        else:
            block = detail["by_pos"].get(pos)
            if not block:
                continue
            metrics, intervals = block.get("metrics", {}), block.get("intervals", {})
        shown = [k for k in keys if k in metrics]
        values = [metrics[k] for k in shown]
        errs = [_errors(metrics[k], intervals.get(k)) for k in shown]
        fig.add_trace(go.Bar(
            name=pos, x=[LABELS.get(k, k) for k in shown], y=values,
            error_y=dict(type="data", array=[e[0] for e in errs],
                         arrayminus=[e[1] for e in errs], thickness=1),
            hovertemplate=f"{pos} · %{{x}}: %{{y:.1f}}<extra></extra>"))
    fig.update_layout(barmode="group", title="Metrics by part of speech (95% intervals)",
                      yaxis_title="score (%)", **_LAYOUT)
    return fig


def score_distribution(data: dict[str, Any], metric: str) -> go.Figure:
    """Histogram of one metric over public systems, reference rows as dashed lines."""
    values = [s["metrics"][metric] for s in data.get("systems", []) if metric in s["metrics"]]
    fig = go.Figure(go.Histogram(x=values, nbinsx=min(40, max(5, len(values) // 3)),
                                 name="Systems", hovertemplate="%{x}: %{y}<extra></extra>"))
    for r in data.get("references", []):
        value = r["metrics"].get(metric)
        if value is not None:
            fig.add_vline(x=value, line_dash="dash",
                          annotation_text=r["name"], annotation_position="top")
    fig.update_layout(title=f"Distribution of {LABELS.get(metric, metric)} over systems",
                      xaxis_title=f"{LABELS.get(metric, metric)} (%)",
                      yaxis_title="systems", **_LAYOUT)
    return fig


def to_json(fig: go.Figure) -> str:
    """The figure as JSON for the page (safe inside a ``<script type=application/json>``)."""
    return fig.to_json().replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
