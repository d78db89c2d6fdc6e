"""The paper's table across boards (``/table``) and its LaTeX, BibTeX, Markdown and CSV files."""

from __future__ import annotations

from flask import Response, abort, render_template, request

from leaderboard.db import get_session
from leaderboard.services.catalog.reported import short_citation
from leaderboard.services.ranking import paper_table as paper
from leaderboard.services.ranking.metric_info import LABELS
from leaderboard.services.ranking.ranking_table import BadQuery
from leaderboard.web.public.blueprint import bp

#: Extension -> (writer, MIME type) of the table's files.
FILES = {"tex": (paper.latex_text, "application/x-tex"),
         "bib": (paper.bibtex_text, "application/x-bibtex"),
         "md": (paper.markdown_text, "text/markdown"), "csv": (paper.csv_text, "text/csv")}


def _table() -> paper.PaperTable:
    """The request's table (?col=board:metric, repeated; ?sort=, ?dir=, ?q=, ?rows=,
    ?complete=, and a field of ``META_FILTERS`` = yes/no); 400 on what it does not know."""
    args = request.args
    try:
        query = paper.parse_query(args, args.getlist("col"),
                                  {k: args[k] for k in paper.META_FILTERS if k in args})
        return paper.paper_table(get_session(), query)
    except BadQuery as exc:
        abort(400, description=str(exc))


@bp.get("/table")
def paper_table():
    """Systems and publications' rows × the chosen metrics of every board."""
    return render_template("public/paper_table.html", table=_table(), labels=LABELS,
                           filters=paper.META_FILTERS, short_citation=short_citation)


@bp.get("/table.<kind>")
def paper_table_file(kind: str):
    """The same table (same query string) as LaTeX, its BibTeX, Markdown or CSV."""
    if kind not in FILES:
        abort(404)
    write, mimetype = FILES[kind]
    response = Response(write(_table()), mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="paper-table.{kind}"'
    return response
