"""The one error of the intake services, shared by uploads and systems."""

from __future__ import annotations

from datetime import datetime


class SubmissionError(Exception):
    """A refused upload or request: an HTTP ``status``, a machine ``code`` and a message."""

    def __init__(self, status: int, code: str, message: str, *,
                 resets_at: datetime | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.resets_at = resets_at
