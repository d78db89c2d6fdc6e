"""Ranking page speed with 1,000 public scored submissions, on one leaderboard or several.

Seeds a fresh SQLite database with 1,000 public submissions whose results carry synthetic but
plausible per-target statistics (762 targets, like swords-v1.1 test; 1,000 shared bootstrap
resamples), spread evenly over ``--boards`` leaderboards, times ``refresh_snapshot`` of each,
then times ``GET /`` (and a few other public pages) with the Flask test client, on the default
leaderboard and, with several, on another one too.

    .venv/bin/python benchmarks/bench_ranking.py [--systems 1000] [--boards 1] [--requests 200]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from sqlmodel import Session

from leaderboard import create_app
from leaderboard.db import create_all
from leaderboard.models import Benchmark, Board, Result, Submission, SubmissionStatus, Team
from leaderboard.scoring import SCORER_VERSION, TargetStats, resample_counts
from leaderboard.scoring.engine import POS_ORDER
from leaderboard.scoring.stats import COLUMN_INDEX, COLUMNS
from leaderboard.services.ranking.snapshots import refresh_snapshot

N_TARGETS, BOOTSTRAP, SEED, CHECKSUM = 762, 1000, 0, "synthetic-split"


def synthetic_rows(rng: np.random.Generator, skill: float) -> np.ndarray:
    """Per-target statistic rows that obey the column meanings (counts within their bounds)."""
    n = N_TARGETS
    rows = np.zeros((n, len(COLUMNS)))
    c = COLUMN_INDEX
    gold_a = rng.poisson(4, n) + 1
    gold_c = gold_a + rng.poisson(10, n)
    rows[:, c["gold_a"]], rows[:, c["gold_c"]] = gold_a, gold_c
    rows[:, c["gold_a_k"]], rows[:, c["gold_c_k"]] = np.minimum(gold_a, 10), np.minimum(gold_c, 10)
    rows[:, c["top_strict"]] = 10
    rows[:, c["top_lenient"]] = np.maximum(rng.binomial(10, 0.3 + 0.5 * skill, n), 1)
    for mode, top in (("strict", rows[:, c["top_strict"]]), ("lenient", rows[:, c["top_lenient"]])):
        hit_c = rng.binomial(np.minimum(top, gold_c).astype(int), min(0.95, 0.3 + 0.6 * skill))
        rows[:, c[f"hit_{mode}_c"]] = hit_c
        rows[:, c[f"hit_{mode}_a"]] = rng.binomial(np.minimum(hit_c, gold_a).astype(int), skill)
    rows[:, c["top1_strict"]] = 1
    rows[:, c["hit1_strict_c"]] = rng.random(n) < 0.4 + 0.5 * skill
    for key in ("gap", "gap_rat"):
        rows[:, c[key]] = np.clip(rng.normal(0.3 + 0.4 * skill, 0.15, n), 0, 1)
        rows[:, c[f"{key}_valid"]] = 1
    rows[:, c["se_item"]] = rows[:, c["se_attempted"]] = 1
    rows[:, c["best_credit"]] = rng.random(n) * 0.3 * skill
    rows[:, c["oot_credit"]] = rng.random(n) * 0.8 * skill
    mode = rng.random(n) < 0.7
    rows[:, c["se_mode"]] = rows[:, c["se_mode_attempted"]] = mode
    rows[:, c["best_mode_hit"]] = mode & (rng.random(n) < 0.4 * skill)
    rows[:, c["oot_mode_hit"]] = mode & (rng.random(n) < 0.8 * skill)
    return rows


def seed(session: Session, n_systems: int, n_boards: int = 1) -> list[int]:
    """``n_systems`` public scored submissions of 50 teams with synthetic results, dealt
    round-robin over ``n_boards`` boards of one split; returns the board ids, default first."""
    rng = np.random.default_rng(42)
    bench = Benchmark(name="swords", version="1.1", split="test", checksum=CHECKSUM,
                      hidden=True, n_targets=N_TARGETS, source_bytes=b"-",
                      prepared_bytes=b"-", scorer_version=SCORER_VERSION)
    session.add(bench)
    session.flush()
    boards = [Board(slug=f"swords-v1.1-test-generative{'' if k == 0 else f'-{k}'}",
                    benchmark_id=bench.id, is_default=k == 0) for k in range(n_boards)]
    session.add_all(boards)
    teams = [Team(name=f"Team {i:02d}") for i in range(50)]
    session.add_all(teams)
    session.flush()
    pos = np.array([POS_ORDER[i % 4] for i in range(N_TARGETS)], dtype=object)
    counts = {p: resample_counts(int(np.sum(pos == p)) if p else N_TARGETS, BOOTSTRAP, SEED,
                                 i) for i, p in enumerate((None, *POS_ORDER))}
    for i in range(n_systems):
        stats = TargetStats(synthetic_rows(rng, rng.uniform(0.2, 0.9)), pos, CHECKSUM, SEED,
                            BOOTSTRAP, SCORER_VERSION)

        def block(p: str | None, stats: TargetStats = stats) -> tuple[dict, dict]:
            # Display intervals from the first 100 resamples only: they are just stored
            # numbers here, and seeding stays quick; the snapshot uses all resamples.
            values = stats.resampled(counts[p][:100], p)
            return stats.metrics(p), {k: np.percentile(v, [2.5, 97.5]).tolist()
                                      for k, v in values.items()}

        metrics, intervals = block(None)
        by_pos = {p: dict(zip(("metrics", "intervals"), block(p), strict=True))
                  for p in POS_ORDER}
        sub = Submission(team_id=teams[i % 50].id, benchmark_id=bench.id,
                         board_id=boards[i % n_boards].id,
                         system_name=f"System {i:04d}", file_bytes=b"{}", file_sha256="0" * 64,
                         status=SubmissionStatus.SCORED, is_public=True,
                         scorer_version=SCORER_VERSION)
        session.add(sub)
        session.flush()
        session.add(Result(submission_id=sub.id, scorer_version=SCORER_VERSION,
                           split_checksum=CHECKSUM, metrics=metrics, intervals=intervals,
                           by_pos=by_pos, target_stats=stats.to_bytes()))
    session.commit()
    return [board.id for board in boards]  # type: ignore[misc]


def _time_parts() -> dict[str, float]:
    """Wrap the snapshot's block builders to report where refresh time goes."""
    from leaderboard.services.ranking import snapshots

    spent = {"all": 0.0, "best": 0.0, "pairwise": 0.0}
    pos_block, pairwise = snapshots._pos_block, snapshots._pairwise

    def timed_block(*args, **kwargs):
        start = time.perf_counter()
        try:
            return pos_block(*args, **kwargs)
        finally:
            # The all-entries block ranks on every headline; a best-per-team block on one.
            best = len(kwargs.get("rank_keys", ())) == 1
            spent["best" if best else "all"] += time.perf_counter() - start

    def timed_pairwise(*args, **kwargs):
        start = time.perf_counter()
        try:
            return pairwise(*args, **kwargs)
        finally:
            spent["pairwise"] += time.perf_counter() - start

    snapshots._pos_block, snapshots._pairwise = timed_block, timed_pairwise
    return spent


def timed(client, url: str, n: int) -> tuple[float, float, float]:
    """First GET (builds and caches this query's table), then p50 and p95 of ``n`` GETs, ms."""
    start = time.perf_counter()
    assert client.get(url).status_code == 200
    first = (time.perf_counter() - start) * 1000
    times = []
    for _ in range(n):
        start = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200
    times.sort()
    return first, statistics.median(times), times[int(0.95 * len(times)) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=1000)
    parser.add_argument("--boards", type=int, default=1,
                        help="Leaderboards to spread the systems over (e.g. 4 x 250)")
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"INSTANCE_PATH": str(Path(tmp) / "instance"),
                          "DATABASE_URL": f"sqlite:///{tmp}/bench.db", "REDIS_URL": "",
                          "SECRET_KEY": "bench", "RATELIMIT_ENABLED": False})
        engine = app.extensions["db_engine"]
        create_all(engine)
        import logging
        logging.getLogger("leaderboard.access").disabled = True
        with app.app_context(), Session(engine, expire_on_commit=False) as session:
            start = time.perf_counter()
            board_ids = seed(session, args.systems, args.boards)
            print(f"seeded {args.systems} systems on {args.boards} leaderboard(s) in "
                  f"{time.perf_counter() - start:.1f} s")
            spent = _time_parts()
            sizes, took = [], []
            for board_id in board_ids:
                start = time.perf_counter()
                snapshot = refresh_snapshot(session=session, board_id=board_id)
                session.commit()
                took.append(time.perf_counter() - start)
                sizes.append(len(str(snapshot.data)))
            print(f"refresh_snapshot: {sum(took):.2f} s for {len(board_ids)} leaderboard(s) "
                  f"(each {', '.join(f'{t:.2f}' for t in took)} s), of which "
                  f"all-entries blocks {spent['all']:.2f} s, best-per-team blocks "
                  f"{spent['best']:.2f} s, pairwise top-30 {spent['pairwise']:.2f} s")
        print(f"snapshot size: {sum(sizes) / 1e6:.1f} MB of JSON "
              f"({', '.join(f'{s / 1e6:.1f}' for s in sizes)})")
        client = app.test_client()
        start = time.perf_counter()
        assert client.get("/?sort=date").status_code == 200
        elapsed = (time.perf_counter() - start) * 1000
        print(f"first page load (reads the snapshot): {elapsed:.0f} ms")
        urls = ["/", "/?entries=all", "/?view=all", "/?pos=VERB&sort=gap",
                "/?q=Team+07", "/leaderboard.csv", "/significance", "/history",
                "/api/v1/significance", "/api/v1/leaderboards"]
        if args.boards > 1:
            other = "leaderboard=swords-v1.1-test-generative-1"
            urls += [f"/?{other}", f"/?{other}&entries=all", f"/significance?{other}",
                     "/api/v1/leaderboards/swords-v1.1-test-generative-1/ranking"]
        for url in urls:
            n = args.requests if url == "/" else max(20, args.requests // 10)
            first, p50, p95 = timed(client, url, n)
            print(f"GET {url:<22} first {first:6.1f} ms, then n={n:<4} "
                  f"p50 {p50:6.1f} ms  p95 {p95:6.1f} ms")
        engine.dispose()


if __name__ == "__main__":
    main()
