"""CSV and JSON exports of the ranking as shown on screen, built with pandas."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pandas as pd

from leaderboard.services.ranking.ranking_table import RankingTable

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


def ranking_frame(table: RankingTable,
                  rows: list[tuple[dict, str]] | None = None) -> pd.DataFrame:
    """One row per system, then the reference rows, then the reported ones (a publication's
    numbers, no intervals); each metric with its 95% interval. ``rows``: only those of
    :func:`export_rows` (a chunk)."""
    records = []
    for row, kind in export_rows(table) if rows is None else rows:
        record = {
            "row_type": kind,
            "rank": row.get("rank"), "rank_lo": row.get("rank_lo"),
            "rank_hi": row.get("rank_hi"), "conservative_rank": row.get("conservative_rank"),
            "tied_with_next_better": row.get("tied_with_next_better"),
            "system": row.get("system", row.get("name")), "team": row.get("team", ""),
            "submission_id": row.get("id"), "date": row.get("date", ""),
            "note": _note(row, kind),
            "above_rank": row.get("above_rank"),
            # set apart (own group, after the ranked rows): why, and the flags behind it
            "set_apart": row.get("set_apart") or None,
            "flags": " ".join(row.get("flags") or []) or None,
            "items_with_duplicates": row.get("items_with_duplicates"),
        }
        for cell in row["cells"]:
            key = cell["key"]
            interval = cell["interval"] or [None, None]
            record[key] = cell["value"]
            record[f"{key} lo"] = interval[0]
            record[f"{key} hi"] = interval[1]
            record[f"{key} tie_p"] = cell.get("p")
        record["pct_humans"] = row.get("pct_humans")
        coverage = row.get("coverage") or {}
        for column, key in COVERAGE_COLUMNS.items():
            record[column] = coverage.get(key)
        if kind not in ("system", "reported"):  # a reference row: the split it was scored on
            record["targets_in_split"] = row.get("n_targets")
        signature = row.get("signature") or {"scorer_version": row.get("scorer_version")}
        for column, key in SIGNATURE_COLUMNS.items():
            record[column] = signature.get(key)
        records.append(record)
    frame = pd.DataFrame.from_records(records)
    if frame.empty:
        base = ["row_type", "rank", "rank_lo", "rank_hi", "conservative_rank",
                "tied_with_next_better", "system", "team", "submission_id", "date", "note",
                "above_rank", "set_apart", "flags", "items_with_duplicates"]
        cols = [c for k in table.columns for c in (k, f"{k} lo", f"{k} hi", f"{k} tie_p")]
        frame = pd.DataFrame(columns=base + cols + ["pct_humans", *COVERAGE_COLUMNS,
                                                    *SIGNATURE_COLUMNS])
    for column in ("rank", "rank_lo", "rank_hi", "conservative_rank", "submission_id", "above_rank",
                   *COVERAGE_COLUMNS, "bootstrap_seed", "bootstrap_samples",
                   "items_with_duplicates"):
        frame[column] = frame[column].astype("Int64")
    return frame


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


def neutralise_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells (and column names) cannot start a formula."""
    out = frame.copy()
    for column in out.columns:
        if not pd.api.types.is_numeric_dtype(out[column]):
            out[column] = out[column].map(neutralise_cell)
    out.columns = [neutralise_cell(c) for c in out.columns]
    return out


def _chunks(table: RankingTable, size: int) -> Iterator[tuple[bool, pd.DataFrame]]:
    """(first?, frame) per ``size`` rows of :func:`export_rows`; one empty frame for none."""
    rows = export_rows(table)
    for start in range(0, max(len(rows), 1), size):
        yield start == 0, ranking_frame(table, rows[start:start + size])


def csv_chunks(table: RankingTable, size: int = CHUNK_ROWS) -> Iterator[str]:
    """The ranking as CSV, ``size`` rows at a time: header row of column names (metric keys),
    then one row per line.

    Text cells are neutralised against formula injection (:func:`neutralise_cell`). Every
    numeric column holds numbers only, so ``pd.read_csv`` reads it as float: scores with two
    decimals, the ``tie_p`` columns with six significant digits (two decimals would print
    0.0496, significant, as 0.05; the page's "< 0.001" is not a number).
    """
    for first, frame in _chunks(table, size):
        for column in frame.columns:
            if column.endswith(" tie_p"):
                frame[column] = [None if pd.isna(p) else f"{float(p):.6g}"
                                 for p in frame[column]]
        yield neutralise_frame(frame).to_csv(index=False, header=first, float_format="%.2f")


def json_chunks(table: RankingTable, size: int = CHUNK_ROWS) -> Iterator[str]:
    """The ranking as a JSON array of row objects with the CSV's columns (pandas
    ``orient="records"``, one object a line), ``size`` rows at a time, so
    ``pd.read_json(url)`` and any JSON tool read it as a table. The metadata (benchmark,
    view, labels) is in ``GET /api/v1/leaderboard``."""
    yield "["
    separator = "\n"
    for _, frame in _chunks(table, size):
        # Scores at the two decimals the tables print (finer ones helped read hidden labels
        # back, issue 20); p-values keep theirs (0.0496 is significant, 0.05 is not).
        for column in frame.columns:
            if pd.api.types.is_float_dtype(frame[column]) and not column.endswith(" tie_p"):
                frame[column] = frame[column].round(2)
        for row in json.loads(frame.to_json(orient="records", double_precision=6)):
            yield separator + json.dumps(row)
            separator = ",\n"
    yield "\n]\n"


def to_csv(table: RankingTable) -> str:
    """:func:`csv_chunks` in one string."""
    return "".join(csv_chunks(table))


def to_json(table: RankingTable) -> str:
    """:func:`json_chunks` in one string."""
    return "".join(json_chunks(table))
