"""The account blueprint, which the route modules import (the package imports them, so they
cannot import it back)."""

from flask import Blueprint

bp = Blueprint("account", __name__, url_prefix="/account")
