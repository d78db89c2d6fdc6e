"""Serving what a ranker prepared with a snapshot (:mod:`leaderboard.services.ranking.
prepared_pages`): a page's blocks rendered once, wrapped per request in the layout.

A template that extends ``base.html`` is rendered in two halves: its own blocks (the
ranking: the same for every reader of a snapshot) and the layout around them (login header,
CSRF token, flashed messages, board bar: per request). :func:`capture_blocks` renders the
page whole and keeps what its blocks produced; :func:`render_with_blocks` renders the page
with those blocks given as text, so only the layout is computed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from flask import current_app, g, request
from flask.signals import before_render_template, template_rendered
from jinja2 import Template
from jinja2.runtime import Context

from leaderboard.db import get_session
from leaderboard.services.ranking import prepared_pages
from leaderboard.services.ranking.snapshot_reader import SnapshotRef, cached_value


def _context(name: str, context: dict[str, Any]) -> tuple[Template, Context]:
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    template = app.jinja_env.get_or_select_template(name)
    app.update_template_context(context)
    return template, template.new_context(context)


def _render(template: Template, ctx: Context, context: dict[str, Any]) -> str:
    """As ``flask.render_template`` does, with its signals."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    before_render_template.send(app, _async_wrapper=app.ensure_sync, template=template,
                                context=context)
    html = "".join(template.root_render_func(ctx))
    template_rendered.send(app, _async_wrapper=app.ensure_sync, template=template,
                           context=context)
    return html


def capture_blocks(name: str, **context: Any) -> tuple[str, dict[str, str]]:
    """Render template ``name`` whole; returns the page and what each of its own blocks
    produced in it."""
    template, ctx = _context(name, context)
    captured: dict[str, str] = {}

    def keeper(block: str, render: Callable[[Context], Iterator[str]]):
        def run(block_ctx: Context) -> Iterator[str]:
            captured[block] = "".join(render(block_ctx))
            yield captured[block]
        return run

    for block, renders in ctx.blocks.items():
        renders[0] = keeper(block, renders[0])
    return _render(template, ctx, context), captured


def render_with_blocks(name: str, blocks: dict[str, str], **context: Any) -> str:
    """Render template ``name`` with its blocks' output given (from :func:`capture_blocks`):
    only the layout around them is computed."""
    template, ctx = _context(name, context)
    for block, html in blocks.items():
        if block in ctx.blocks:
            ctx.blocks[block] = [lambda _ctx, html=html: iter((html,))]
    return _render(template, ctx, context)


def page_variant(core: tuple) -> str:
    """The stored name of a ranking page's blocks for the parsed query ``core``; they also
    depend on where links point (the app's root, the shown board when not the default)."""
    board = g.get("board")
    board_arg = board.slug if board is not None and not board.is_default else ""
    return prepared_pages.variant_key(prepared_pages.PAGE, list(core), request.script_root,
                                      board_arg)


def api_variant(core: tuple, page: int, per_page: int) -> str:
    """The stored name of the ranking API's answer for the parsed query and page."""
    return prepared_pages.variant_key(prepared_pages.API, list(core), page, per_page)


def stored(ref: SnapshotRef, kind: str, variant: str,
           parse: Callable[[bytes], Any] = bytes) -> Any:
    """The bytes prepared with the snapshot (``parse``d), read once per process; None when
    there are none or when systems were withdrawn since the snapshot (the read filter: then
    the caller computes the page from the filtered snapshot)."""
    if ref.id == 0 or getattr(ref, "hidden", None):
        return None

    def read() -> tuple[Any]:
        body = prepared_pages.load(get_session(), ref.id, kind, variant)
        return (None if body is None else parse(body),)

    return cached_value(ref, "prepared:" + kind, (variant,), read)[0]


def prepared_page(ref: SnapshotRef, core: tuple, template: str,
                  context: Callable[[], dict[str, Any]]) -> str | None:
    """The ranking page from the snapshot's prepared blocks, or None."""
    blocks = stored(ref, prepared_pages.PAGE, page_variant(core), json.loads)
    if blocks is None:
        return None
    return render_with_blocks(template, blocks, table=None, **context())
