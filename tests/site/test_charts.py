"""Chart figures as the page receives them (JSON), built from hand-made snapshot data."""

from __future__ import annotations

import json
import re
from datetime import date

from sqlmodel import select

from leaderboard.models import ReferenceSystem, Submission, Team
from leaderboard.services.ranking import charts
from leaderboard.services.ranking.snapshots import refresh_snapshot

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


def _figure(fig) -> dict:
    return json.loads(charts.to_json(fig))


def test_dot_plot_wraps_long_names_keeps_two_rows_and_full_hover():
    """Names wrap at 22 characters, so a phone shows them whole (not "Ranker top-3 (North
    L…"), the team on a line of its own, and only a fourth line would be cut."""
    long_a = "A very long system name number one"
    long_b = "A very long system name number two"
    data = {"systems": [_system(1, "2026-11-20", 40.0, long_a),
                        _system(2, "2026-11-20", 30.0, long_b),
                        _system(3, "2026-11-20", 20.0, "Short")], "references": []}
    fig = _figure(charts.score_dots(data, KEY))
    axis = fig["layout"]["yaxis"]
    assert axis["ticktext"] == ["A very long system<br>name number one<br>Team",
                              "A very long system<br>name number two<br>Team",
                              "Short<br>Team"]
    endless = _figure(charts.score_dots({"systems": [_system(
        4, "2026-11-20", 9.0, "word " * 30)], "references": []}, KEY))["layout"]["yaxis"]
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
    labels = [t for t in _figure(charts.precision_recall(data))["data"]
              if t.get("mode") == "text"]
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
    axis = _figure(charts.score_dots(data, KEY))["layout"]["yaxis"]
    assert axis["ticktext"] == ["&lt;" * 22 + "<br>" + "&lt;" * 8 + "<br>Team"]
    # Line breaks are the one tag left to plotly; a link in a name stays text.
    evil = _figure(charts.score_dots({"systems": [_system(
        1, "2026-11-20", 40.0, '<a href="x">y</a>')], "references": []}, KEY))
    assert "<a" not in evil["layout"]["yaxis"]["ticktext"][0]


def test_history_of_one_day_draws_the_best_line_and_band_with_length():
    """With all submissions on one day, the step line and band reach the next day, inside
    the widened axis, instead of having no length (one x)."""
    data = {"systems": [_system(1, "2026-11-20", 30.0), _system(2, "2026-11-20", 35.0)],
            "references": []}
    traces = {t.get("name"): t for t in _figure(charts.history(data, KEY))["data"]}
    best = traces["Best so far"]
    assert [x[:10] for x in best["x"]] == ["2026-11-20", "2026-11-20", "2026-11-21"]
    assert best["y"] == [30.0, 35.0, 35.0]
    assert len({x[:10] for x in traces["95% interval of the best"]["x"]}) == 2


def test_history_shows_reported_rows_and_keeps_labels_apart():
    """A publication's number is on the timeline (dotted, marked), and the
    axes' labels stand off the corner where the first y and x labels met."""
    data = {"systems": [_system(1, "2026-11-20", 30.0)], "references": [],
            "reported": [{"name": "Wada et al.", "metrics": {KEY: 24.52}},
                         {"name": "No such metric", "metrics": {"gap": 50.0}}]}
    layout = _layout(charts.history(data, KEY))
    dotted = [s for s in layout["shapes"] if s["line"].get("dash") == "dot"]
    assert [s["y0"] for s in dotted] == [24.52]
    texts = [a["text"] for a in layout["annotations"]]
    assert "Wada et al. (reported, not re-scored)" in texts
    assert "No such metric (reported, not re-scored)" not in texts
    assert layout["xaxis"]["ticklabelstandoff"] == 6
    assert layout["yaxis"]["ticklabelstandoff"] == 6


def test_significance_grid_cells_touch_and_carry_the_scale():
    """Cells are rectangles one cell wide (a hairline apart), not pixel-sized markers with
    gaps, coloured by P on plotly's RdBu scale, grey on the diagonal."""
    table = {"metric": KEY, "systems": [{"system": "A"}, {"system": "B"}, {"system": "C"}],
             "p_beats": [[0.5, 1.0, 0.75], [0.0, 0.5, 0.25], [0.25, 0.75, 0.5]],
             "significant": [[False, True, False], [True, False, False],
                             [False, False, False]]}
    layout = _layout(charts.heatmap(table))
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
    assert layout["yaxis"]["range"] == [2.5, -0.5]


def _grid(n: int, seed: int, names: list[str] | None = None, first: int = 1) -> dict:
    """A significance table of ``n`` systems with random P (some of them significant)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    beats = np.round(rng.uniform(0, 1, (n, n)), 4)
    beats = np.triu(beats, 1) + np.tril(1 - beats.T, -1) + np.eye(n) * 0.5
    return {"metric": KEY, "first_rank": first,
            "systems": [{"system": (names or [])[k] if k < len(names or []) else f"S{k}"}
                        for k in range(n)],
            "p_beats": beats.tolist(),
            "significant": [[i != j and (b < 0.02 or b > 0.98) for j, b in enumerate(line)]
                            for i, line in enumerate(beats.tolist())]}


def test_significance_grid_json_is_the_plotly_figures_text():
    """heatmap_json (no plotly figure objects: what a web process computes for a window
    around a system) writes exactly the text of to_json(heatmap(...)): grids of 2 to 30
    systems, row heights 30 and 22 px, with and without significant cells, a window that
    starts lower down, names with markup and entities."""
    tables = [_grid(2, 1), _grid(10, 2), _grid(11, 3), _grid(30, 4, first=486),
              _grid(4, 5, names=["<a href='x'>A & B</a>", "a very long name " * 4, "é ✱"])]
    quiet = _grid(5, 6)
    quiet["significant"] = [[False] * 5 for _ in range(5)]
    tables.append(quiet)
    assert any(any(map(any, t["significant"])) for t in tables)
    for table in tables:
        text = charts.heatmap_json(table)
        assert text == charts.to_json(charts.heatmap(table))
        # msgspec writes it (charts._dumps): the very text json.dumps wrote before, markup
        # escapes and non-ASCII names included.
        before = json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
        assert text == before.replace("<", "\\u003c").replace(">", "\\u003e").replace(
            "&", "\\u0026")


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
    fig = _figure(charts.history(data, KEY))
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


def test_system_chart_json_is_the_plotly_figures_text():
    """pos_bars_json (what a ranker writes for every system page) writes exactly the text of
    to_json(pos_bars(...)): every POS with intervals, a POS without a block or without
    metrics, a metric without an interval, a value outside its interval, whole numbers,
    nothing at all, and the keys of a ranking board."""
    keys = ["lenient_a_f10", "lenient_c_f10", "strict_a_f10", "gap", "p_at_1"]
    full = {"metrics": {"lenient_a_f10": 33.91234, "lenient_c_f10": 63.5712, "gap": 50.2527,
                        "strict_a_f10": 0, "p_at_1": 100.0},
            "intervals": {"lenient_a_f10": [31.0, 36.456], "lenient_c_f10": [64.0, 70.0],
                          "gap": [49.99999, 50.5]},
            "by_pos": {"NOUN": {"metrics": {"gap": 12.3456, "p_at_1": 7},
                                "intervals": {"gap": [10.0, 14.0]}},
                       "VERB": {}, "ADJ": {"metrics": {}, "intervals": {}},
                       "ADV": {"metrics": {"lenient_a_f10": 1 / 3}}}}
    empty = {"metrics": {}, "intervals": {}, "by_pos": {}}
    for detail, shown in ((full, keys), (full, ["gap"]), (full, []), (empty, keys)):
        text = charts.pos_bars_json(detail, shown)
        assert text == charts.to_json(charts.pos_bars(detail, shown))
    figure = json.loads(charts.pos_bars_json(full, keys))
    assert [t["name"] for t in figure["data"]] == ["ALL", "NOUN", "ADJ", "ADV"]
    assert figure["data"][0]["y"] == [33.91, 63.57, 0, 50.25, 100.0]
    assert figure["data"][0]["error_y"]["array"] == [2.54, 6.43, 0.0, 0.25, 0.0]
    assert figure["data"][0]["error_y"]["arrayminus"] == [2.91, 0.0, 0.0, 0.25, 0.0]


def test_system_charts_of_a_real_board_are_the_plotly_figures_text(session, seeded):
    """The same on every system of the seeded board, as the ranker makes them."""
    from leaderboard.services.ranking.systems import system_detail

    ids = session.exec(select(Submission.id)).all()
    assert len(ids) >= 3
    keys = ["lenient_a_f10", "lenient_c_f10", "strict_a_f10", "strict_c_f10", "gap",
            "p_at_1"]
    for sid in ids:
        detail = system_detail(session=session, submission_id=sid, viewer=None)
        if detail is None or not detail["metrics"]:
            continue
        assert charts.pos_bars_json(detail, keys) == charts.to_json(charts.pos_bars(detail,
                                                                                    keys))


def test_significance_colours_are_plotlys_rdbu_samples():
    """_rdbu (the stops parsed once) writes what plotly's sample_colorscale("RdBu") writes
    for every P with four decimals, the ends and the stops included."""
    from plotly.colors import sample_colorscale

    charts._rdbu.cache_clear()
    values = [k / 10_000 for k in range(10_001)]
    assert [charts._rdbu(v) for v in values] == sample_colorscale("RdBu", values)
    assert (charts._rdbu(0.0), charts._rdbu(1.0)) == ("rgb(103, 0, 31)", "rgb(5, 48, 97)")
