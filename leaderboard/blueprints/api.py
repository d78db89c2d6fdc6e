"""JSON API under /api/v1, authenticated with ``Authorization: Bearer <token>``."""

from flask import Blueprint

bp = Blueprint("api", __name__, url_prefix="/api/v1")
