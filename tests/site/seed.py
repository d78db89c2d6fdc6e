"""Seed a database with real scored demo submissions and reference rows for the site tests."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import timedelta

from sqlmodel import Session

from leaderboard.models import (
    ReferenceSystem,
    Result,
    Split,
    Submission,
    SubmissionStatus,
    Team,
    utcnow,
)
from leaderboard.scoring import score_submission
from leaderboard.services.catalog.benchmarks import get_prepared, import_benchmark
from leaderboard.services.catalog.boards import import_board
from leaderboard.services.catalog.demo import DEMO_DIR
from leaderboard.services.intake.systems import system_for
from leaderboard.services.ranking.snapshots import refresh_snapshot


def demo_split() -> dict:
    """The demo split as parsed JSON."""
    return json.loads((DEMO_DIR / "demo_split.json").read_text())


def demo_file(stem: str) -> dict:
    """One demo submission as parsed JSON."""
    return json.loads((DEMO_DIR / "submissions" / f"{stem}.json").read_text())


def variant(sub: dict, keep: int) -> dict:
    """A submission keeping the first ``keep`` substitutes of each target."""
    return {"substitutes_lemmatized": sub.get("substitutes_lemmatized", False),
            "substitutes": {t: subs[:keep] for t, subs in sub["substitutes"].items()}}


def gold_only_substitutes() -> set[str]:
    """Substitutes present in the demo gold but in no demo submission (must never be shown)."""
    split = demo_split()
    gold = {s["substitute"].lower() for s in split["substitutes"].values()}
    offered: set[str] = set()
    for stem in ("demo_strong", "demo_baseline", "demo_weak"):
        for subs in demo_file(stem)["substitutes"].values():
            for entry in subs:
                offered.add((entry[0] if isinstance(entry, list) else entry).lower())
    return gold - offered


@dataclass
class Seeded:
    """Ids of what :func:`seed_demo` created."""

    split_id: int
    subset_id: int
    board_id: int = 0
    teams: dict[str, int] = field(default_factory=dict)
    public: dict[str, int] = field(default_factory=dict)
    private_id: int = 0
    hidden_id: int = 0


def _store(session: Session, benchmark: Split, team: Team, name: str, sub: dict, *,
           public: bool = True, hidden: bool = False, age_days: int = 0) -> Submission:
    raw = json.dumps(sub).encode()
    prepared = get_prepared(benchmark)
    result = score_submission(prepared, sub)
    created = utcnow() - timedelta(days=age_days)
    system = system_for(session, team.id, name)  # type: ignore[arg-type]
    system.description = f"{name}: a demo system."
    row = Submission(team_id=team.id, split_id=benchmark.id,
                     board_id=import_board(session, benchmark).id, system_id=system.id,
                     system_name=name, file_bytes=raw,
                     file_sha256=hashlib.sha256(raw).hexdigest(), file_size=len(raw),
                     status=SubmissionStatus.SCORED, is_public=public, hidden=hidden,
                     scorer_version=result.signature["scorer_version"], created_at=created,
                     finished_at=created, filename=f"{name}.json")
    session.add(row)
    session.flush()
    session.add(Result(submission_id=row.id, scorer_version=row.scorer_version,
                       split_checksum=prepared.checksum, bootstrap_seed=prepared.seed,
                       bootstrap_samples=prepared.bootstrap, metrics=result.metrics,
                       intervals=result.intervals, by_pos=result.by_pos,
                       counts=result.counts, target_stats=result.target_stats.to_bytes()))
    return row


def _reference(session: Session, benchmark: Split, name: str, kind: str, sub: dict,
               keys: list[str] | None, note: str = "") -> None:
    raw = json.dumps(sub).encode()
    result = score_submission(get_prepared(benchmark), sub)
    session.add(ReferenceSystem(split_id=benchmark.id, name=name, kind=kind, note=note,
                                metric_keys=keys, file_bytes=raw,
                                file_sha256=hashlib.sha256(raw).hexdigest(),
                                scorer_version=result.signature["scorer_version"],
                                metrics=result.metrics, intervals=result.intervals,
                                by_pos=result.by_pos))


def seed_demo(session: Session, *, bootstrap: int = 200) -> Seeded:
    """Demo split + a subset split, five public systems of three teams, one private, one
    hidden, and Humans (two rows, on the subset) plus two oracle reference rows."""
    from tests.factories import make_team

    split = demo_split()
    bench = import_benchmark(session=session, raw=json.dumps(split).encode(),
                             name="swords-demo", version="1", split="test",
                             make_default=True, bootstrap=bootstrap)
    keep = sorted(split["targets"])[:9]
    subset = {**split, "targets": {t: v for t, v in split["targets"].items() if t in keep}}
    subset["substitutes"] = {s: v for s, v in split["substitutes"].items()
                             if v["target_id"] in keep}
    subset["substitute_labels"] = {s: split["substitute_labels"][s]
                                   for s in subset["substitutes"]}
    sub_bench = import_benchmark(session=session, raw=json.dumps(subset).encode(),
                                 name="swords-demo", version="1", split="test-subset",
                                 with_board=False, bootstrap=bootstrap)
    seeded = Seeded(bench.id, sub_bench.id, import_board(session, bench).id)  # type: ignore[arg-type]
    teams = {}
    for name in ("North Lab", "South Lab", "East Lab"):
        team, _user = make_team(session, name)
        teams[name] = team
        seeded.teams[name] = team.id  # type: ignore[assignment]
    strong, base, weak = (demo_file(s) for s in ("demo_strong", "demo_baseline", "demo_weak"))
    plan = [("North Lab", "Contextual ranker", strong, 5), ("North Lab", "Ranker top-3",
            variant(strong, 3), 4), ("South Lab", "Thesaurus baseline", base, 3),
            ("South Lab", "Thesaurus top-1", variant(base, 1), 2),
            ("East Lab", "Frequency baseline", weak, 1)]
    for team_name, system, sub, age in plan:
        row = _store(session, bench, teams[team_name], system, sub, age_days=age)
        seeded.public[system] = row.id  # type: ignore[assignment]
    seeded.private_id = _store(session, bench, teams["East Lab"], "Secret system", strong,
                               public=False).id  # type: ignore[assignment]
    seeded.hidden_id = _store(session, bench, teams["East Lab"], "Hidden system", base,
                              hidden=True).id  # type: ignore[assignment]
    lenient = _lenient_keys()
    humans = variant(strong, 4)
    humans["substitutes"] = {t: v for t, v in humans["substitutes"].items() if t in keep}
    _reference(session, sub_bench, "Humans", "human", humans, lenient[:10])
    _reference(session, sub_bench, "Humans", "human", humans, lenient[10:])
    _reference(session, bench, "CoInCo", "oracle", variant(base, 6), lenient)
    _reference(session, bench, "Thesaurus", "oracle", base, lenient)
    session.commit()
    refresh_snapshot(session=session, board_id=seeded.board_id)
    session.commit()
    return seeded


def _lenient_keys() -> list[str]:
    from leaderboard.scoring import METRIC_KEYS

    return [k for k in METRIC_KEYS if k.startswith("lenient_")]
