"""BibTeX entries written from their fields: each benchmark's citation (its family's), the
site's own and a result's, in one layout."""

from __future__ import annotations

import re

#: What BibTeX or LaTeX would read as markup in a value given as plain text.
_SPECIAL = re.compile(r"([\\{}%&#$_~^])")


def entry(kind: str, key: str, **fields: str) -> str:
    """``@kind{key,`` and one ``name = {value}`` line per field, in the order given; a
    ``month`` is BibTeX's macro (``jun``), written bare as the ACL Anthology writes it.
    Values are written as given (LaTeX markup kept): plain text goes through :func:`plain`."""
    lines = [f"  {name} = {value if name == 'month' else '{' + value + '}'}"
             for name, value in fields.items() if value]
    return f"@{kind}{{{key},\n" + ",\n".join(lines) + "\n}"


def plain(text: str) -> str:
    """``text`` (a system or team name) as a BibTeX value that prints it as typed: every
    character TeX treats as markup escaped, so no name can unbalance the entry."""
    def escaped(match: re.Match[str]) -> str:
        char = match.group(1)
        return {"\\": r"\textbackslash{}", "~": r"\textasciitilde{}",
                "^": r"\textasciicircum{}"}.get(char, "\\" + char)

    return _SPECIAL.sub(escaped, " ".join(text.split()))
