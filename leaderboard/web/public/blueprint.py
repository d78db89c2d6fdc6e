"""The public blueprint, which the route modules import (the package imports them, so they
cannot import it back)."""

from flask import Blueprint

bp = Blueprint("public", __name__)
