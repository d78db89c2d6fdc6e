"""Bulk seeding of the synthetic board for the scale benchmarks (``bench_ranking``,
``bench_load``): the rows ``leaderboard.demo.synthetic.add_systems`` writes (the same
numbers from the same generator), built in batches and inserted by the thousand.

10,000 systems took hours one ORM flush at a time on a loaded 2-core machine; here the
resampled values of 16 systems are one matrix product per POS and each table gets one
executemany per batch of 250 systems.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from flask import Flask
from sqlalchemy import func, insert, text
from sqlmodel import Session, select

from leaderboard.demo.synthetic import CHECKSUM, synthetic_board, synthetic_rows, target_pos
from leaderboard.models import (
    Board,
    Result,
    ResultResamples,
    Submission,
    SubmissionStatus,
    System,
    Team,
)
from leaderboard.scoring import SCORER_VERSION, TargetStats, resample_counts
from leaderboard.scoring.bootstrap import pos_stream
from leaderboard.scoring.swords.engine import POS_ORDER
from leaderboard.scoring.swords.stats import metrics_from_sums
from leaderboard.services.ranking.metric_info import POS_VALUES, headlines
from leaderboard.services.ranking.resamples import pos_name

N_TARGETS, BOOTSTRAP = 762, 1000
SEED_BATCH = 250
MATMUL_SYSTEMS = 16


def seeded_app(url: str, instance: str, systems: int, teams: int = 50, seed_rng: int = 42,
               **settings: Any) -> tuple[Flask, Board]:
    """The app on a fresh database ``url`` holding the synthetic board of ``systems`` systems
    of ``teams`` teams and its snapshot."""
    from leaderboard import create_app
    from leaderboard.db import create_all
    from leaderboard.services.ranking.snapshots import refresh_snapshot

    app = create_app({"INSTANCE_PATH": instance, "DATABASE_URL": url, "SECRET_KEY": "bench",
                      "LOG_REQUESTS": False, **settings})
    create_all(app.extensions["db_engine"])
    with app.app_context(), Session(app.extensions["db_engine"], expire_on_commit=False) as s:
        board = seed(s, systems, teams, np.random.default_rng(seed_rng))
        refresh_snapshot(session=s, board_id=board.id)  # type: ignore[arg-type]
        s.commit()
    return app, board


def seed(session: Session, n_systems: int, n_teams: int, rng: np.random.Generator) -> Board:
    """The synthetic board with ``n_systems`` public results of ``n_teams`` teams, as
    ``add_systems`` writes them (same rows, metrics, intervals and cached resampled values)
    but in bulk: rows built as dicts and inserted by the thousand (SQLAlchemy's executemany,
    multi-row VALUES on PostgreSQL and SQLite), ids assigned here (a fresh database)."""
    board = synthetic_board(session, n_targets=N_TARGETS)
    teams = [Team(name=f"Team {i:04d}") for i in range(n_teams)]
    session.add_all(teams)
    session.flush()
    team_ids = [t.id for t in teams]
    keys = headlines(board.track)
    pos = target_pos(N_TARGETS)
    submission_id = (session.exec(select(func.max(Submission.id))).one() or 0) + 1
    result_id = (session.exec(select(func.max(Result.id))).one() or 0) + 1
    system_id = (session.exec(select(func.max(System.id))).one() or 0) + 1
    for start in range(0, n_systems, SEED_BATCH):
        systems, subs, results, cached = [], [], [], []
        batch = []
        for _ in range(start, min(n_systems, start + SEED_BATCH)):
            skill = rng.uniform(0.2, 0.9)
            batch.append(TargetStats(synthetic_rows(rng, skill, N_TARGETS), pos, CHECKSUM, 0,
                                     BOOTSTRAP, SCORER_VERSION))
        for k, stats in enumerate(batch):
            i = start + k
            if k % MATMUL_SYSTEMS == 0:  # every metric on every resample: 16 systems' worth
                values = _resampled(batch[k:k + MATMUL_SYSTEMS], pos)
            blocks = {p: _block(stats, p, values[p][k % MATMUL_SYSTEMS], keys)
                      for p in (None, *POS_ORDER)}
            # a bulk insert skips the ORM's listener that joins an upload to its system
            systems.append(System(id=system_id, team_id=team_ids[i % n_teams],
                                  name=f"System {i:05d}").model_dump())
            subs.append(Submission(
                id=submission_id, team_id=team_ids[i % n_teams], split_id=board.split_id,
                board_id=board.id, system_id=system_id, system_name=f"System {i:05d}",
                file_bytes=b"{}",
                file_sha256="0" * 64, status=SubmissionStatus.SCORED, is_public=True,
                scorer_version=SCORER_VERSION).model_dump())
            results.append(Result(
                id=result_id, submission_id=submission_id, scorer_version=SCORER_VERSION,
                split_checksum=CHECKSUM, bootstrap_seed=0, bootstrap_samples=BOOTSTRAP,
                metrics=blocks[None][0], intervals=blocks[None][1],
                by_pos={p: {"metrics": blocks[p][0], "intervals": blocks[p][1]}
                        for p in POS_ORDER},
                target_stats=stats.to_bytes()).model_dump())
            cached += [{"result_id": result_id, "pos": pos_name(p), "keys": ",".join(keys),
                        "values": blocks[p][2]} for p in (None, *POS_VALUES)]
            submission_id += 1
            result_id += 1
            system_id += 1
        session.execute(insert(System), systems)
        session.execute(insert(Submission), subs)
        session.execute(insert(Result), results)
        session.execute(insert(ResultResamples), cached)
        session.commit()
    if session.get_bind().dialect.name == "postgresql":  # ids were given: move the sequences
        for table in ("system", "submission", "result"):
            session.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                 f"(SELECT max(id) FROM {table}))"))
        session.commit()
    return board


def _resampled(group: list[TargetStats], pos: np.ndarray
               ) -> dict[str | None, list[dict[str, np.ndarray]]]:
    """Every metric of each result of ``group`` on the shared resamples of each POS, as
    ``system_values`` computes them one result at a time, in one product per POS (a wide
    product uses the cores' BLAS far better)."""
    out: dict[str | None, list[dict[str, np.ndarray]]] = {}
    width = group[0].rows.shape[1]
    for p in (None, *POS_ORDER):
        mask = slice(None) if p is None else pos == p
        n = int(np.sum(pos == p)) if p is not None else len(pos)
        counts = np.asarray(resample_counts(n, BOOTSTRAP, 0, pos_stream(p)), dtype=np.float64)
        sums = counts @ np.hstack([s.rows[mask] for s in group])
        out[p] = [metrics_from_sums(sums[:, j * width:(j + 1) * width])
                  for j in range(len(group))]
    return out


def _block(stats: TargetStats, pos: str | None, values: dict[str, np.ndarray],
           keys: tuple[str, ...]) -> tuple[dict, dict, bytes]:
    """A POS's metrics, display intervals (first 100 resamples, as ``add_result``) and the
    board's headline values on all resamples as ``store_for_result`` keeps them."""
    metric_keys = list(values)
    low, high = np.percentile(np.vstack([values[k][:100] for k in metric_keys]), [2.5, 97.5],
                              axis=1)
    intervals = {k: [float(lo), float(hi)] for k, lo, hi in zip(metric_keys, low, high,
                                                                strict=True)}
    cached = np.vstack([values[k] for k in keys]).astype(np.float64).tobytes()
    return stats.metrics(pos), intervals, cached
