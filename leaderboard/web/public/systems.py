"""System and team pages."""

from __future__ import annotations

from flask import abort, g, render_template, request, url_for
from flask_login import current_user
from markupsafe import Markup

from leaderboard.db import get_session
from leaderboard.models import Board, Split, Team, Track
from leaderboard.services.catalog.boards import board_views
from leaderboard.services.intake.systems import FIELD_LABELS, FIELDS
from leaderboard.services.ranking import charts
from leaderboard.services.ranking.charts.pos_bars import pos_bars
from leaderboard.services.ranking.metric_info import (
    LABELS,
    POS_VALUES,
    VIEWS,
    board_metrics,
    default_sort,
    describe,
    displayed,
    headlines,
)
from leaderboard.services.ranking.ranking_table import shown_style
from leaderboard.services.ranking.records import result_record
from leaderboard.services.ranking.set_apart import apart_reasons, repeat_facts, why
from leaderboard.services.ranking.snapshot_reader import cached_value, load_data
from leaderboard.services.ranking.system_page import system_page
from leaderboard.services.ranking.systems import (
    coverage_text,
    current_results,
    system_detail,
    team_systems,
    team_tables,
)
from leaderboard.services.text_fields import valid_url
from leaderboard.web.public.analysis import redirect_to_compare
from leaderboard.web.public.blueprint import bp
from leaderboard.web.public.common import choices_of, snapshot_ref
from leaderboard.web.public.render import options_html
from leaderboard.web.public.results import record_citation

bp.add_app_template_test(valid_url, "valid_url")

#: Metrics of the system page's per-POS chart (headline figures only, to stay readable).
CHART_KEYS = ["strict_a_f@10", "strict_c_f@10", "lenient_a_f@10", "lenient_c_f@10",
              "strict_c_p@1", "gap"]
#: The headline cards on top of the page.
CARD_KEYS = ["strict_a_f@10", "strict_c_f@10", "lenient_a_f@10", "lenient_c_f@10"]


@bp.get("/systems/<int:submission_id>")
def system(submission_id: int):
    """A system's metadata, every metric with its interval, per-POS table and chart;
    ?compare=<id> redirects to the head-to-head page."""
    session = get_session()
    detail = system_detail(session=session, submission_id=submission_id, viewer=current_user)
    if detail is None:
        abort(404, description="No such system, or it is not public.")
    compare_id = request.args.get("compare", type=int)
    if request.args.get("compare") and compare_id is None:
        abort(400, description="compare must be a system id (a whole number).")
    if compare_id is not None:
        return redirect_to_compare(submission_id, compare_id)
    g.board = session.get(Board, detail["board_id"])  # the header names the system's board
    views = board_views(g.board, session) if g.board is not None else Track.GENERATIVE
    chart_keys = chart_keys_for(views)
    if views != Track.GENERATIVE:
        # A SWORDS ranking board (the F^10 families mean nothing when every candidate is
        # given) or an LS07/CoInCo board: its own metrics only.
        # its own metrics only, the ones it ranks on as cards (the table below has them all)
        cards, keys = list(headlines(views)), list(displayed(views))
    else:
        cards = CARD_KEYS
        keys = [*VIEWS["all"].columns, *board_metrics(views, (
            k for k in detail["metrics"] if k not in VIEWS["all"].columns))]
    detail["coverage_text"] = coverage_text(detail["coverage"])
    headline = default_sort(views)
    neighbours = url_for("public.significance", metric=headline, around=submission_id,
                         leaderboard=g.board.slug if g.board is not None else None)
    apart = why(detail, headline)   # not ranked on the headline: no neighbours to compare
    benchmark = session.get(Split, detail["benchmark_id"])
    family, decimals = shown_style({"benchmark": {"name": benchmark.name if benchmark else ""}})
    context = dict(s=detail, cards=cards, family=family, decimals=decimals, keys=keys,
                   apart=apart_reasons(detail, keys),
                   labels=LABELS, describe=describe, pos_values=POS_VALUES,
                   neighbours_url=None if apart else neighbours, headline=headline,
                   set_apart=apart)
    # A system only its team and the hosts see is on no comparison (they answer 404).
    options = (compare_options(detail["board_id"], submission_id) if detail["public"]
               else Markup(""))
    # the chart is a function of the result and its metrics alone
    figure = system_figure(detail, chart_keys) if detail["metrics"] else None
    record = (result_record(session, detail["public_id"])
              if detail["public"] and detail["public_id"] else None)
    return render_template("public/upload.html", options=options, figure=figure, **context,
                           **(record_citation(record) if record else {}))


@bp.get("/systems/<slug>")
def system_overview(slug: str):
    """One system across boards: its rank and headline on each, its metadata and history."""
    page = system_page(session=get_session(), slug=slug, viewer=current_user)
    if page is None:
        abort(404, description="No such system, or it is not public.")
    return render_template("public/system.html", page=page, fields=FIELDS, labels=FIELD_LABELS)


def compare_options(board_id: int, submission_id: int) -> Markup:
    """The compare selector's options: the board's public systems but this one. The
    snapshot's whole list is written once per process and snapshot; a page cuts its own
    system out of it."""
    ref = snapshot_ref(board_id)
    every = cached_value(ref, "compare-options", (), lambda: options_html(
        choices_of(load_data(get_session(), ref))))
    start = every.find(f'<option value="{submission_id}">')
    if start < 0:
        return every
    end = every.index("</option>", start) + len("</option>")
    return Markup(every[:start] + every[end:])


def chart_keys_for(views: str) -> list[str]:
    """The metrics of a system page's chart on a board of ``views``: the headline figures
    on a SWORDS generative board, the board's own metrics elsewhere, or where it has more
    than a chart can show (22 on LS07/CoInCo: bars a pixel wide on a phone) the ones it
    ranks on."""
    if views == Track.GENERATIVE:
        return CHART_KEYS
    own = list(displayed(views))
    return own if len(own) <= len(CHART_KEYS) else list(headlines(views))


def system_figure(detail: dict, chart_keys: list[str]) -> str:
    """The system page's chart (JSON) of ``detail``'s result, made once per process and
    snapshot of its board."""
    return cached_value(snapshot_ref(detail["board_id"]), "system-chart",
                        (detail["result_id"], tuple(chart_keys)),
                        lambda: charts.to_json(pos_bars(detail, chart_keys)))


@bp.get("/teams/<int:team_id>")
def team(team_id: int):
    """A team's systems: public ones for everybody, private ones too for its members."""
    session = get_session()
    team_row = session.get(Team, team_id)
    if team_row is None or team_row.disabled:
        abort(404, description="No such team.")
    subs = team_systems(session=session, team_id=team_id, viewer=current_user)
    results = current_results(session, [s.id for s in subs])
    apart = {sid: apart_reasons(repeat_facts(r.counts), r.metrics) for sid, r in results.items()}
    return render_template("public/team.html", team=team_row, tables=team_tables(session, subs),
                           results=results, apart=apart, labels=LABELS)
