"""Chart figures as the page receives them (JSON), built from hand-made snapshot data."""

from __future__ import annotations

import json
import re
from datetime import date

from sqlmodel import select

from leaderboard.models import ReferenceSystem, Submission, Team
from leaderboard.services.ranking import charts
from leaderboard.services.ranking.charts.heatmap import _rdbu, heatmap
from leaderboard.services.ranking.charts.history import history
from leaderboard.services.ranking.charts.pos_bars import pos_bars
from leaderboard.services.ranking.charts.scores import precision_recall, score_dots
from leaderboard.services.ranking.snapshots import refresh_snapshot

KEY = "strict_a_f@10"


def _system(n: int, day: str, score: float, name: str = "") -> dict:
    return {"id": n, "system": name or f"System {n}", "team": "Team", "date": day + "T10:00:00",
            "metrics": {KEY: score}, "intervals": {KEY: [score - 2, score + 2]}}


def test_history_of_one_day_spans_two_days_labelled_by_date():
    data = {"systems": [_system(1, "2026-11-20", 30.0), _system(2, "2026-11-20", 35.0)],
            "references": []}
    axis = history(data, KEY)["layout"]["xaxis"]
    start, end = (date.fromisoformat(v) for v in axis["range"])
    assert (start, end) == (date(2026, 11, 19), date(2026, 11, 21))
    assert axis["tickformat"] == "%Y-%m-%d" and axis["tickangle"] == 0
    assert axis["type"] == "date" and axis["dtick"] == 86_400_000


def test_history_over_weeks_keeps_plotlys_range():
    data = {"systems": [_system(1, "2026-10-01", 30.0), _system(2, "2026-11-20", 35.0)],
            "references": []}
    axis = history(data, KEY)["layout"]["xaxis"]
    assert "range" not in axis and "dtick" not in axis
    assert axis["tickformat"] == "%Y-%m-%d" and axis["nticks"] == 4


def _figure(fig: dict) -> dict:
    """``fig`` as the page reads it: rounded, escaped."""
    return json.loads(charts.to_json(fig))


def test_dot_plot_wraps_long_names_keeps_two_rows_and_full_hover():
    """Names wrap at 22 characters, so a phone shows them whole (not "Ranker top-3 (North
    L…"), the team on a line of its own, and only a fourth line would be cut."""
    long_a = "A very long system name number one"
    long_b = "A very long system name number two"
    data = {"systems": [_system(1, "2026-11-20", 40.0, long_a),
                        _system(2, "2026-11-20", 30.0, long_b),
                        _system(3, "2026-11-20", 20.0, "Short")], "references": []}
    fig = score_dots(data, KEY)
    axis = fig["layout"]["yaxis"]
    assert axis["ticktext"] == ["A very long system<br>name number one<br>Team",
                              "A very long system<br>name number two<br>Team",
                              "Short<br>Team"]
    endless = score_dots({"systems": [_system(4, "2026-11-20", 9.0, "word " * 30)],
                          "references": []}, KEY)["layout"]["yaxis"]
    first, second, third, team = endless["ticktext"][0].split("<br>")
    assert len(first) <= 22 and third.endswith("…") and len(third) <= 22 and team == "Team"
    # The figure is as tall as its rows: no empty band under three systems.
    assert fig["layout"]["height"] == 150 + 14 * 8 + 10 * 3  # 8 label lines, 3 rows
    assert axis["tickvals"] == [0, 1, 2] and fig["data"][0]["y"] == [0, 1, 2]
    assert fig["data"][0]["text"] == [f"{long_a} (Team)", f"{long_b} (Team)", "Short (Team)"]
    assert "%{text}" in fig["data"][0]["hovertemplate"]


def _pr_entry(name: str, r: float, p: float) -> dict:
    f = 2 * p * r / (p + r)
    return {"system": name, "team": "Team", "name": name, "kind": "human",
            "metrics": {"strict_a_r@10": r, "strict_a_p@10": p, "strict_a_f@10": f},
            "intervals": {}}


def test_pr_scatter_leaves_unnamed_a_system_on_a_reference_marker():
    data = {"systems": [_pr_entry("On the marker", 50.0, 51.0), _pr_entry("Clear", 20.0, 20.0)],
            "references": [_pr_entry("Humans", 51.0, 50.5)]}
    labels = [t for t in precision_recall(data)["data"] if t.get("mode") == "text"]
    assert [t["text"] for t in labels] == [["Clear"]]


EVIL = '<a href="https://evil.example">x</a>'
EVIL_SHOWN = '&lt;a href="https://evil.example"&gt;x&lt;/a&gt;'


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _figures(page: str) -> list[dict]:
    found = re.findall(r'<script type="application/json" id="[a-z0-9-]*figure[a-z0-9-]*">'
                       r"(.*?)</script>", page, re.S)
    assert found, "page has no chart"
    return [json.loads(raw) for raw in found]


def test_names_reach_every_chart_escaped_not_as_markup(client, session, seeded):
    """Plotly renders tags in text (tick labels, hover, legend, annotations), so a
    system named like a link would be a live link on /significance. Every name a team or the
    hosts chose reaches the chart escaped: shown as typed, never as markup."""
    row = session.get(Submission, seeded.public["Contextual ranker"])
    row.system_name = EVIL
    team = session.get(Team, seeded.teams["North Lab"])
    team.name = "North <b>Lab</b> & Co"
    reference = session.exec(select(ReferenceSystem)
                             .where(ReferenceSystem.name == "Thesaurus")).one()
    reference.name = "<i>Thesaurus</i>"
    session.commit()
    refresh_snapshot(session=session, board_id=seeded.board_id)
    session.commit()
    pages = {path: client.get(path) for path in ("/significance", "/charts", "/history",
                                                 "/charts?view=lenient-a")}
    for path, response in pages.items():
        assert response.status_code == 200, path
        strings = [s for fig in _figures(response.get_data(as_text=True))
                   for s in _strings(fig["data"]) + _strings(fig["layout"])]
        assert not [s for s in strings if "<a" in s or "<b>" in s or "<i>" in s], path
        assert any(EVIL_SHOWN in s for s in strings), path
    charts_page = [s for fig in _figures(pages["/charts?view=lenient-a"].get_data(
        as_text=True)) for s in _strings(fig)]  # the reference rows have lenient scores
    assert any("North &lt;b&gt;Lab&lt;/b&gt; &amp; Co" in s for s in charts_page)
    assert any("&lt;i&gt;Thesaurus&lt;/i&gt;" in s for s in charts_page)
    # Our own markup (the two-line titles) is kept.
    assert any("<br>" in s for s in charts_page)


def test_a_wrapped_name_is_wrapped_before_it_is_escaped():
    name = "<" * 30
    data = {"systems": [_system(1, "2026-11-20", 40.0, name)], "references": []}
    axis = _figure(score_dots(data, KEY))["layout"]["yaxis"]
    assert axis["ticktext"] == ["&lt;" * 22 + "<br>" + "&lt;" * 8 + "<br>Team"]
    # Line breaks are the one tag left to plotly; a link in a name stays text.
    evil = _figure(score_dots({"systems": [_system(
        1, "2026-11-20", 40.0, '<a href="x">y</a>')], "references": []}, KEY))
    assert "<a" not in evil["layout"]["yaxis"]["ticktext"][0]


def test_history_of_one_day_draws_the_best_line_and_band_with_length():
    """With all submissions on one day, the step line and band reach the next day, inside
    the widened axis, instead of having no length (one x)."""
    data = {"systems": [_system(1, "2026-11-20", 30.0), _system(2, "2026-11-20", 35.0)],
            "references": []}
    traces = {t.get("name"): t for t in history(data, KEY)["data"]}
    best = traces["Best so far"]
    assert best["x"] == ["2026-11-20", "2026-11-20", "2026-11-21"]
    assert best["y"] == [30.0, 35.0, 35.0]
    assert traces["95% interval of the best"]["x"] == best["x"]
    assert traces["95% interval of the best"]["y"] == [28.0, 33.0, 33.0]


def test_history_shows_reported_rows_and_keeps_labels_apart():
    """A publication's number is on the timeline (dotted, marked), and the
    axes' labels stand off the corner where the first y and x labels met."""
    data = {"systems": [_system(1, "2026-11-20", 30.0)], "references": [],
            "reported": [{"name": "Wada et al.", "metrics": {KEY: 24.52}},
                         {"name": "No such metric", "metrics": {"gap": 50.0}}]}
    layout = history(data, KEY)["layout"]
    dotted = [s for s in layout["shapes"] if s["line"].get("dash") == "dot"]
    assert [s["y0"] for s in dotted] == [24.52]
    texts = [a["text"] for a in layout["annotations"]]
    assert "Wada et al. (reported, not re-scored)" in texts
    assert "No such metric (reported, not re-scored)" not in texts
    assert layout["xaxis"]["ticklabelstandoff"] == 6
    assert layout["yaxis"]["ticklabelstandoff"] == 6


def test_significance_grid_cells_touch_and_carry_the_scale():
    """Cells are rectangles one cell wide (a hairline apart), not pixel-sized markers with
    gaps, coloured by P on plotly's RdBu scale, grey on the diagonal; ✱ on significant
    cells, each cell's P by hover."""
    table = {"metric": KEY, "systems": [{"system": "A"}, {"system": "B"}, {"system": "C"}],
             "p_beats": [[0.5, 1.0, 0.75], [0.0, 0.5, 0.25], [0.25, 0.75, 0.5]],
             "significant": [[False, True, False], [True, False, False],
                             [False, False, False]]}
    figure = heatmap(table)
    layout = figure["layout"]
    rects = [s for s in layout["shapes"] if s["type"] == "rect"]
    assert len(rects) == 9
    cell = {(round((s["y0"] + s["y1"]) / 2), round((s["x0"] + s["x1"]) / 2)): s for s in rects}
    for s in rects:
        assert abs((s["x1"] - s["x0"]) - 0.96) < 1e-9 and abs((s["y1"] - s["y0"]) - 0.96) < 1e-9
    assert cell[(0, 1)]["fillcolor"] == "rgb(5, 48, 97)"      # row A always beats B: blue
    assert cell[(1, 0)]["fillcolor"] == "rgb(103, 0, 31)"     # row B always loses: red
    assert cell[(0, 2)]["fillcolor"] == "rgb(107, 172, 208)"  # 0.75: light blue
    assert cell[(1, 1)]["fillcolor"] == "#e9ecef"             # itself
    assert layout["xaxis"]["ticktext"] == ["1. A", "2. B", "3. C"]
    assert layout["yaxis"]["range"] == [2.5, -0.5] and layout["height"] == 360
    hover, marks = figure["data"]
    assert hover["text"][:2] == ["P(1. A beats 2. B)", "P(1. A beats 3. C)"]
    assert hover["customdata"][:2] == [1.0, 0.75] and hover["marker"]["opacity"] == 0
    assert (marks["x"], marks["y"], marks["text"]) == ([1, 0], [0, 1], ["✱", "✱"])


def test_a_figure_reaches_the_page_rounded_escaped_and_themed():
    """to_json: every number at two decimals (shapes too), user text escaped and nothing
    that would end the <script> element, and plotly.py's white template as its figures
    carry it (plotly.js knows no templates by name)."""
    import plotly.graph_objects as go

    table = {"metric": KEY, "first_rank": 486,
             "systems": [{"system": "<a href='x'>A & B</a>"}, {"system": "é ✱"}],
             "p_beats": [[0.5, 0.1234], [0.8766, 0.5]], "significant": [[False] * 2] * 2}
    text = charts.to_json(heatmap(table))
    assert "<" not in text and ">" not in text and "&" not in text
    figure = json.loads(text)
    assert figure["layout"]["xaxis"]["ticktext"] == [
        "486. &lt;a href='x'&gt;A &amp; B&lt;/a&gt;", "487. é ✱"]
    assert figure["data"][0]["customdata"] == [0.12, 0.88]
    assert [s["x0"] for s in figure["layout"]["shapes"]] == [0.52, -0.48, -0.48, 0.52]
    white = json.loads(go.Figure(layout={"template": "plotly_white"}).to_json())
    assert figure["layout"]["template"] == white["layout"]["template"]
    assert figure["layout"]["template"]["layout"]["plot_bgcolor"] == "white"


def test_significance_page_prints_the_colour_scale(site):
    client, _ = site
    html = client.get("/significance").get_data(as_text=True)
    legend = html.split('id="sig-legend"')[1].split("</figure>")[0]
    assert '<div class="scale-bar" aria-hidden="true"></div>' in legend
    assert "0: the row system loses in every resample" in legend
    assert "1: it wins in every resample" in legend and "✱: significant" in legend


def test_history_names_only_reported_rows_far_apart_and_hovers_them_all():
    """The paper's 13 reported rows on the timeline: their names (a dotted line each) would
    pile up into an unreadable block. A few far-apart ones are named (highest first, a tenth of the
    span apart and a sixth from a reference line); every row is in the hover layer."""
    values = [48.8, 34.1, 33.6, 33.4, 32.4, 31.9, 30.7, 29.8, 26.4, 25.9, 24.5, 18.0, 12.2]
    data = {"systems": [_system(1, "2026-11-20", 30.0), _system(2, "2026-11-22", 84.0)],
            "references": [{"name": "Thesaurus", "kind": "oracle", "metrics": {KEY: 55.0},
                            "intervals": {}}],
            "reported": [{"name": f"Row {n}", "metrics": {KEY: v}}
                         for n, v in enumerate(values)]}
    fig = history(data, KEY)
    named = sorted(float(a["y"]) for a in fig["layout"]["annotations"]
                   if "(reported, not re-scored)" in a["text"])
    span = 84.0 - 12.2
    assert named == [18.0, 26.4, 34.1]  # 48.8 is near the reference at 55
    assert all(b - a > span / 10 for a, b in zip(named, named[1:], strict=False))
    dotted = [s for s in fig["layout"]["shapes"] if s["line"].get("dash") == "dot"]
    assert len(dotted) == 13
    hover = next(t for t in fig["data"] if t.get("name", "").startswith("Reported"))
    assert hover["y"] == values and len(hover["hovertext"]) == 13
    assert hover["hovertext"][0] == "Row 0: reported, not re-scored"


def test_system_chart_groups_the_metrics_by_pos_with_interval_bars():
    """All, then every POS the result has a block of, the metrics asked for in that order,
    bars from the 95% interval (none below zero: a value outside its interval; none without
    an interval), every number at two decimals."""
    keys = ["lenient_a_f@10", "lenient_c_f@10", "strict_a_f@10", "gap", "strict_c_p@1"]
    full = {"metrics": {"lenient_a_f@10": 33.91234, "lenient_c_f@10": 63.5712, "gap": 50.2527,
                        "strict_a_f@10": 0, "strict_c_p@1": 100.0},
            "intervals": {"lenient_a_f@10": [31.0, 36.456], "lenient_c_f@10": [64.0, 70.0],
                          "gap": [49.99999, 50.5]},
            "by_pos": {"NOUN": {"metrics": {"gap": 12.3456, "strict_c_p@1": 7},
                                "intervals": {"gap": [10.0, 14.0]}},
                       "VERB": {}, "ADJ": {"metrics": {}, "intervals": {}},
                       "ADV": {"metrics": {"lenient_a_f@10": 1 / 3}}}}
    figure = _figure(pos_bars(full, keys))
    every, noun, adj, adv = figure["data"]
    assert [t["name"] for t in figure["data"]] == ["ALL", "NOUN", "ADJ", "ADV"]
    assert every["x"] == ["F¹⁰ lenient", "Fc¹⁰ lenient", "F¹⁰ strict", "GAP", "P@1"]
    assert every["y"] == [33.91, 63.57, 0, 50.25, 100.0]
    assert every["error_y"]["array"] == [2.54, 6.43, 0.0, 0.25, 0.0]
    assert every["error_y"]["arrayminus"] == [2.91, 0.0, 0.0, 0.25, 0.0]
    assert (noun["x"], noun["y"]) == (["GAP", "P@1"], [12.35, 7])
    assert noun["error_y"]["array"] == [1.65, 0.0] and noun["error_y"]["arrayminus"] == [2.35, 0.0]
    assert (adj["x"], adj["y"], adv["y"]) == ([], [], [0.33])
    assert all(t["type"] == "bar" for t in figure["data"])
    assert figure["layout"]["barmode"] == "group"
    assert figure["layout"]["yaxis"]["title"]["text"] == "score (%)"
    assert pos_bars({"metrics": {}, "intervals": {}, "by_pos": {}}, keys)["data"] == [{
        "type": "bar", "name": "ALL", "x": [], "y": [], "hovertemplate":
        "ALL · %{x}: %{y:.1f}<extra></extra>",
        "error_y": {"type": "data", "array": [], "arrayminus": [], "thickness": 1}}]


def test_significance_colours_are_plotlys_rdbu_samples():
    """_rdbu (the stops parsed once) writes what plotly's sample_colorscale("RdBu") writes
    for every P with four decimals, the ends and the stops included."""
    from plotly.colors import sample_colorscale

    values = [k / 10_000 for k in range(10_001)]
    assert [_rdbu(v) for v in values] == sample_colorscale("RdBu", values)
    assert (_rdbu(0.0), _rdbu(1.0)) == ("rgb(103, 0, 31)", "rgb(5, 48, 97)")
