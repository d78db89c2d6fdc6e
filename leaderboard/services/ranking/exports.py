"""CSV and JSON exports of the ranking as shown on screen: what pandas wrote of a frame of
its rows, written from the rows themselves (building a frame and running pandas' writers
would cost a web process far more CPU than the rows' text, for each query nobody prepared);
pandas still rounds the JSON's p-values."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from typing import Any

import pandas as pd

from leaderboard.scoring.printing import printed, shown
from leaderboard.services.ranking.anonymity import shown_id
from leaderboard.services.ranking.ranking_table import RankingTable, shown_style
from leaderboard.services.ranking.table_rows import TableRow, row_values

#: Export column -> key of a row's ``coverage`` (blank for reference and reported rows).
COVERAGE_COLUMNS = {"targets_in_split": "targets", "targets_answered": "answered",
                    "targets_empty": "empty", "targets_missing": "missing"}

#: Export column -> key of a row's ``signature``: every number traceable to the scorer
#: version, the split (sha256 of its canonical JSON), the bootstrap seed and B that made it.
SIGNATURE_COLUMNS = {"scorer_version": "scorer_version", "split_checksum": "split_checksum",
                     "bootstrap_seed": "seed", "bootstrap_samples": "bootstrap"}


#: Rows per chunk of an export: the rows one pandas frame holds at a time.
CHUNK_ROWS = 500


def export_rows(table: RankingTable) -> list[tuple[dict, str]]:
    """(row, row type): the systems, then the reference rows, then the reported ones."""
    return ([(r, "system") for r in table.rows] + [(r, r["kind"]) for r in table.references]
            + [(r, "reported") for r in table.reported])


#: The export's columns before the metrics' (a metric adds its value, lo, hi and tie_p).
BASE_COLUMNS = ("row_type", "rank", "rank_lo", "rank_hi", "conservative_rank",
                "tied_with_next_better", "system", "team", "submission_id", "date", "note",
                "above_rank", "set_apart", "flags", "items_with_duplicates")
#: Columns of whole numbers (pandas' nullable ``Int64``: blank where missing).
INT_COLUMNS = frozenset({"rank", "rank_lo", "rank_hi", "conservative_rank", "submission_id",
                         "above_rank", *COVERAGE_COLUMNS, "bootstrap_seed",
                         "bootstrap_samples", "items_with_duplicates"})


def export_columns(table: RankingTable) -> list[str]:
    """Every column of the export, in order."""
    return [*BASE_COLUMNS, *(c for k in table.columns
                             for c in (k, f"{k} lo", f"{k} hi", f"{k} tie_p")),
            "pct_humans", *COVERAGE_COLUMNS, *SIGNATURE_COLUMNS]


def export_record(row: dict, kind: str, scores: bool = True, family: str = "") -> list:
    """A row's values in the order of :func:`export_columns`; each score to two decimals by
    ``family``'s rule (``scores`` False: each metric's four values left out)."""
    record = [kind, row.get("rank"), row.get("rank_lo"), row.get("rank_hi"),
              row.get("conservative_rank"), row.get("tied_with_next_better"),
              row.get("system", row.get("name")), row.get("team", ""), shown_id(row),
              row.get("date", ""), _note(row, kind), row.get("above_rank"),
              # set apart (own group, after the ranked rows): why, and the flags behind it
              row.get("set_apart") or None, " ".join(row.get("flags") or []) or None,
              row.get("items_with_duplicates")]
    if scores:
        for value, low, high, p in score_values(row):
            record += (printed(value, family), printed(low, family), printed(high, family), p)
    record.append(row.get("pct_humans"))
    coverage = row.get("coverage") or {}
    record += (coverage.get(key) for key in COVERAGE_COLUMNS.values())
    if kind not in ("system", "reported"):  # a reference row: the split it was scored on
        record[-len(COVERAGE_COLUMNS)] = row.get("n_targets")
    signature = row.get("signature") or {"scorer_version": row.get("scorer_version")}
    record += (signature.get(key) for key in SIGNATURE_COLUMNS.values())
    return record


def score_values(row: dict) -> Iterator[tuple[Any, Any, Any, float | None]]:
    """(value, low, high, tie p) of each metric of a row (:func:`.table_rows.row_values`)."""
    for _, value, interval, p in row_values(row):
        yield (value, *(interval or (None, None)), p)


def _note(row: dict, kind: str) -> str:
    if kind == "reported":
        return (f"{row['status']}; computed on {row['computed_on']}; {row['source']}; "
                f"{row['citation']} {row['url']}")
    if row.get("subset"):
        return f"computed on the {row.get('n_targets')}-target {row.get('split')} split"
    return ""


# OWASP CSV injection: a cell starting with one of these is a formula to a spreadsheet.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise_cell(value: object) -> object:
    """Prefix a text cell that a spreadsheet would run as a formula with a single quote.

    Only strings: a negative number stays a number.
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_chunks(table: RankingTable, size: int = CHUNK_ROWS) -> Iterator[str]:
    """The ranking as CSV, ``size`` rows at a time: header row of column names (metric keys),
    then one row per line: what pandas' ``to_csv(index=False, float_format="%.2f")`` writes
    of a frame of :func:`export_record` (``Int64`` whole-number columns), as the export
    was written before (``tests/site/test_exports.py`` holds them equal).

    Text cells are neutralised against formula injection (:func:`neutralise_cell`). Every
    numeric column holds numbers only, so ``pd.read_csv`` reads it as float: scores with two
    decimals, the ``tie_p`` columns with six significant digits (two decimals would print
    0.0496, significant, as 0.05; the page's "< 0.001" is not a number).
    """
    columns = export_columns(table)
    base = [_int if c in INT_COLUMNS else _text
            for c in columns if c not in table.columns and not c.endswith(_SCORE_SUFFIXES)]
    head = len(BASE_COLUMNS)
    rows = export_rows(table)
    for start in range(0, max(len(rows), 1), size):
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        if start == 0:
            writer.writerow([neutralise_cell(c) for c in columns])
        for row, row_type in rows[start:start + size]:
            if isinstance(row, TableRow) and "cells" not in row:
                out.write(_system_line(row))
                continue
            values = [write(v) for write, v in zip(base, export_record(row, row_type, False),
                                                   strict=True)]
            values[head:head] = _score_texts(row)
            writer.writerow(values)
        yield out.getvalue()


_SCORE_SUFFIXES = (" lo", " hi", " tie_p")


def _system_line(row: TableRow) -> str:
    """A system row's CSV line: what ``csv.writer`` writes of the generic path's cells
    (``export_record`` through the column writers, then :func:`_score_texts`), written
    field by field: at 1,000 rows the per-cell calls were most of the file's CPU."""
    flags, items = row["flags"], row["items_with_duplicates"]
    rank, low, high, cons = row["rank"], row["rank_lo"], row["rank_hi"], row["conservative_rank"]
    pct = row["pct_humans"]
    coverage = row["coverage"] or {}
    signature = row["signature"] or {"scorer_version": None}
    fields = [
        "system", "" if rank is None else str(int(rank)), "" if low is None else str(int(low)),
        "" if high is None else str(int(high)), "" if cons is None else str(int(cons)),
        str(row["tied_with_next_better"]), _csv_text(row["system"]), _csv_text(row["team"]),
        "" if shown_id(row) is None else str(int(row["id"])), _csv_text(row["date"]), "", "",
        _csv_text(row["set_apart"]), _csv_text(" ".join(flags)) if flags else "",
        "" if items is None else str(int(items)), _system_scores(row),
        "" if pct is None else _csv_text(pct),
        *(_int_text(coverage.get(key)) for key in COVERAGE_COLUMNS.values()),
        *(write(signature.get(key)) for write, key in _SIGNATURE_WRITERS)]
    return ",".join(fields) + "\n"


def _quoted_by_csv() -> str:
    """The characters that make ``csv.writer`` (this module's dialect) quote a field."""
    found = ""
    for char in ',"\r\n\t;':
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerow([f"a{char}b", "c"])
        if out.getvalue().startswith('"'):
            found += char
    return found


_NEEDS_QUOTES = re.compile(f"[{re.escape(_quoted_by_csv())}]").search


def _csv_text(value: Any) -> str:
    """A text cell as :func:`_text` and ``csv.writer`` write it: neutralised, quoted where
    the writer would quote it (its quotes doubled)."""
    text = str(_text(value))
    if _NEEDS_QUOTES(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def _int_text(value: Any) -> str:
    """A whole-number cell as :func:`_int` and ``csv.writer`` write it."""
    return "" if value is None else str(int(value))


#: How each signature column is written (:data:`INT_COLUMNS` or text).
_SIGNATURE_WRITERS = tuple((_int_text if column in INT_COLUMNS else _csv_text, key)
                           for column, key in SIGNATURE_COLUMNS.items())


def _score_texts(row: dict) -> list[str]:
    """A row's four cells of each metric (value, lo, hi, tie p), from its cells (printed by
    the family's rule already)."""
    texts: list[str] = []
    for value, low, high, p in score_values(row):
        texts += (*("" if x is None else f"{x:.2f}" for x in (value, low, high)),
                  "" if p is None else f"{float(p):.6g}")
    return texts


#: A score's three CSV cells ("value,lo,hi") by its numbers, and a tie p's cell by p: a
#: cell's text is a function of its numbers alone, and a new snapshot leaves most systems'
#: numbers as they were, so the first export after it formats few (formatting was most of
#: an export's CPU: 1,000 rows of the all-metrics view print 92,000 numbers). Emptied when
#: full; zeros are not kept (0.0 and -0.0 are one key and print apart).
_SCORE_CELLS: dict[tuple[str, float, float | None, float | None], str] = {}
_P_CELLS: dict[float, str] = {}
_MEMO_MAX = 100_000


def _keep(memo: dict, key: Any, text: str) -> None:
    """Keep ``text`` under ``key``, emptying ``memo`` first when it is full."""
    if len(memo) >= _MEMO_MAX:
        memo.clear()
    memo[key] = text


def _system_scores(row: TableRow) -> str:
    """A system row's score cells (:func:`_score_texts`), joined, read straight from its
    table's columns."""
    g, i, family = row.g, row.i, row.source.style[0]
    texts = []
    for _key, values, intervals, ties in row.source.columns:
        value, interval = values[g], intervals[g]
        memo = (family, value, *(interval or (None, None)))
        text = _SCORE_CELLS.get(memo)
        if text is None:
            text = ",".join("" if x is None else shown(x, family) for x in memo[1:])
            if all(memo[1:]):
                _keep(_SCORE_CELLS, memo, text)
        p = ties[i] if i < len(ties) else None
        if p is None:
            texts += (text, "")
            continue
        p_text = _P_CELLS.get(p)
        if p_text is None:
            p_text = f"{float(p):.6g}"
            if p:
                _keep(_P_CELLS, p, p_text)
        texts += (text, p_text)
    return ",".join(texts)


def _int(value: Any) -> object:
    """A whole-number column's cell (pandas' ``Int64``: blank where missing)."""
    return "" if value is None else int(value)


def _text(value: Any) -> object:
    """Any other column's cell, blank where missing; text neutralised. ``pct_humans``, the
    one float column among them, prints as pandas prints a float column ("%.2f")."""
    if value is None:
        return ""
    if type(value) is float:
        return f"{value:.2f}"
    return neutralise_cell(value)


def json_chunks(table: RankingTable, size: int = CHUNK_ROWS) -> Iterator[str]:
    """The ranking as a JSON array of row objects with the CSV's columns (pandas
    ``orient="records"``, one object a line), ``size`` rows at a time, so
    ``pd.read_json(url)`` and any JSON tool read it as a table. The metadata (benchmark,
    view, labels) is in ``GET /api/v1/leaderboard``.

    What ``to_json(orient="records", double_precision=6)`` of the frame :func:`csv_chunks`
    names gives, read back (``tests/site/test_exports.py`` holds them equal), written from
    the rows: scores at the two decimals the tables print (finer ones helped read hidden
    labels back); p-values keep six decimals (0.0496 is significant, 0.05 is not),
    rounded by pandas itself, whose rounding of a p exactly halfway differs from Python's."""
    columns = export_columns(table)
    p_at = [i for i, c in enumerate(columns) if c.endswith(" tie_p")]
    int_at = [i for i, c in enumerate(columns) if c in INT_COLUMNS]
    rows = export_rows(table)
    family = shown_style({"benchmark": table.benchmark})[0]
    yield "["
    separator = "\n"
    for start in range(0, len(rows), size):
        records = [export_record(row, kind, family=family)
                   for row, kind in rows[start:start + size]]
        p_values = iter(_six_decimals([r[i] for r in records for i in p_at]))
        for record in records:
            for i in p_at:
                record[i] = next(p_values)
            for i in int_at:
                if record[i] is not None:
                    record[i] = int(record[i])
            pct = record[-len(COVERAGE_COLUMNS) - len(SIGNATURE_COLUMNS) - 1]
            if pct is not None:
                record[-len(COVERAGE_COLUMNS) - len(SIGNATURE_COLUMNS) - 1] = round(pct, 2)
            yield separator + json.dumps(dict(zip(columns, record, strict=True)))
            separator = ",\n"
    yield "\n]\n"


def _six_decimals(p_values: list[float | None]) -> list[float | None]:
    """p-values as pandas' JSON writer prints them with six decimals, read back."""
    if not p_values:
        return []
    series = pd.Series(p_values, dtype="float64")
    return json.loads(series.to_json(orient="values", double_precision=6))


def to_csv(table: RankingTable) -> str:
    """:func:`csv_chunks` in one string."""
    return "".join(csv_chunks(table))


def to_json(table: RankingTable) -> str:
    """:func:`json_chunks` in one string."""
    return "".join(json_chunks(table))
