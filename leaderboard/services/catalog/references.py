"""Reference rows (Humans, oracles, Random): scored by the same engine, synchronously, never
ranked.

A reference row belongs to the split it was scored on. Humans is several rows of one name
(one result file per metric family, on the 89-target subset); the ranking merges rows of one
name across the splits of a benchmark version. Random (ranking track only) is made here, one
per split, from a seeded generator: :func:`ensure_random_reference`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from sqlmodel import Session, col, select

from leaderboard.models import ReferenceSystem, Split, Track, utcnow
from leaderboard.scoring import (
    METRIC_KEYS,
    SCORER_VERSION,
    validate_submission,
)
from leaderboard.scoring.families import SWORDS, family_for
from leaderboard.scoring.swords.ranking_track import validate_ranking_submission
from leaderboard.services.catalog.benchmarks import (
    find_benchmark,
    get_candidates,
    get_prepared,
    import_benchmark,
)

#: Kinds a host adds from a file (``reference add --kind``).
KINDS = ("human", "oracle")
#: Kinds the site makes itself.
MADE_KINDS = ("random",)
RANDOM_NAME = "Random"
RANDOM_SEED = 0
RANDOM_NOTE = ("Every candidate scored with a uniform random number (Python random.Random, "
               "seed 0), then scored here like a submission; the paper's Random on v1.0 test: "
               "GAP 32.7.")
LEXSUB_RANDOM_NOTE = ("Every candidate of the pool scored with a uniform random number "
                      "(Python random.Random, seed 0) as RANKED lines, then scored here like a "
                      "submission; a random ranking gives about 30.0 GAP on LS07 all.")
METRIC_GROUPS: dict[str, list[str]] = {
    "a": [k for k in METRIC_KEYS if "_a_" in k],
    "c": [k for k in METRIC_KEYS if "_c_" in k],  # includes strict_c_p@1
    "gap": ["gap", "gap_rat"],
    "semeval": [k for k in METRIC_KEYS if k.startswith(("best_", "oot_"))],
}


class ReferenceInvalid(ValueError):
    """A reference file or option that cannot be used, with a message for the host."""


def resolve_metric_keys(spec: str) -> list[str] | None:
    """``all`` -> None (every key); ``a``, ``c``, ``gap``, ``semeval`` or ``KEY,KEY,...``."""
    keys: list[str] = []
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        if part == "all":
            return None
        if part in METRIC_GROUPS:
            keys += [k for k in METRIC_GROUPS[part] if k not in keys]
        elif part in METRIC_KEYS:
            if part not in keys:
                keys.append(part)
        else:
            raise ReferenceInvalid(f"unknown metric {part!r} (use all, a, c, gap, semeval or "
                                 "metric keys such as lenient_a_f@10)")
    if not keys:
        raise ReferenceInvalid("no metric selected")
    return keys


def add_reference(*, session: Session, benchmark: Split, name: str, kind: str, raw: bytes,
                  metric_keys: list[str] | None = None, note: str = "",
                  max_bytes: int = 50_000_000, track: str | None = None) -> ReferenceSystem:
    """Score ``raw`` on ``benchmark`` and store it (replacing the row of the same name and
    metric keys on that split). ``track`` names the only track whose boards show it (None:
    every track); a ranking-track row must score every candidate, as a submission there.
    Flushes; the caller commits and refreshes snapshots."""
    if kind not in KINDS + MADE_KINDS:
        raise ReferenceInvalid(f"kind must be one of {', '.join(KINDS)}")
    prepared = get_prepared(benchmark)
    family = family_for(benchmark.name)
    # Published reference outputs contain empty substitutes: score them as upstream did.
    if family is not SWORDS:
        report = family.validate(raw, prepared, track=track or Track.GENERATIVE,
                                 max_bytes=max_bytes)
    elif track == Track.RANKING:
        report = validate_ranking_submission(raw, prepared, get_candidates(benchmark),
                                             max_bytes=max_bytes, allow_empty=True)
    else:
        report = validate_submission(raw, prepared, max_bytes=max_bytes, allow_empty=True)
    if not report.ok:
        shown = "; ".join(f"[{p.code}] {p.message}" for p in report.errors[:5])
        raise ReferenceInvalid(f"not a valid result file for {benchmark.name} "
                             f"{benchmark.version} {benchmark.split}: {shown}")
    result = family.score(prepared, report, track=track or Track.GENERATIVE)
    row = next((r for r in session.exec(select(ReferenceSystem).where(
        ReferenceSystem.split_id == benchmark.id, ReferenceSystem.name == name)).all()
        if r.metric_keys == metric_keys), None)
    row = row or ReferenceSystem(split_id=benchmark.id, name=name, kind=kind,
                                 file_bytes=b"", file_sha256="")
    row.kind, row.note, row.metric_keys, row.track = kind, note, metric_keys, track
    row.file_bytes, row.file_sha256 = raw, hashlib.sha256(raw).hexdigest()
    row.scorer_version = SCORER_VERSION
    row.metrics, row.intervals, row.by_pos = result.metrics, result.intervals, result.by_pos
    row.created_at = utcnow()
    session.add(row)
    session.flush()
    return row


def rescore_references(session: Session, *, force: bool = False) -> list[ReferenceSystem]:
    """Re-score every reference row with an older scorer version (all with ``force``)."""
    done = []
    for row in session.exec(select(ReferenceSystem).order_by(col(ReferenceSystem.id))).all():
        if force or row.scorer_version != SCORER_VERSION:
            benchmark = session.get(Split, row.split_id)
            done.append(add_reference(session=session, benchmark=benchmark, name=row.name,
                                      kind=row.kind, raw=row.file_bytes,
                                      metric_keys=row.metric_keys, note=row.note,
                                      track=row.track))
    return done


def random_reference_bytes(benchmark: Split, seed: int = RANDOM_SEED) -> bytes:
    """The Random row's file for a split: every candidate with a seeded uniform score
    (:func:`~leaderboard.scoring.swords.ranking_track.random_ranking_submission`), gzipped."""
    return family_for(benchmark.name).random_submission(benchmark.source_bytes, seed=seed)


def ensure_random_reference(session: Session, benchmark: Split) -> ReferenceSystem:
    """The split's Random reference row for ranking boards, scored by the site itself; made
    once (again only when the scorer version changed, as ``rescore`` would). Flushes; the
    caller commits and refreshes the board's snapshot."""
    row = session.exec(select(ReferenceSystem).where(
        ReferenceSystem.split_id == benchmark.id, ReferenceSystem.kind == "random",
        ReferenceSystem.name == RANDOM_NAME)).first()
    if row is not None and row.scorer_version == SCORER_VERSION:
        return row
    note = RANDOM_NOTE if family_for(benchmark.name) is SWORDS else LEXSUB_RANDOM_NOTE
    return add_reference(session=session, benchmark=benchmark, name=RANDOM_NAME,
                         kind="random", raw=random_reference_bytes(benchmark),
                         note=note, track=Track.RANKING)


UPPER_BOUND_NAME = "Gold upper bound"
UPPER_BOUND_NOTE = ("The gold's own most frequent answer per instance as best (the first of "
                    "equals) and its ten most frequent as oot: the theoretical upper bound of "
                    "McCarthy & Navigli (2009), best 45.76 on LS07 test.")


def ensure_upper_bound_reference(session: Session, benchmark: Split) -> ReferenceSystem:
    """The gold upper-bound row of an LS07/CoInCo split's generative boards. Flushes."""
    family = family_for(benchmark.name)
    return add_reference(session=session, benchmark=benchmark, name=UPPER_BOUND_NAME,
                         kind="oracle", raw=family.upper_bound_submission(
                             benchmark.source_bytes),
                         note=UPPER_BOUND_NOTE, track=Track.GENERATIVE)


HUMANS_NOTE = ("Computed as in the SWORDS paper on the 89 test targets annotated twice "
               "(swords-v1.1 test-subset): one result file per metric family.")
SHARED_REFERENCES = [
    # (file, split, name, kind, metric spec, note)
    ("humans_acceptable_test-subset.result.json.gz", "test-subset", "Humans", "human", "a",
     HUMANS_NOTE),
    ("humans_conceivable_test-subset.result.json.gz", "test-subset", "Humans", "human", "c",
     HUMANS_NOTE),
    ("humans_all_test-subset.result.json.gz", "test-subset", "Humans", "human", "gap",
     HUMANS_NOTE),
    # best/oot: the conceivable file gives the paper's Humans row (best 3.36, oot 53.81 on
    # v1.1 against its 3.4 and 54.0 on v1.0); the 'all' file gives best 2.31.
    ("humans_conceivable_test-subset.result.json.gz", "test-subset", "Humans", "human",
     "semeval", HUMANS_NOTE),
    ("coinco_test.result.json.gz", "test", "CoInCo", "oracle", "all",
     "Oracle: the substitutes CoInCo annotators wrote, ordered by votes; it only proposes "
     "candidates the benchmark contains, so compare it in the lenient setting."),
    ("thesaurus_test.result.json.gz", "test", "Thesaurus", "oracle", "all",
     "Oracle: Roget's thesaurus candidates in thesaurus order; it only proposes candidates "
     "the benchmark contains, so compare it in the lenient setting."),
]
SHARED_SPLITS = {"test": "swords-v1.1_test.json.gz",
                 "test-subset": "swords-v1.1_test-subset.json.gz"}


def import_shared(*, session: Session, data_dir: Path, name: str = "swords",
                  version: str = "1.1", bootstrap: int = 1000,
                  seed: int = 0) -> list[ReferenceSystem]:
    """Import the shared SWORDS reference rows (and the splits they need) from ``data_dir``
    (``swords/`` and ``reference-systems/`` under it), as the paper's Table 4 does. Commits."""
    splits: dict[str, Split] = {}
    for split, filename in SHARED_SPLITS.items():
        existing = find_benchmark(session, name, version, split)
        if existing is None:
            path = data_dir / "swords" / filename
            if not path.exists():
                raise ReferenceInvalid(f"{path} is missing and {name} {version} {split} "
                                     "is not imported")
            existing = import_benchmark(session=session, raw=path.read_bytes(), name=name,
                                        version=version, split=split, hidden=True,
                                        with_board=split == "test",
                                        bootstrap=bootstrap, seed=seed)
        splits[split] = existing
    rows = []
    for filename, split, ref_name, kind, spec, note in SHARED_REFERENCES:
        path = data_dir / "reference-systems" / filename
        if not path.exists():
            raise ReferenceInvalid(f"{path} is missing")
        rows.append(add_reference(session=session, benchmark=splits[split], name=ref_name,
                                  kind=kind, raw=path.read_bytes(),
                                  metric_keys=resolve_metric_keys(spec), note=note))
    session.commit()
    return rows
