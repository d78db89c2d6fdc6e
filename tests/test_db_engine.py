"""A PostgreSQL server that never answers fails a connection in 10 s, with a clear error,
instead of libpq's wait for ever (a web process's warm-up, a job, a command)."""

from __future__ import annotations

import socket

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from leaderboard.db import make_engine


def test_a_postgresql_server_that_never_answers_times_out():
    with socket.socket() as silent:   # accepts the TCP connection, then says nothing
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        port = silent.getsockname()[1]
        engine = make_engine(f"postgresql://nobody@127.0.0.1:{port}/nothing")
        with pytest.raises(OperationalError, match="timeout expired"), engine.connect() as c:
            c.execute(text("select 1"))
        engine.dispose()
