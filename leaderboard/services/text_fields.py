"""One rule for every user-supplied text field, wherever it comes in (web form, API, CLI).

PostgreSQL refuses NUL in text (a 500 from ``psycopg.DataError`` before this check), control
characters have no place in a name or a link, and invisible formatting characters let one
name pass for another (a right-to-left override turns ``Lab`` + U+202E + ``kcaH`` into
"LabHack" on screen). Multi-line fields (descriptions) may hold tab and newlines.
"""

from __future__ import annotations

import unicodedata
from urllib.parse import urlsplit

# Bidirectional embeddings/overrides/isolates and marks, zero-width characters, the BOM.
INVISIBLE_IN_NAMES = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)] + [chr(c) for c in range(0x2066, 0x206A)]
    + ["\u200e", "\u200f", "\u061c", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])
_MULTILINE_OK = frozenset("\t\n\r")  # \r: browsers send a textarea's newlines as CRLF


class TextRefused(ValueError):
    """A field holds a character it may not: ``field`` names it, ``message`` says which."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


def text_problem(field: str, value: str, *, multiline: bool = False,
                 name: bool = False) -> str | None:
    """Why ``value`` is refused for ``field`` (a message naming the field), or None.

    Refused everywhere: control characters (Unicode category Cc, NUL included; tab and
    newlines allowed when ``multiline``) and lone surrogates. Refused in names as well:
    bidirectional controls and zero-width characters (:data:`INVISIBLE_IN_NAMES`).
    """
    for position, char in enumerate(value):
        category = unicodedata.category(char)
        if category == "Cc" and not (multiline and char in _MULTILINE_OK):
            kind = "a control character"
        elif category == "Cs":
            kind = "an unpaired surrogate"
        elif name and char in INVISIBLE_IN_NAMES:
            kind = "an invisible formatting character"
        else:
            continue
        return (f"the {field} contains {kind} (U+{ord(char):04X}) at position {position + 1}; "
                "remove it and try again")
    return None


def check_text(field: str, value: str, *, multiline: bool = False, name: bool = False) -> None:
    """Raise :class:`TextRefused` when :func:`text_problem` finds something."""
    problem = text_problem(field, value, multiline=multiline, name=name)
    if problem:
        raise TextRefused(field, problem)


def valid_url(url: str | None) -> bool:
    """An http(s) address with a host and no blanks: the only kind stored as a link, and
    the only kind a page renders as one (older rows may hold others: shown as text)."""
    if not url or any(c.isspace() for c in url):
        return False
    try:
        parts = urlsplit(url)
        return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
    except ValueError:  # a bracketed host that is no IPv6 address
        return False
