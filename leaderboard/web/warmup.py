"""What a web process makes before it serves, so that no reader pays for it.

A process's first page of each kind would otherwise cost several times its usual CPU:
compiling its template, gzipping plotly.js (large, and every other reader of the process
waits while it is compressed), and SQLAlchemy compiling each statement the page runs.
``wsgi.py`` calls :func:`warm_web_process` once per process, before gunicorn hands it a
connection.
"""

from __future__ import annotations

import logging
import re

from flask import Flask

from leaderboard.web.public import vendor

#: The User-Agent of the warm-up's own requests (they come from the process itself).
USER_AGENT = "leaderboard-warmup"
_FIRST_LINKS = re.compile(rb'href="[^"]*/(systems|teams)/(\d+)"')
log = logging.getLogger(__name__)


def compile_templates(app: Flask) -> int:
    """Compile every page template now: the first request of each page would otherwise
    spend several times its usual CPU compiling its template. Returns how many."""
    names = [n for n in app.jinja_env.list_templates() if n.endswith(".html")]
    for name in names:
        app.jinja_env.get_template(name)
    return len(names)


def warm_web_process(app: Flask) -> list[tuple[str, int]]:
    """Compile the page templates, make plotly.js's one-off values, then
    :func:`warm_requests`. Returns the warm-up's (path, status) pairs."""
    compile_templates(app)
    vendor.warm()
    return warm_requests(app)


def warm_requests(app: Flask) -> list[tuple[str, int]]:
    """GET, through the app itself, the pages readers meet first: the ranking (which parses
    the board's snapshot into the process), then the first system and team it links to
    (the first request of each runs statements SQLAlchemy has not compiled yet in this
    process). Stops at the first error or failure (a database not migrated yet, or down:
    the process serves anyway, as it would have)."""
    client = app.test_client()
    done: list[tuple[str, int]] = []
    paths = ["/"]
    while paths:
        path = paths.pop(0)
        try:
            response = client.get(path, headers={"User-Agent": USER_AGENT})
        except Exception as exc:  # noqa: BLE001 - a warm-up never stops a process starting
            log.warning("warm-up GET %s failed: %s", path, exc)
            break
        done.append((path, response.status_code))
        if response.status_code != 200:
            break
        if path == "/":
            first: dict[bytes, bytes] = {}
            for kind, number in _FIRST_LINKS.findall(response.get_data()):
                first.setdefault(kind, number)
            paths += [f"/{kind.decode()}/{first[kind].decode()}" for kind in (b"systems", b"teams")
                      if kind in first]
    return done
