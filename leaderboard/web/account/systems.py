"""account blueprint: the form that edits a team's system's metadata (kept as history)."""

from __future__ import annotations

from datetime import datetime

from flask import abort, flash, redirect, render_template, url_for
from flask_login import current_user, login_required
from flask_wtf import FlaskForm
from wtforms import SelectField, StringField, TextAreaField

from leaderboard.db import get_session
from leaderboard.infra.queue import announce_visibility
from leaderboard.services.intake import systems
from leaderboard.services.intake.submissions import SubmissionError
from leaderboard.web.account.blueprint import bp

_YES_NO = [("", "not given"), ("yes", "yes"), ("no", "no")]


class SystemForm(FlaskForm):
    """The metadata of :data:`systems.FIELDS`; the service checks every value."""

    description = TextAreaField("Description")
    paper_url = StringField("Paper URL")
    code_url = StringField("Code URL")
    base_model = StringField("Base model")
    extra_resources = TextAreaField("Extra resources used (thesaurus, CoInCo, ...)")
    parameter_count = StringField("Parameter count (a whole number: 7000000000 for 7B)")
    external_llm_api = SelectField("External LLM API used", choices=_YES_NO)
    open_weights = SelectField("Open weights", choices=_YES_NO)
    anonymous = SelectField("Anonymous, for double-blind review (no: named; revealing "
                            "keeps its address)", choices=[("no", "no"), ("yes", "yes")])
    reveal_on = StringField("Reveal on (YYYY-MM-DD, UTC; empty: when you set it to no)")


def _shown(value: object) -> str:
    if isinstance(value, datetime):
        return value.date().isoformat()
    return "" if value is None else ("yes" if value else "no") if isinstance(value, bool) \
        else str(value)


@bp.route("/systems/<slug>", methods=["GET", "POST"])
@login_required
def edit_system(slug: str):
    """Edit one of the team's systems; 404 for another team's."""
    session = get_session()
    try:
        system = systems.team_system(session, current_user.team_id, slug)
    except SubmissionError:
        abort(404)
    form = SystemForm(data={key: _shown(getattr(system, key)) for key in systems.EDITABLE})
    error = None
    if form.validate_on_submit():
        try:
            changed = systems.edit_system(
                session=session, system=system, via="form", user_id=current_user.id,
                fields={key: getattr(form, key).data for key in systems.EDITABLE},
                request_refresh=lambda boards: announce_visibility(shown=boards))
        except SubmissionError as exc:
            session.rollback()
            error = exc.message
        else:
            flash(f"Saved: {', '.join(changed)}." if changed else "Nothing changed.", "success")
            return redirect(url_for("public.system_overview", slug=system.slug), 303)
    return render_template("account/system.html", form=form, system=system,
                           error=error), 400 if error else 200
