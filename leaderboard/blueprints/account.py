"""Team accounts: sign-up, login, logout, password, API tokens."""

from flask import Blueprint

bp = Blueprint("account", __name__, url_prefix="/account")
