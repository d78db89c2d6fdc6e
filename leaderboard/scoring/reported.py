"""Reported rows: numbers a publication printed, shown beside scored rows but never re-scored.

A reported-rows file is JSON (format 1)::

    {"format": 1,
     "citation": "...", "url": "https://...", "source": "Table 4",
     "benchmark": {"name": "swords", "version": "1.0", "split": "test"},
     "track": "generative",
     "rows": [{"name": "CoInCo", "metrics": {"lenient_a_f@10": 34.1, ...},
               "note": "..."}, ...]}

``citation``, ``url``, ``source``, ``benchmark``, ``track`` and ``note`` may be given for
the whole file, for a row, or both (the row's wins). Metric values are in percent, keyed by
the scorer's metric keys (:data:`~leaderboard.scoring.swords.stats.METRIC_KEYS`); a metric the
publication does not print is simply absent. Loading checks everything and raises
:class:`ReportedInvalid` listing every problem.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from leaderboard.scoring.swords.stats import METRIC_KEYS

FORMAT_VERSION = 1
TRACKS = ("generative", "ranking")
#: Folder of the files shipped with the project.
REPORTED_DIR = Path(__file__).resolve().parents[1] / "reported"
MAX_BYTES = 1_000_000
_SHARED = ("citation", "url", "source", "benchmark", "track", "note")
_FILE_KEYS = frozenset({"format", "rows", "title", *_SHARED})
_ROW_KEYS = frozenset({"name", "metrics", *_SHARED})
_BENCHMARK_KEYS = ("name", "version", "split")
_METRICS = frozenset(METRIC_KEYS)


class ReportedInvalid(ValueError):
    """A reported-rows file that cannot be used; ``problems`` lists every reason."""

    def __init__(self, origin: str, problems: list[str]):
        self.origin = origin
        self.problems = problems
        super().__init__(f"{origin}: " + "; ".join(problems))


@dataclass(frozen=True)
class ReportedRow:
    """One row as a publication printed it, with where and on what it was computed."""

    name: str
    citation: str
    url: str
    source: str
    benchmark_name: str
    benchmark_version: str
    benchmark_split: str
    track: str
    metrics: dict[str, float] = field(hash=False)
    note: str = ""

    def to_dict(self) -> dict:
        """JSON-ready form (benchmark nested as in the file)."""
        return {"name": self.name, "citation": self.citation, "url": self.url,
                "source": self.source, "track": self.track, "note": self.note,
                "benchmark": {"name": self.benchmark_name, "version": self.benchmark_version,
                              "split": self.benchmark_split},
                "metrics": dict(self.metrics)}


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict:
    keys = [k for k, _ in pairs]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise ValueError(f"duplicate key(s) {', '.join(map(repr, dupes))}")
    return dict(pairs)


def _text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _check_row(where: str, row: dict, problems: list[str]) -> None:
    if not _text(row.get("name")):
        problems.append(f"{where}: missing name")
    for key in ("citation", "url", "source"):
        if not _text(row.get(key)):
            problems.append(f"{where}: missing {key}")
    url = row.get("url")
    if _text(url) and not url.startswith(("https://", "http://")):
        problems.append(f"{where}: url must start with https:// or http://, not {url!r}")
    if row.get("note") is not None and not isinstance(row.get("note"), str):
        problems.append(f"{where}: note must be text")
    bench = row.get("benchmark")
    if not isinstance(bench, dict):
        problems.append(f"{where}: missing benchmark {{name, version, split}}")
    else:
        for key in _BENCHMARK_KEYS:
            if not _text(bench.get(key)):
                problems.append(f"{where}: benchmark has no {key}")
        for key in sorted(set(bench) - set(_BENCHMARK_KEYS)):
            problems.append(f"{where}: unknown benchmark field {key!r}")
    if row.get("track") not in TRACKS:
        problems.append(f"{where}: track must be one of {', '.join(TRACKS)}, "
                        f"not {row.get('track')!r}")
    metrics = row.get("metrics")
    if not isinstance(metrics, dict) or not metrics:
        problems.append(f"{where}: metrics must be a non-empty object")
        return
    for key, value in metrics.items():
        if key not in _METRICS:
            problems.append(f"{where}: unknown metric key {key!r} (keys are the scorer's, "
                            "e.g. lenient_a_f@10, strict_c_f@10, gap, gap_rat)")
        elif isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            problems.append(f"{where}: {key} must be a number, not {json.dumps(value)}")
        elif not 0 <= value <= 100:
            problems.append(f"{where}: {key} = {value} is outside 0-100 (values are percent)")


def parse_reported(raw: bytes | str, *, origin: str = "<reported rows>") -> list[ReportedRow]:
    """Check and read a reported-rows file; raises :class:`ReportedInvalid` on any problem."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    if len(raw) > MAX_BYTES:
        raise ReportedInvalid(origin, [f"the file has {len(raw):,} bytes; the limit is "
                                       f"{MAX_BYTES:,}"])
    try:
        doc = json.loads(raw.decode("utf-8-sig"), object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ReportedInvalid(origin, [f"not valid JSON: {exc}"]) from exc
    if not isinstance(doc, dict):
        raise ReportedInvalid(origin, ["the top level must be an object with \"rows\""])
    problems: list[str] = []
    if doc.get("format") != FORMAT_VERSION:
        problems.append(f"format must be {FORMAT_VERSION}, not {doc.get('format')!r}")
    for key in sorted(set(doc) - _FILE_KEYS):
        problems.append(f"unknown field {key!r}")
    rows = doc.get("rows")
    if not isinstance(rows, list) or not rows:
        problems.append("rows must be a non-empty list")
        raise ReportedInvalid(origin, problems)
    defaults = {k: doc[k] for k in _SHARED if k in doc}
    merged_rows, seen = [], set()
    for i, row in enumerate(rows):
        label = row.get("name") if isinstance(row, dict) else None
        where = f"rows[{i}]" + (f" ({label})" if isinstance(label, str) else "")
        if not isinstance(row, dict):
            problems.append(f"{where}: must be an object")
            continue
        for key in sorted(set(row) - _ROW_KEYS):
            problems.append(f"{where}: unknown field {key!r}")
        merged = {**defaults, **row}
        _check_row(where, merged, problems)
        bench = merged.get("benchmark") if isinstance(merged.get("benchmark"), dict) else {}
        identity = (merged.get("name"), merged.get("track"),
                    *(str(bench.get(k)) for k in _BENCHMARK_KEYS))
        if identity in seen:
            problems.append(f"{where}: the same name, track and benchmark appear twice")
        seen.add(identity)
        merged_rows.append(merged)
    if problems:
        raise ReportedInvalid(origin, problems)
    return [ReportedRow(
        m["name"].strip(), m["citation"].strip(), m["url"].strip(), m["source"].strip(),
        m["benchmark"]["name"], m["benchmark"]["version"], m["benchmark"]["split"],
        m["track"], {k: float(v) for k, v in m["metrics"].items()}, m.get("note") or "")
        for m in merged_rows]


def load_reported(path: str | Path) -> list[ReportedRow]:
    """Read and check one reported-rows file."""
    path = Path(path)
    if path.stat().st_size > MAX_BYTES:
        raise ReportedInvalid(path.name, [f"the file has {path.stat().st_size:,} bytes; the "
                                          f"limit is {MAX_BYTES:,}"])
    return parse_reported(path.read_bytes(), origin=path.name)


def shipped_files() -> list[Path]:
    """The reported-rows files shipped in :data:`REPORTED_DIR`, by name."""
    return sorted(REPORTED_DIR.glob("*.json"))


def load_shipped() -> list[ReportedRow]:
    """Every shipped row, file by file, in file order."""
    return [row for path in shipped_files() for row in load_reported(path)]
