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
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import msgspec
from flask import current_app, g, request
from flask.signals import before_render_template, template_rendered
from jinja2 import Template
from jinja2.runtime import Context

from leaderboard.db import get_session
from leaderboard.services.ranking import exports, prepared_pages
from leaderboard.services.ranking.ranking_table import parse_query, ranking_order
from leaderboard.services.ranking.snapshot_reader import SnapshotRef, cached_value, table_source
from leaderboard.services.ranking.table_source import MissingPart, TableSource, WholeSource


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


def parse_json(body: bytes) -> Any:
    """Prepared JSON, parsed by msgspec (a significance window's part, 480 KB at 1,000
    systems: 15 ms through ``json.loads``, a third of that here); by ``json.loads`` where
    msgspec refuses it (``NaN``, which Python's writer allows)."""
    try:
        return msgspec.json.decode(body)
    except msgspec.DecodeError:
        return json.loads(body)


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


def export_variant(kind: str, core: tuple) -> str:
    """The stored name of a ranking export (``csv``, ``json``) of the parsed query."""
    return prepared_pages.variant_key(prepared_pages.EXPORT, kind, list(core))


def prepared_export(ref: SnapshotRef, kind: str, core: tuple, views: str | None) -> bytes | None:
    """The export (``csv``, ``json``) of the parsed query ``core`` as the ranker prepared it;
    else, for a query that only sorts otherwise (no filter) a file the ranker prepared for
    the same view, POS and entries, its system rows reordered (:func:`exports.reordered`):
    the rows are the same, only their order differs, and ordering 1,000 systems costs a
    tenth of writing them. None when neither was prepared."""
    found = stored(ref, prepared_pages.EXPORT, export_variant(kind, core))
    view, pos, sort, direction, entries, query = core
    if found is not None or query:
        return found
    base = (view, pos, *parse_query(view, pos, None, None, views)[2:], entries, "")
    body = stored(ref, prepared_pages.EXPORT, export_variant(kind, base))
    layout = stored(ref, prepared_pages.EXPORT, export_variant(f"{kind} layout", base),
                    parse_json)
    if body is None or layout is None:
        return None
    source = table_source(get_session(), ref, snapshot_top(ref))
    if source is None:
        return None
    try:
        order = ranking_order(source, view=view, pos=pos, sort=sort, direction=direction,
                              entries=entries)
    except MissingPart:
        return None
    return exports.reordered(body, layout, kind, order)


def system_variant(result_id: int, chart_keys: list[str]) -> str:
    """The stored name of a system page's chart: the result it shows and its metrics."""
    return prepared_pages.chart_key(result_id, list(chart_keys))


def stored(ref: SnapshotRef, kind: str, variant: str,
           parse: Callable[[bytes], Any] = bytes, filtered: bool = False) -> Any:
    """The bytes prepared with the snapshot (``parse``d), read once per process; None when
    there are none or when systems were withdrawn since the snapshot (the read filter: then
    the caller computes the page from the filtered snapshot), unless the caller applies the
    read filter to them itself (``filtered``)."""
    if ref.id == 0 or (getattr(ref, "hidden", None) and not filtered):
        return None

    def read() -> Any:
        body = prepared_pages.load(get_session(), ref.id, kind, variant)
        return None if body is None else parse(body)

    # A miss is not kept: the caller keeps what it computes instead.
    return cached_value(ref, "prepared:" + kind, (variant,), read, keep_none=False)


def prepared_page(ref: SnapshotRef, core: tuple, template: str,
                  context: Callable[[], dict[str, Any]]) -> str | None:
    """The ranking page from the snapshot's prepared blocks, or None."""
    blocks = stored(ref, prepared_pages.PAGE, page_variant(core), parse_json)
    if blocks is None:
        return None
    return render_with_blocks(template, blocks, table=None, **context())


def value_variant(kind: str, variant: tuple) -> str:
    """The stored name of a value a page derives from the snapshot (``per_snapshot``'s
    ``kind`` and ``variant``: a chart's JSON, a significance grid, a matrix)."""
    return prepared_pages.variant_key(prepared_pages.VALUE, kind, list(variant))


def prepared_value(ref: SnapshotRef, kind: str, variant: tuple) -> Any:
    """The value ``kind``/``variant`` prepared with the snapshot (parsed JSON: tuples come
    back as lists), or None (not prepared, or systems withdrawn since)."""
    return stored(ref, prepared_pages.VALUE, value_variant(kind, variant), parse_json)


#: Keys of a snapshot that hold its systems (and their statistics); the rest is small.
BIG_KEYS = frozenset({"systems", "stats", "best", "pairwise", "neighbours"})


def snapshot_meta(data: dict[str, Any]) -> dict[str, Any]:
    """What the ranker stores as the snapshot's ``meta`` value: its small keys, and the
    systems' ids with their compare-selector labels (a page that shows only these never
    reads the whole snapshot)."""
    return {"top": {k: v for k, v in data.items() if k not in BIG_KEYS},
            "choices": [[s["id"], f"{s['system']} ({s['team']})"]
                        for s in data.get("systems", [])]}


def stored_meta(ref: SnapshotRef) -> dict[str, Any] | None:
    """The snapshot's ``meta`` value as the ranker prepared it (:func:`snapshot_meta`), or
    None. It holds nothing the read filter removes but the withdrawn systems' ids in
    ``choices`` (their readers drop them), so it is served whatever was withdrawn since."""
    return None if ref.id == 0 else stored(ref, prepared_pages.VALUE,
                                           value_variant("meta", ()), parse_json,
                                           filtered=True)


def snapshot_top(ref: SnapshotRef) -> dict[str, Any] | None:
    """The snapshot's small keys as the ranker prepared them, or None."""
    meta = stored_meta(ref)
    return None if meta is None else meta["top"]


class SnapshotParts(Mapping):
    """The shown board's snapshot as a page reads it: its small keys (benchmark, board,
    references…) from the prepared ``meta`` value, the whole snapshot (parsed, read filter
    applied) only when a page reads its systems or statistics."""

    def __init__(self, ref: SnapshotRef, whole: Callable[[], dict[str, Any]]) -> None:
        self.ref = ref
        self._whole_loader = whole
        self._whole: dict[str, Any] | None = None
        self.meta: dict[str, Any] | None = stored_meta(ref)

    def whole(self) -> dict[str, Any]:
        """The snapshot itself (parsed once per process and snapshot)."""
        if self._whole is None:
            self._whole = self._whole_loader()
        return self._whole

    def __getitem__(self, key: str) -> Any:
        if self._whole is None and self.meta is not None and key not in BIG_KEYS:
            return self.meta["top"][key]
        return self.whole()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.whole())

    def __len__(self) -> int:
        return len(self.whole())

    def table_source(self) -> tuple[TableSource, frozenset[int]]:
        """What a ranking table or matrix reads of the snapshot, and the systems it must
        leave out: the parts the ranker prepared (the read filter is the reader's to apply),
        else the whole snapshot (filtered already)."""
        source = (None if self.meta is None or self._whole is not None else
                  table_source(get_session(), self.ref, self.meta["top"]))
        if source is None:
            return WholeSource(self.whole()), frozenset()
        return source, self.ref.hidden

    def prepared(self, kind: str, variant: tuple) -> Any:
        """A value the ranker prepared with the snapshot (:func:`prepared_value`), read once
        per process and snapshot; None when there is none."""
        return prepared_value(self.ref, kind, variant)

    def choices(self) -> list[dict[str, Any]]:
        """Public systems of the board for a "compare with" selector: id and label."""
        if self._whole is None and self.meta is not None:
            hidden = self.ref.hidden
            return [{"id": i, "label": label} for i, label in self.meta["choices"]
                    if i not in hidden]
        return [{"id": s["id"], "label": f"{s['system']} ({s['team']})"}
                for s in self.whole().get("systems", [])]

    def system_count(self) -> int:
        """How many public systems the snapshot lists."""
        if self._whole is None and self.meta is not None:
            return len(self.choices())
        return len(self.whole().get("systems", []))
