"""Budgets for analysis computed on demand: head-to-head comparisons and significance grids.

An answer already in the process's cache (per snapshot, per pair of results) costs nothing
and is never refused. One that must be computed holds a web process's only loop while it
runs (gevent runs every connection of a process on one thread), so a few anonymous clients
asking for new pairs would slow every page of the site. Each such computation is counted,
before it starts:

- per client: the address (``ANALYSIS_RATE_LIMIT``, 20 a minute), or the account of a
  logged-in member;
- for anonymous readers together (``ANALYSIS_GLOBAL_RATE_LIMIT``, 120 a minute), so that many
  addresses cannot take the processes either: past it, anonymous readers get the cached
  answers only, while members keep their own budget.

Hosts are not counted. The counters live in the rate limiter's storage (Redis), shared by all
processes; while it does not answer, nothing is refused (as ``RATELIMIT_SWALLOW_ERRORS``).
"""

from __future__ import annotations

import logging
import math
import time

from flask import current_app, g
from flask_limiter.util import get_remote_address
from flask_login import current_user
from limits import parse
from werkzeug.exceptions import TooManyRequests

from leaderboard.web.extensions import limiter

log = logging.getLogger(__name__)

ADDRESS_LIMITED = ("Too many new comparisons from your address: at most {limit} are "
                   "computed for each visitor who is not logged in. Pages that anyone has "
                   "opened since the ranking last changed are still served at once. Try again "
                   "in {wait} s, or log in.")
ACCOUNT_LIMITED = ("Too many new comparisons from your account: at most {limit} are computed "
                   "for each account. Pages already computed are still served at once. Try "
                   "again in {wait} s.")
SITE_LIMITED = ("The site is computing as many new comparisons for visitors who are not "
                "logged in as it can: {limit}. Pages already computed are still served at "
                "once. Try again in {wait} s, or log in.")


class AnalysisLimited(TooManyRequests):
    """A comparison to compute past a budget: 429 with the reason and Retry-After."""

    retry_after: int


def charge_uncached() -> None:
    """Count one computation of an analysis answer against the caller's budgets; raise
    :class:`AnalysisLimited` (before anything is computed) when one is spent.

    Call it only on a cache miss: what is cached is served to everybody, whatever their
    budgets."""
    config = current_app.config
    if not config.get("RATELIMIT_ENABLED", True) or getattr(current_user, "is_admin", False):
        return
    settings, prefix = config["LEADERBOARD"], config.get("RATELIMIT_KEY_PREFIX", "")
    if getattr(current_user, "is_authenticated", False):
        budgets = [(settings["ANALYSIS_RATE_LIMIT"], f"user:{current_user.id}", ACCOUNT_LIMITED)]
    else:
        budgets = [(settings["ANALYSIS_RATE_LIMIT"], f"ip:{get_remote_address()}",
                    ADDRESS_LIMITED),
                   (settings["ANALYSIS_GLOBAL_RATE_LIMIT"], "anonymous", SITE_LIMITED)]
    items = [(parse(text), ("analysis", prefix, key), message) for text, key, message in budgets]
    try:
        strategy = limiter.limiter
        for item, ids, message in items:
            if not strategy.test(item, *ids):
                wait = max(1, math.ceil(strategy.get_window_stats(item, *ids).reset_time
                                        - time.time()))
                g.analysis_retry_after = wait  # kept over the API limit's (errors.py)
                raise AnalysisLimited(description=message.format(limit=item, wait=wait),
                                      retry_after=wait)
        for item, ids, _message in items:
            strategy.hit(item, *ids)
    except AnalysisLimited:
        raise
    except Exception:  # the limiter's storage is down: serve rather than refuse everybody
        log.warning("analysis budgets not applied: rate limit storage unreachable",
                    exc_info=True)
