"""Request bodies: refused from their headers past the limit, read in turns with the other
connections of the process, and never read only to be thrown away.

Under gevent a greenlet that reads a socket whose bytes keep arriving never waits, so it
never lets the loop serve anyone else: a client sending a large body would hold every other
request of its web process until it ends, whether the app read the body (an upload) or
gunicorn drained what the app left unread (a 413, or a page that takes no body) to reuse the
connection.
So a body is read with a pause every :data:`YIELD_EVERY` bytes, and a connection whose
request left more than :data:`DRAIN_MAX` bytes unread is closed after its answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from flask import abort, current_app, request

#: Bytes read between two pauses that let the process serve its other connections.
YIELD_EVERY = 256 * 1024
#: The pause: under gevent (the web worker class) ``time.sleep`` is gevent's, and a pause
#: above zero lets the loop run once (zero may hand back before any socket is looked at).
PAUSE_SECONDS = 0.0005
#: Unread request bytes past which the connection is closed rather than read to its end.
DRAIN_MAX = 64 * 1024


def refuse_oversized_body() -> None:
    """before_request: 413 from the headers alone when Content-Length is over the limit,
    whatever the URL (the body is not read; :class:`BodyGuard` closes the connection)."""
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    if limit is not None and (request.content_length or 0) > limit:
        abort(413)


class CooperativeInput:
    """``wsgi.input`` read with a pause every :data:`YIELD_EVERY` bytes; counts what was read
    and whether its end was reached."""

    def __init__(self, stream: Any):
        self._stream = stream
        self.consumed = 0
        self.at_end = False
        self._since_pause = 0

    def _count(self, data: bytes, asked: int | None) -> bytes:
        if not data and asked != 0:
            self.at_end = True
        self.consumed += len(data)
        self._since_pause += len(data)
        if self._since_pause >= YIELD_EVERY:
            self._since_pause = 0
            time.sleep(PAUSE_SECONDS)
        return data

    def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` bytes (all when negative or None), in steps of at most
        :data:`YIELD_EVERY` so that reading a whole body at once pauses too."""
        wanted = None if size is None or size < 0 else size
        if wanted is not None and wanted <= YIELD_EVERY:
            return self._count(self._stream.read(wanted), wanted)
        pieces = []
        while wanted is None or wanted > 0:
            step = YIELD_EVERY if wanted is None else min(wanted, YIELD_EVERY)
            data = self._count(self._stream.read(step), step)
            if not data:
                break
            pieces.append(data)
            if wanted is not None:
                wanted -= len(data)
        return b"".join(pieces)

    def readline(self, size: int | None = -1) -> bytes:
        """One line, or up to ``size`` bytes of it."""
        return self._count(self._stream.readline(size), None)

    def readlines(self, hint: int | None = -1) -> list[bytes]:
        """Every remaining line."""
        lines = self._stream.readlines(hint)
        for line in lines:
            self._count(line, None)
        self.at_end = True
        return lines

    def __iter__(self) -> Iterator[bytes]:
        while line := self.readline():
            yield line


def _content_length(environ: dict[str, Any]) -> int | None:
    try:
        length = int(environ.get("CONTENT_LENGTH") or "")
    except ValueError:
        return None
    return length if length >= 0 else None


def left_unread(environ: dict[str, Any], body: CooperativeInput) -> bool:
    """Whether the request's body has more than :data:`DRAIN_MAX` bytes nobody read (a
    streamed body not read to its end counts as such)."""
    length = _content_length(environ)
    if length is not None:
        return length - body.consumed > DRAIN_MAX
    chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
    return chunked and not body.at_end


def close_after_response(start_response: Callable) -> None:
    """Ask the server to close the connection once this response is sent, instead of reading
    the rest of the request to reuse it. gunicorn's ``start_response`` is a method of its
    response, and ``force_close()`` is how gunicorn itself ends a connection; a server
    without it keeps its own behaviour."""
    force_close = getattr(getattr(start_response, "__self__", None), "force_close", None)
    if callable(force_close):
        force_close()


class BodyGuard:
    """WSGI middleware: the body is read cooperatively (:class:`CooperativeInput`) and a
    connection whose body was left unread is closed after the answer, never drained."""

    def __init__(self, app: Callable):
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        body = CooperativeInput(environ["wsgi.input"])
        environ["wsgi.input"] = body

        def guarded_start_response(status: str, headers: list, exc_info: Any = None):
            if left_unread(environ, body):
                close_after_response(start_response)
            return start_response(status, headers, exc_info)

        return self.app(environ, guarded_start_response)
