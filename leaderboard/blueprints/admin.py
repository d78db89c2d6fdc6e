"""Admin pages under /admin; one access check for the whole blueprint."""

from flask import Blueprint, abort
from flask_login import current_user

bp = Blueprint("admin", __name__, url_prefix="/admin")


@bp.before_request
def require_admin():
    """Only signed-in admins reach any admin page."""
    if not current_user.is_authenticated or not current_user.is_admin:
        abort(404)
