"""The per-team budget of dry runs, shared by the upload form and ``POST /api/v1/validate``.

A check costs a worker's CPU and memory, and checks share the workers with scoring: one
budget per team (``DRY_RUN_RATE_LIMIT``), whichever way its checks come and from however
many tokens, accounts or addresses. Counted in the limiter's storage (the app's Redis), with
its key prefix: the limiter is shared by every app in the process.
"""

from __future__ import annotations

import logging
import math
import time

from flask import current_app
from limits import parse

from leaderboard.web.extensions import limiter

log = logging.getLogger(__name__)


def team_dry_run_wait(team_id: int) -> int | None:
    """Count one dry run of ``team_id``; None when it is within the team's budget, else the
    seconds until the budget lets one through again. With the limiter's storage unreachable
    nothing is refused (as for the other limits)."""
    item = parse(current_app.config["LEADERBOARD"]["DRY_RUN_RATE_LIMIT"])
    keys = ("dry-run-team", current_app.config.get("RATELIMIT_KEY_PREFIX", ""), str(team_id))
    try:
        if not limiter.enabled or limiter.limiter.hit(item, *keys):
            return None
        reset_at, _remaining = limiter.limiter.get_window_stats(item, *keys)
    except Exception:  # RATELIMIT_SWALLOW_ERRORS: an outage must not refuse checks
        log.warning("the team's dry-run limit was not checked", exc_info=True)
        return None
    return max(1, math.ceil(reset_at - time.time()))
