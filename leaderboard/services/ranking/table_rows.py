"""A ranking table's cells: a metric's value, its 95% interval and its tie with the next
better system, rounded once from the snapshot's full value.

A system row (:class:`TableRow`) makes its cell dicts only when its ``cells`` are read;
the ranking page, the API and the exports read its values straight from the columns
(:meth:`TableRow.raw_cells`): at 1,000 systems a page of the all-metrics view has 2,300
cells and an export of 1,000 rows 20,000, and making each a dict of seven keys first cost
those requests as much CPU as the rest of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from leaderboard.scoring.printing import printed, shown
from leaderboard.scoring.significance import significant

#: What a table prints with: the benchmark family (its script's rule) and the decimals.
Style = tuple[str, int]


def make_cell(key: str, value: Any, interval: Any, p: float | None = None,
              style: Style = ("", 1)) -> dict[str, Any]:
    """A value (2 decimals: API and exports) and its printed text (``style``'s decimals),
    each made once from the snapshot's value by the family's rule (rounding 50.2527 to
    50.25 and then to 50.2 disagreed with the system page's 50.3)."""
    family = style[0]
    bounds = [printed(x, family) for x in interval] if interval else None
    return {"key": key, "value": printed(value, family),
            "interval": bounds, "shown": None if value is None else shown(value, *style),
            "shown_interval": [shown(x, *style) for x in interval] if interval else None,
            "p": p, "tied": p is not None and not significant(p)}


def cell_json(value: Any, interval: Any, p: float | None, family: str) -> dict[str, Any]:
    """A cell as the API gives it: what :func:`make_cell` makes of it, without the printed
    text."""
    return {"value": printed(value, family),
            "interval": [printed(x, family) for x in interval] if interval else None,
            "tie_p": p, "tied": p is not None and not significant(p)}


class RowCells:
    """What the cells of a table's rows are made from: each column of the view (its key,
    every system's values and intervals, the shown entries' tie p-values), and how they
    print (:data:`Style`). Shared by the rows of one table."""

    __slots__ = ("columns", "style", "memo")

    def __init__(self, columns: list[tuple[str, Sequence[Any], Sequence[Any], Sequence[Any]]],
                 style: Style) -> None:
        self.columns, self.style = columns, style
        #: What a writer of the rows works out once per table (render.py's plan of columns).
        self.memo: dict[Any, Any] = {}


class TableRow(dict):
    """A system's row: a dict of its identity, ranks and marks whose ``cells`` key is made
    from ``source`` when first read (``g``: the system's index in the snapshot, ``i``: its
    index among the shown entries, which the tie lists follow)."""

    __slots__ = ("source", "g", "i")

    def __init__(self, fields: dict[str, Any], source: RowCells, g: int, i: int) -> None:
        super().__init__(fields)
        self.source, self.g, self.i = source, g, i

    def __missing__(self, key: str) -> list[dict[str, Any]]:
        if key != "cells":
            raise KeyError(key)
        cells = [make_cell(name, value, interval, p, self.source.style)
                 for name, value, interval, p in self.raw_cells()]
        self["cells"] = cells
        return cells

    def raw_cells(self) -> Iterator[tuple[str, Any, Any, float | None]]:
        """(key, full value, interval or None, tie p or None) of each column, in order."""
        g, i = self.g, self.i
        for key, values, intervals, ties in self.source.columns:
            yield key, values[g], intervals[g], ties[i] if i < len(ties) else None


def row_values(row: dict[str, Any]) -> Iterator[tuple[str, Any, Any, float | None]]:
    """(key, value, interval or None, tie p or None) of each metric of any row: a system
    row's straight from the columns (no cell dicts made), another's from its cells (made by
    :func:`make_cell`, so rounded already: rounding them again changes nothing)."""
    if isinstance(row, TableRow) and "cells" not in row:
        yield from row.raw_cells()
    else:
        for cell in row["cells"]:
            yield cell["key"], cell["value"], cell["interval"], cell.get("p")
