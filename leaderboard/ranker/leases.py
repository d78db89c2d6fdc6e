"""Leases: Redis locks with a short time to live, renewed while their work runs.

A holder that dies stops renewing, and its lease is free again within ``ttl`` seconds:
nothing waits on a lock whose holder is gone. A holder that loses its lease (Redis emptied,
a pause longer than ``ttl``) sees ``lost`` and must not commit what the lease guarded.
"""

from __future__ import annotations

import logging
import secrets
import threading

from redis import Redis

log = logging.getLogger(__name__)

#: Renew the expiry only while the key still holds our token; 1 when renewed.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class Lease:
    """``with lease:`` after a successful :meth:`acquire` renews it every ``ttl / 3`` seconds
    in a thread, and releases it on exit."""

    def __init__(self, connection: Redis, key: str, *, ttl: float = 15.0, holder: str = ""):
        self.connection = connection
        self.key = key
        self.ttl_ms = int(ttl * 1000)
        self.token = f"{holder}:{secrets.token_hex(8)}"
        self.lost = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def acquire(self) -> bool:
        """Take the lease if it is free; True when taken."""
        return bool(self.connection.set(self.key, self.token, nx=True, px=self.ttl_ms))

    def renew(self) -> bool:
        """Push the expiry back by ``ttl``; False (and ``lost``) when it is no longer ours."""
        try:
            renewed = bool(self.connection.eval(_RENEW, 1, self.key, self.token, self.ttl_ms))
        except Exception:  # Redis away for a moment: try again at the next beat
            log.warning("could not renew lease %s", self.key, exc_info=True)
            return True
        if not renewed:
            self.lost = True
        return renewed

    def _renew_loop(self) -> None:
        while not self._stop.wait(self.ttl_ms / 3000):
            if not self.renew():
                log.warning("lease %s was lost while its work ran", self.key)
                return

    def __enter__(self) -> Lease:
        self._thread = threading.Thread(target=self._renew_loop, daemon=True, name="lease")
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        try:
            self.connection.eval(_RELEASE, 1, self.key, self.token)
        except Exception:  # expired or Redis away: it frees itself within ttl
            log.warning("could not release lease %s", self.key, exc_info=True)
