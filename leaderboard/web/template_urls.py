"""``url_for`` for templates, each link built once per process.

A ranking page builds dozens of links (sort headers, view and POS switches, pager, exports),
and werkzeug's URL map would build each again on every page nobody prepared. A link is a
function of its endpoint and values, the app's root and the shown board (the one URL
default, ``keep_board_in_links``), none of which a new snapshot changes.
"""

from __future__ import annotations

from typing import Any

from flask import g, request, url_for

_URLS: dict[tuple, str] = {}
_URLS_MAX = 4096


def template_url_for(endpoint: str, **values: Any) -> str:
    """:func:`flask.url_for`, kept by its inputs; links relative to the blueprint or with
    ``_external``-like options (``_`` keys) are built each time."""
    if endpoint.startswith(".") or any(key.startswith("_") for key in values):
        return url_for(endpoint, **values)
    board = g.get("board")
    try:
        key = (endpoint, request.script_root,
               None if board is None or board.is_default else board.slug,
               tuple(values.items()))
        hash(key)
    except TypeError:  # a value that is not hashable
        return url_for(endpoint, **values)
    url = _URLS.get(key)
    if url is None:
        url = url_for(endpoint, **values)
        if len(_URLS) >= _URLS_MAX:
            _URLS.clear()
        _URLS[key] = url
    return url
