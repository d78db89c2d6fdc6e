"""Flask extensions, created unbound here and bound in ``create_app``."""

from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import LoginManager
from flask_wtf import CSRFProtect

login_manager = LoginManager()
login_manager.login_view = "account.login"
login_manager.session_protection = "strong"
csrf = CSRFProtect()
limiter = Limiter(key_func=get_remote_address, default_limits=[])
