"""The paper's table: one row per system and per publication's row, one column per metric of
a board the reader chose, across boards, and its LaTeX, BibTeX, Markdown and CSV exports.

Everything is read from the boards' snapshots (no ranking is computed here), and every value
is printed by the cell maker of the ranking pages, with the board's own decimals, so a number
reads as on its board. A board without a value for a row prints "-": nothing is imputed, and
no column averages metrics of different boards, which are not comparable.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from sqlmodel import Session

from leaderboard.scoring.families import family_for
from leaderboard.services.catalog.boards import board_title, list_boards, view_set
from leaderboard.services.catalog.reported import short_citation
from leaderboard.services.ranking.anonymity import page_path
from leaderboard.services.ranking.exports import neutralise_cell
from leaderboard.services.ranking.metric_info import LABELS, default_sort, displayed
from leaderboard.services.ranking.ranking_table import BadQuery, parse_q, shown_style
from leaderboard.services.ranking.set_apart import why
from leaderboard.services.ranking.snapshot_reader import cached_value, latest_snapshot, load_data
from leaderboard.services.ranking.table_rows import Style, make_cell

#: The metrics papers report on each kind of board: the columns shown when none are chosen.
STANDARD: dict[str, tuple[str, ...]] = {
    "generative": ("lenient_a_f@10", "lenient_c_f@10"), "ranking": ("gap",),
    "lexsub-ranking": ("gap",), "lexsub-generative": ("best_r", "oot_r"),
    "tsar-generative": ("acc@1", "map@3")}
#: Filters on a row's metadata (:func:`_system_meta`): field -> what the form says.
META_FILTERS: dict[str, str] = {"paper": "Paper link", "code": "Code link",
                                "open_weights": "Open weights",
                                "llm_api": "External LLM API",
                                "resources": "Extra resources (thesaurus, CoInCo, ...)"}
ROW_KINDS = ("all", "systems", "reported")
MAX_COLUMNS = 40
MISSING = "-"


@dataclass(frozen=True)
class Query:
    """What the reader chose: columns (``board-slug:metric``; none: the standard ones), the
    sort (a column or ``name``), filters on the name, the metadata and the kind of row."""

    columns: tuple[str, ...] = ()
    sort: str = ""
    direction: str = "desc"
    q: str = ""
    rows: str = "all"
    complete: bool = False
    meta: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Column:
    board: str
    metric: str
    board_title: str

    @property
    def id(self) -> str:
        return f"{self.board}:{self.metric}"

    @property
    def label(self) -> str:
        return LABELS.get(self.metric, self.metric)


@dataclass(frozen=True)
class BoardSnapshot:
    """A board and its snapshot data (its withdrawn systems left out)."""

    slug: str
    title: str
    views: str
    data: dict[str, Any]
    benchmark: str = ""


@dataclass
class PaperTable:
    """The rows (each with a cell per column, as :func:`make_cell` makes them), the columns
    (and their runs of one board: ``groups``), what every board offers (slug, title,
    metrics), and how many rows there are unfiltered (``total``)."""

    query: Query
    columns: list[Column]
    rows: list[dict[str, Any]]
    boards: list[dict[str, Any]]
    total: int = 0
    groups: list[tuple[str, int]] = field(default_factory=list)
    #: Per group, the BibTeX entries of its board's benchmark (what its header cites).
    group_bibtex: list[tuple[str, ...]] = field(default_factory=list)

    @property
    def any_apart(self) -> bool:
        """Whether a shown value is set apart on its board (then the footnote says why)."""
        return any(c["apart"] for r in self.rows for c in r["cells"])


def parse_query(args: Mapping[str, str], columns: Sequence[str],
                meta: Mapping[str, str]) -> Query:
    """A :class:`Query` from the query string (``columns``: every ``col``; ``meta``: the
    :data:`META_FILTERS` given); raises :class:`BadQuery`."""
    if len(columns) > MAX_COLUMNS:
        raise BadQuery(f"at most {MAX_COLUMNS} columns")
    direction = args.get("dir") or "desc"
    rows = args.get("rows") or "all"
    if direction not in ("asc", "desc") or rows not in ROW_KINDS:
        raise BadQuery(f"dir must be asc or desc, rows one of {', '.join(ROW_KINDS)}")
    wanted = []
    for name, value in meta.items():
        if name not in META_FILTERS or value not in ("", "yes", "no"):
            raise BadQuery(f"unknown filter {name}={value!r}")
        if value:
            wanted.append((name, value))
    return Query(tuple(dict.fromkeys(columns)), args.get("sort") or "", direction,
                 parse_q(args.get("q")), rows, bool(args.get("complete")), tuple(wanted))


def paper_table(session: Session, query: Query) -> PaperTable:
    """The table of ``query`` from every board's newest snapshot, built once per process and
    set of snapshots; raises :class:`BadQuery`."""
    boards = [(b, bench, latest_snapshot(session, b.id)) for b, bench in list_boards(session)]

    def build() -> PaperTable:
        # "public labels" tells a team what a board's diagnostics show; a reader of the
        # table needs the benchmark, split and track only, in a narrow column's header
        return build_table([BoardSnapshot(b.slug, board_title(b, bench).removesuffix(
            " · public labels"), view_set(b.track, bench.name), load_data(session, ref),
            bench.name) for b, bench, ref in boards], query)

    if not boards:
        return build()
    return cached_value(boards[0][2], "paper-table",
                        (tuple(ref.key for *_, ref in boards), query), build)


def _system_key(entry: dict[str, Any]) -> tuple:
    """What makes submissions on several boards one row: their system (a team's systems
    have distinct names, so the name stands in for a snapshot made before systems)."""
    return ("system", entry.get("system_slug") or (entry["team_id"], entry["system"]))


def _system_meta(entry: dict[str, Any]) -> dict[str, Any]:
    """What the metadata filters read of a system's snapshot row."""
    return {"paper": bool(entry.get("paper_url")), "code": bool(entry.get("code_url")),
            "open_weights": bool(entry.get("open_weights")),
            "llm_api": bool(entry.get("external_llm_api")),
            "resources": bool(entry.get("extra_resources"))}


def build_table(boards: list[BoardSnapshot], query: Query) -> PaperTable:
    """The table of ``query`` over ``boards``; raises :class:`BadQuery`."""
    by_slug = {b.slug: b for b in boards}
    columns = [_column(by_slug, c) for c in query.columns] or [
        Column(b.slug, m, b.title) for b in boards
        if b.data.get("systems") or b.data.get("reported") for m in _standard(b)]
    rows: dict[tuple, dict[str, Any]] = {}
    for board in boards:
        _add_board(rows, board)
    styles = {b.slug: shown_style(b.data) for b in boards}
    shown = []
    for row in rows.values():  # a row with no value in any column is not the table's
        row["cells"] = [_cell(row, c, styles[c.board]) for c in columns]
        if any(c["value"] is not None for c in row["cells"]):
            shown.append(row)
    out = [row for row in shown if _matches(row, query)]
    _sort(out, columns, query)
    runs = [list(run) for _, run in groupby(columns, key=lambda c: c.board_title)]
    groups = [(run[0].board_title, len(run)) for run in runs]
    cited = [family_for(by_slug[run[0].board].benchmark).bibtex for run in runs]
    offered = [{"slug": b.slug, "title": b.title, "metrics": list(displayed(b.views))}
               for b in boards]
    return PaperTable(query, columns, out, offered, len(shown), groups, cited)


def _standard(board: BoardSnapshot) -> tuple[str, ...]:
    return STANDARD.get(board.views, (default_sort(board.views),))


def _column(boards: dict[str, BoardSnapshot], text: str) -> Column:
    slug, _, metric = text.partition(":")
    board = boards.get(slug)
    if board is None or metric not in displayed(board.views):
        raise BadQuery(f"no column {text!r}: use board-slug:metric with a metric the board shows")
    return Column(slug, metric, board.title)


def _add_board(rows: dict[tuple, dict[str, Any]], board: BoardSnapshot) -> None:
    """Put the board's systems (a system's best submission on the board's headline) and
    reported rows (matched across boards by citation and name) into ``rows``."""
    headline = default_sort(board.views)
    for entry in board.data.get("systems", []):
        row = rows.setdefault(_system_key(entry), {
            "kind": "system", "name": entry["system"], "team": entry["team"],
            "team_id": entry["team_id"], "citation": "", "url": "", "meta": {}, "entries": {}})
        row["url"] = row["url"] or entry.get("paper_url") or ""
        for name, value in _system_meta(entry).items():  # yes where any submission says so
            row["meta"][name] = row["meta"].get(name) or value
        known = row["entries"].get(board.slug)
        if known is None or _better(entry, known, headline):
            row["entries"][board.slug] = entry
    for entry in board.data.get("reported", []):
        row = rows.setdefault(("reported", entry.get("citation", ""), entry["name"]), {
            "kind": "reported", "name": entry["name"], "team": "", "team_id": None,
            "citation": entry.get("citation", ""), "url": entry.get("url", ""),
            "meta": {"paper": bool(entry.get("url")), "code": False}, "entries": {}})
        row["entries"][board.slug] = entry


def _better(entry: dict[str, Any], known: dict[str, Any], headline: str) -> bool:
    def score(e: dict[str, Any]) -> tuple:
        value = e.get("metrics", {}).get(headline)
        return (value is not None, value or 0.0, e["date"])
    return score(entry) > score(known)


def _cell(row: dict[str, Any], column: Column, style: Style) -> dict[str, Any]:
    entry = row["entries"].get(column.board) or {}
    cell = make_cell(column.metric, entry.get("metrics", {}).get(column.metric),
                     (entry.get("intervals") or {}).get(column.metric), style=style)
    cell["apart"] = why(entry, column.metric) if entry.get("flags") else ""
    cell["id"] = entry.get("id") if row["kind"] == "system" else None
    cell["page"] = page_path(entry) if cell["id"] is not None else None
    return cell


def _matches(row: dict[str, Any], query: Query) -> bool:
    if query.rows != "all" and row["kind"] != query.rows.rstrip("s"):
        return False
    needle = query.q.casefold()
    if needle and needle not in f"{row['name']}\n{row['team']}\n{row['citation']}".casefold():
        return False
    if query.complete and any(c["value"] is None for c in row["cells"]):
        return False
    return all(_meta_matches(row["meta"].get(name), wanted) for name, wanted in query.meta)


def _meta_matches(value: Any, wanted: str) -> bool:
    """A yes/no field's value, or a text field containing ``wanted``."""
    if isinstance(value, bool) or value is None:
        return bool(value) == (wanted == "yes")
    return wanted.casefold() in str(value).casefold()


def _sort(rows: list[dict[str, Any]], columns: list[Column], query: Query) -> None:
    """By the chosen column (else the first), missing values last either way; by name."""
    rows.sort(key=lambda r: r["name"].casefold())
    ids = [c.id for c in columns]
    if query.sort == "name":
        rows.sort(key=lambda r: r["name"].casefold(), reverse=query.direction == "desc")
        return
    if query.sort and query.sort not in ids:
        raise BadQuery(f"cannot sort by {query.sort!r}: not a shown column")
    if not ids:
        return
    index = ids.index(query.sort) if query.sort else 0
    sign = -1 if query.direction == "desc" else 1
    rows.sort(key=lambda r: (r["cells"][index]["value"] is None,
                             sign * (r["cells"][index]["value"] or 0.0)))


def _printed(cell: dict[str, Any], interval: str) -> str:
    """A value with its interval as the board prints them (``interval``: where the bounds
    go), or :data:`MISSING`."""
    if cell["value"] is None:
        return MISSING
    bounds = cell["shown_interval"]
    return cell["shown"] + (" " + interval.format(*bounds) if bounds else "")


def csv_text(table: PaperTable) -> str:
    """Each row: kind, name, team, citation key, then each column's value and interval as
    printed (empty where the board has none, so a spreadsheet reads numbers), and where a
    value is set apart and why. A name a spreadsheet would run as a formula is quoted."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    keys = cite_keys(table)
    writer.writerow(["row_type", "system", "team", "citation", "cite_key",
                     *(h for c in table.columns for h in (c.id, f"{c.id} lo", f"{c.id} hi")),
                     "set_apart"])
    for row in table.rows:
        values = []
        for cell in row["cells"]:
            bounds = cell["shown_interval"] or ("", "")
            values += [cell["shown"] or "", *bounds]
        apart = "; ".join(f"{c.id}: {cell['apart']}" for c, cell in
                          zip(table.columns, row["cells"], strict=True) if cell["apart"])
        writer.writerow([row["kind"], *(neutralise_cell(row[k]) for k in (
            "name", "team", "citation")), keys.get(_cite_of(row), ""), *values, apart])
    return out.getvalue()


def markdown_text(table: PaperTable) -> str:
    """A Markdown table: value [interval] per cell, "-" where missing."""
    def esc(text: str) -> str:
        return text.replace("|", r"\|")
    head = ["System", "Team / source", *(f"{c.board_title}: {c.label}" for c in table.columns)]
    lines = ["| " + " | ".join(esc(h) for h in head) + " |",
             "|" + "---|" * 2 + "---:|" * len(table.columns)]
    for row in table.rows:
        cells = [_printed(c, "[{}, {}]") + ("†" if c["apart"] else "") for c in row["cells"]]
        source = row["team"] or short_citation(row["citation"])
        lines.append("| " + " | ".join(esc(t) for t in [row["name"], source, *cells]) + " |")
    if table.any_apart:
        lines.append("\n† repeats answers that the field's script credits each time: "
                     "not ranked on that metric by its board.")
    return "\n".join(lines) + "\n"


_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
          "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
          "^": r"\textasciicircum{}", "·": ","}


def _tex(text: str) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in text).replace(" ,", ",")


def _tex_label(label: str) -> str:
    """'F_c^10 lenient' as F$_c^{10}$ lenient (labels are our own constants)."""
    return re.sub(r"\^(\d+)", r"$^{\1}$", re.sub(r"_(\w)\^(\d+)", r"$_\1^{\2}$", label))


def latex_text(table: PaperTable) -> str:
    """A booktabs ``tabular``: a header per board, value and 95% interval per cell, "-"
    where missing, ``\\cite`` keys of :func:`bibtex_text` after cited rows' names."""
    keys = cite_keys(table)
    n = len(table.columns)
    lines = ["% needs \\usepackage{booktabs} (and url for the .bib beside this file, whose "
             "keys the \\cite commands name)",
             "\\begin{tabular}{ll" + "r" * n + "}", "\\toprule"]
    groups, rules, start = ["", ""], [], 3
    for (title, span), bibtex in zip(table.groups, table.group_bibtex, strict=True):
        cite = f"~\\cite{{{','.join(map(_bibtex_key, bibtex))}}}" if bibtex else ""
        groups.append(f"\\multicolumn{{{span}}}{{c}}{{{_tex(title)}{cite}}}")
        rules.append(f"\\cmidrule(lr){{{start}-{start + span - 1}}}")
        start += span
    if n:
        lines += [" & ".join(groups) + " \\\\", " ".join(rules)]
    lines += [" & ".join(["System", "Team", *(_tex_label(c.label) for c in table.columns)])
              + " \\\\", "\\midrule"]
    for row in table.rows:
        key = keys.get(_cite_of(row))
        name = _tex(row["name"]) + (f" \\cite{{{key}}}" if key else "")
        cells = [_printed(c, "{{\\scriptsize [{}, {}]}}") + ("$^\\dagger$" if c["apart"]
                                                            else "") for c in row["cells"]]
        lines.append(" & ".join([name, _tex(row["team"]), *cells]) + " \\\\")
    lines.append("\\bottomrule")
    if table.any_apart:
        lines.append(f"\\multicolumn{{{n + 2}}}{{l}}{{\\footnotesize $^\\dagger$ repeats "
                     "answers the field's script credits each time; not ranked on it.} \\\\")
    return "\n".join([*lines, "\\end{tabular}"]) + "\n"


def _cite_of(row: dict[str, Any]) -> tuple[str, str] | None:
    """What a row cites: its publication, or a system's paper link."""
    if row["kind"] == "reported" and row["citation"]:
        return (row["citation"], row["url"])
    if row["url"].startswith(("http://", "https://")):
        return (f"{row['team']}: {row['name']}", row["url"])
    return None


def _bibtex_key(entry: str) -> str:
    return entry[entry.index("{") + 1:entry.index(",")]


def _title_words(text: str) -> str:
    """A title as its letters and digits, lower case, without BibTeX's braces."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def benchmark_entries(table: PaperTable) -> dict[str, str]:
    """The BibTeX of the benchmarks the table's columns come from, by key, in column order."""
    return {_bibtex_key(e): e for bibtex in table.group_bibtex for e in bibtex}


def cite_keys(table: PaperTable) -> dict[tuple[str, str], str]:
    """(citation, url) -> a BibTeX key (``wada2022unsupervised``), unique in the table; a
    row citing a benchmark's own paper (a task's official runs) gets the benchmark's key."""
    benchmarks = {_title_words(m[1]): key for key, e in benchmark_entries(table).items()
                  if (m := re.search(r"title = \{(.*)\},?\n", e))}
    keys: dict[tuple[str, str], str] = {}
    for row in table.rows:
        cite = _cite_of(row)
        if cite is None or cite in keys:
            continue
        parsed = _parse_citation(cite[0])
        if parsed and _title_words(parsed["title"]) in benchmarks:
            keys[cite] = benchmarks[_title_words(parsed["title"])]
            continue
        words = [w for w in re.findall(r"[a-z0-9]+", (parsed.get("title") or cite[0]).lower())
                 if w not in ("a", "an", "the", "on", "of")]
        if parsed:
            author = re.sub(r"[^a-z]", "", parsed["authors"][0].split(" ")[-1].lower())
            base = f"{author}{parsed['year']}{words[0] if words else ''}"
        else:  # a system's paper link: its team and name
            base = "-".join(words[:4]) or "row"
        key, n = base, 1
        while key in keys.values() or key in benchmarks.values():
            n += 1
            key = f"{base}{n}"
        keys[cite] = key
    return keys


_CITATION = re.compile(r"^(?P<authors>.+?)\. (?P<year>(?:19|20)\d\d)\. (?P<title>.+?)\."
                       r"(?: (?P<rest>.*))?$")


def _parse_citation(text: str) -> dict[str, Any]:
    """``Authors. Year. Title. Venue.`` as its parts (nothing when it is not so written)."""
    match = _CITATION.match(text.strip())
    if match is None:
        return {}
    authors = re.split(r",\s*|\s+and\s+", match["authors"])
    return {"authors": [a for a in authors if a], "year": match["year"],
            "title": match["title"], "rest": match["rest"] or ""}


def bibtex_text(table: PaperTable) -> str:
    """A ``@misc`` entry per key of :func:`cite_keys`: the citation's authors, year, title
    and venue as written (or the whole text as a note), and its address; after them the
    BibTeX of the benchmarks the columns come from, as their boards give it."""
    entries = []
    benchmarks = benchmark_entries(table)
    for (citation, url), key in cite_keys(table).items():
        if key in benchmarks:
            continue
        parsed = _parse_citation(citation)
        if parsed:
            fields = [("author", " and ".join(parsed["authors"])), ("title", parsed["title"]),
                      ("year", parsed["year"]), ("note", parsed["rest"])]
        else:
            fields = [("title", citation)]
        fields = [(k, _tex(v)) for k, v in fields]
        fields.append(("howpublished", f"\\url{{{url}}}" if url else ""))
        body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields if v)
        entries.append(f"@misc{{{key},\n{body}\n}}\n")
    entries += [f"{e}\n" for e in benchmarks.values()]
    return "\n".join(entries)
