"""Synthetic scored results for scale benchmarks and ranking tests: per-target statistics
that obey the column meanings (counts within their bounds, a skill per system), written the
way the scoring job writes a real result (the result row and its cached resampled values)."""

from __future__ import annotations

import numpy as np
from sqlmodel import Session, col, select

from leaderboard.models import Board, Result, Split, Submission, SubmissionStatus, Team
from leaderboard.scoring import SCORER_VERSION, TargetStats, resample_counts
from leaderboard.scoring.bootstrap import pos_stream
from leaderboard.scoring.swords.engine import POS_ORDER
from leaderboard.scoring.swords.stats import COLUMN_INDEX, COLUMNS
from leaderboard.services.ranking.metric_info import POS_VALUES, headlines
from leaderboard.services.ranking.resamples import store_for_result

CHECKSUM = "synthetic-split"
SLUG = "swords-v1.1-test-generative"


def synthetic_board(session: Session, *, n_targets: int, slug: str = SLUG,
                    is_default: bool = True) -> Board:
    """A swords-v1.1-test-like benchmark of ``n_targets`` targets and its generative board."""
    bench = Split(name="swords", version="1.1", split="test", checksum=CHECKSUM,
                      hidden=True, n_targets=n_targets, source_bytes=b"-", prepared_bytes=b"-",
                      scorer_version=SCORER_VERSION)
    session.add(bench)
    session.flush()
    board = Board(slug=slug, split_id=bench.id, is_default=is_default, release="full")
    session.add(board)
    session.flush()
    return board


def add_systems(session: Session, board: Board, *, n_systems: int, n_teams: int,
                rng: np.random.Generator, n_targets: int, bootstrap: int,
                team_name: str = "Team {:02d}", system_name: str = "System {:03d}",
                commit_every: int = 200) -> list[Team]:
    """``n_teams`` teams and ``n_systems`` public results of uniform random skill, spread
    over the teams in turn; committed every ``commit_every`` results and at the end."""
    teams = [Team(name=team_name.format(i)) for i in range(n_teams)]
    session.add_all(teams)
    session.flush()
    for i in range(n_systems):
        add_result(session, board, team_id=teams[i % n_teams].id,  # type: ignore[arg-type]
                   name=system_name.format(i), skill=rng.uniform(0.2, 0.9), rng=rng,
                   n_targets=n_targets, bootstrap=bootstrap)
        if i % commit_every == commit_every - 1:
            session.commit()
    session.commit()
    return teams


def target_pos(n_targets: int) -> np.ndarray:
    return np.array([POS_ORDER[i % 4] for i in range(n_targets)], dtype=object)


def synthetic_rows(rng: np.random.Generator, skill: float, n: int) -> np.ndarray:
    """Per-target statistic rows of a system of ``skill`` (0-1) on ``n`` targets."""
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
    rows[:, c["jb_item"]] = 1
    jabbari = [k for k in COLUMNS if k.startswith("jb_") and k != "jb_item"]
    cover = np.clip(rng.normal(0.2 + 0.5 * skill, 0.2, (n, len(jabbari))), 0, 1)
    for i, name in enumerate(jabbari):
        rows[:, c[name]] = cover[:, i]
    return rows


def add_result(session: Session, board: Board, *, team_id: int, name: str, skill: float,
               rng: np.random.Generator, n_targets: int, bootstrap: int, seed: int = 0,
               submission: Submission | None = None, interval_resamples: int = 100) -> Result:
    """A public scored submission (or a new current result of ``submission``) with synthetic
    statistics. Display intervals come from the first ``interval_resamples`` resamples only:
    they are stored numbers here, and seeding stays quick; the ranking uses all of them."""
    pos = target_pos(n_targets)
    stats = TargetStats(synthetic_rows(rng, skill, n_targets), pos, CHECKSUM, seed, bootstrap,
                        SCORER_VERSION)

    def block(p: str | None) -> tuple[dict, dict]:
        n = n_targets if p is None else int(np.sum(pos == p))
        counts = resample_counts(n, bootstrap, seed, pos_stream(p))[:interval_resamples]
        values = stats.resampled(counts, p)
        return stats.metrics(p), {k: np.percentile(v, [2.5, 97.5]).tolist()
                                  for k, v in values.items()}

    metrics, intervals = block(None)
    by_pos = {p: dict(zip(("metrics", "intervals"), block(p), strict=True)) for p in POS_ORDER}
    if submission is None:
        submission = Submission(team_id=team_id, split_id=board.split_id,
                                board_id=board.id, system_name=name, file_bytes=b"{}",
                                file_sha256="0" * 64, status=SubmissionStatus.SCORED,
                                is_public=True, scorer_version=SCORER_VERSION)
        session.add(submission)
        session.flush()
    else:
        for old in session.exec(select(Result).where(Result.submission_id == submission.id,
                                                     col(Result.is_current).is_(True))):
            old.is_current = False
            session.add(old)
    result = Result(submission_id=submission.id, scorer_version=SCORER_VERSION,
                    split_checksum=CHECKSUM, bootstrap_seed=seed, bootstrap_samples=bootstrap,
                    metrics=metrics, intervals=intervals, by_pos=by_pos,
                    target_stats=stats.to_bytes())
    session.add(result)
    session.flush()
    store_for_result(session, result.id, stats, headlines(board.track),  # type: ignore[arg-type]
                     (None, *POS_VALUES))
    return result
