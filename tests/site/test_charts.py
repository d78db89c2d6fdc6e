"""Chart figures as the page receives them (JSON), built from hand-made snapshot data."""

from __future__ import annotations

import json
from datetime import date

from leaderboard.services.ranking import charts

KEY = "strict_a_f@10"


def _system(n: int, day: str, score: float, name: str = "") -> dict:
    return {"id": n, "system": name or f"System {n}", "team": "Team", "date": day + "T10:00:00",
            "metrics": {KEY: score}, "intervals": {KEY: [score - 2, score + 2]}}


def _layout(fig) -> dict:
    return json.loads(charts.to_json(fig))["layout"]


def test_history_of_one_day_spans_two_days_labelled_by_date():
    data = {"systems": [_system(1, "2026-11-20", 30.0), _system(2, "2026-11-20", 35.0)],
            "references": []}
    axis = _layout(charts.history(data, KEY))["xaxis"]
    start, end = (date.fromisoformat(v[:10]) for v in axis["range"])
    assert (start, end) == (date(2026, 11, 19), date(2026, 11, 21))
    assert axis["tickformat"] == "%Y-%m-%d" and axis["tickangle"] == 0
    assert axis["type"] == "date" and axis["dtick"] == 86_400_000


def test_history_over_weeks_keeps_plotlys_range():
    data = {"systems": [_system(1, "2026-10-01", 30.0), _system(2, "2026-11-20", 35.0)],
            "references": []}
    axis = _layout(charts.history(data, KEY))["xaxis"]
    assert "range" not in axis and "dtick" not in axis
    assert axis["tickformat"] == "%Y-%m-%d" and axis["nticks"] == 4
