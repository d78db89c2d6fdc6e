"""A gate on a database statement, to line parallel requests or jobs up at a race's window.

Left to chance, parallel requests or jobs reach a read-decide-write within milliseconds of
each other often but not always, so a missing lock would fail a race test only sometimes. A
gate holds each thread's first statement containing ``marker`` until ``n`` threads are there
or ``seconds`` have passed, whichever comes first, and is open from then on. Unserialised,
all ``n`` threads then run the statement at once; serialised by a lock taken before it, only
one can be there at a time, and the gate opens after ``seconds``. Nothing of the code under
test is replaced: the gate only delays a statement.
"""

from __future__ import annotations

import threading

from sqlalchemy import event
from sqlalchemy.engine import Engine


class StatementGate:
    """Holds the first statement containing ``marker`` of each of ``n`` threads."""

    def __init__(self, marker: str, n: int, seconds: float):
        self.marker, self.n, self.seconds = marker, n, seconds
        self.arrived: set[int] = set()
        self.opened = threading.Event()
        self._lock = threading.Lock()

    def watch(self, engine: Engine) -> None:
        """Apply the gate to the statements ``engine`` runs."""
        event.listen(engine, "before_cursor_execute", self._before)

    def _before(self, _conn, _cursor, statement: str, *_args) -> None:
        if self.opened.is_set() or self.marker not in statement:
            return
        with self._lock:
            self.arrived.add(threading.get_ident())
            if len(self.arrived) >= self.n:
                self.opened.set()
        self.opened.wait(self.seconds)
        self.opened.set()
