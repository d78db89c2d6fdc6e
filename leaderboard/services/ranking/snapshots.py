"""Leaderboard snapshots: ranks, intervals and ties computed once, read by every page load.

``refresh_snapshot`` runs when a submission is scored, published, hidden or unhidden and when
reference rows change: it loads the private per-target statistics of every public submission,
computes rank intervals, conservative ranks and neighbour ties on the shared bootstrap
resamples, and stores the public aggregates as JSON in ``LeaderboardSnapshot.data``. Page
loads read only that JSON, through :mod:`leaderboard.services.ranking.snapshot_reader` (cached per
process by snapshot id), and never touch target statistics.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

import numpy as np
from sqlalchemy import and_, func, or_
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from leaderboard.models import (
    Benchmark,
    Board,
    LeaderboardSnapshot,
    ReferenceSystem,
    ReportedRow,
    Result,
    Submission,
    SubmissionStatus,
    Team,
    Track,
    utcnow,
)
from leaderboard.scoring import SCORER_VERSION, TargetStats, resample_counts
from leaderboard.scoring.bootstrap import pos_stream
from leaderboard.scoring.significance import conservative_ranks, p_beats_rows
from leaderboard.scoring.stats import metrics_from_sums, resampled_sums
from leaderboard.services.catalog.benchmarks import base_split
from leaderboard.services.catalog.boards import benchmark_title, board_title
from leaderboard.services.ranking import ranking_stats as rs
from leaderboard.services.ranking.ladder import NOT_HELD
from leaderboard.services.ranking.metric_info import (
    DISPLAYED,
    HEADLINES,
    POS_VALUES,
    displayed,
    headlines,
    view_set,
    views_for,
)
from leaderboard.services.ranking.systems import coverage_of, signature_of

log = logging.getLogger(__name__)
# A ranking needs none of the stored files (split, upload, reference file: megabytes each);
# they are left unread, else every refresh would read all of them into the worker.
#: 3: best-per-team blocks and ties of the board's track (GAP on a ranking board).
#: 4: reference rows of the board's split only (``references_elsewhere`` names the others).
#: 5: each system's coverage (answered / empty / missing targets).
#: 6: each system's signature and the board's (scorer version, split checksum, seed, B).
SNAPSHOT_FORMAT = 6
PAIRWISE_TOP = 30
KEEP_SNAPSHOTS = 2
#: Systems per matrix product: 16 x 31 columns keep BLAS fast and the transient small
#: (at 100, a refresh of 120 public systems peaked 46 MB above its 22 MB result).
RESAMPLE_CHUNK = 16


def public_submissions(session: Session,
                       board_id: int) -> list[tuple[Submission, Result, Team]]:
    """Public, non-hidden submissions of enabled teams that have a current result.

    Selected by the result, not by status: a submission re-queued for re-scoring (queued or
    running again) keeps its previous numbers on the ranking until its new result replaces
    them. Only ``invalid`` (the new scorer rejects the file) takes it off.
    """
    stmt = (
        select(Submission, Result, Team)
        .join(Result, col(Result.submission_id) == col(Submission.id))
        .join(Team, col(Team.id) == col(Submission.team_id))
        .where(Submission.board_id == board_id, *_SHOWN)
        .order_by(col(Submission.created_at), col(Submission.id))
        .options(defer(Submission.file_bytes))
    )
    return list(session.exec(stmt).all())


#: What puts a submission on its board's ranking (see :func:`public_submissions`).
_SHOWN = (Submission.status != SubmissionStatus.INVALID, NOT_HELD,
          col(Submission.is_public).is_(True), col(Submission.hidden).is_(False),
          col(Result.is_current).is_(True), col(Team.disabled).is_(False))


def public_counts(session: Session) -> dict[int, int]:
    """Board id -> how many submissions its ranking shows (boards with none are absent)."""
    stmt = (select(Submission.board_id, func.count(col(Submission.id)))
            .join(Result, col(Result.submission_id) == col(Submission.id))
            .join(Team, col(Team.id) == col(Submission.team_id))
            .where(*_SHOWN).group_by(col(Submission.board_id)))
    return {int(board_id): int(n) for board_id, n in session.exec(stmt).all()}


def reference_rows(session: Session, board: Board,
                   benchmark: Benchmark) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Reference systems of the board's split, merged by name, and those of the same
    benchmark name/version scored on another split (not shown; the board names them).

    A reference row belongs to the split it was scored on, or to the split it is a subset of
    (Humans on ``test-subset`` belongs to ``test``: :func:`base_split`). A dev board never
    shows rows scored on test: "% Humans" and the API would compare dev systems with test
    numbers. Humans comes as several rows of one name, each providing the keys in
    ``metric_keys``. A board shows the rows made for its track; a ranking board also shows
    Humans (their GAP is an upper reference there too), never the oracle lists, whose GAP is
    a generative one.
    """
    if board.track == Track.RANKING:
        shown = or_(col(ReferenceSystem.track) == Track.RANKING,
                    and_(col(ReferenceSystem.track).is_(None), ReferenceSystem.kind == "human"))
    else:
        shown = or_(col(ReferenceSystem.track).is_(None), ReferenceSystem.track == board.track)
    stmt = (select(ReferenceSystem, Benchmark)
            .join(Benchmark, col(Benchmark.id) == col(ReferenceSystem.benchmark_id))
            .where(Benchmark.name == benchmark.name, Benchmark.version == benchmark.version,
                   shown, or_(ReferenceSystem.kind != "random",
                              ReferenceSystem.benchmark_id == benchmark.id))
            .order_by(col(ReferenceSystem.id))
            .options(defer(ReferenceSystem.file_bytes), *Benchmark.without_files()))
    merged: dict[str, dict[str, Any]] = {}
    elsewhere: dict[str, dict[str, Any]] = {}
    for ref, bench in session.exec(stmt).all():
        if base_split(bench.split) != benchmark.split:
            elsewhere.setdefault(ref.name, {"name": ref.name, "kind": ref.kind,
                                            "split": bench.split, "n_targets": bench.n_targets})
            continue
        row = merged.setdefault(ref.name, {
            "name": ref.name, "kind": ref.kind, "note": ref.note, "split": bench.split,
            "n_targets": bench.n_targets, "subset": bench.id != benchmark.id,
            "scorer_version": ref.scorer_version, "metrics": {}, "intervals": {}, "by_pos": {}})
        keys = ref.metric_keys if ref.metric_keys is not None else list(ref.metrics)
        for key in keys:
            if key in ref.metrics:
                row["metrics"][key] = ref.metrics[key]
            if key in (ref.intervals or {}):
                row["intervals"][key] = ref.intervals[key]
        for pos, block in (ref.by_pos or {}).items():
            target = row["by_pos"].setdefault(pos, {"metrics": {}, "intervals": {}})
            for key in keys:
                if key in block.get("metrics", {}):
                    target["metrics"][key] = block["metrics"][key]
                if key in block.get("intervals", {}):
                    target["intervals"][key] = block["intervals"][key]
        row["note"] = row["note"] or ref.note
    kinds = {"human": 0, "oracle": 1, "random": 2}

    def order(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return sorted(rows, key=lambda r: (kinds.get(r["kind"], 2), r["name"]))

    return (order(list(merged.values())),
            order([r for name, r in elsewhere.items() if name not in merged]))


def _load_stats(results: list[Result]) -> list[TargetStats | None]:
    stats: list[TargetStats | None] = []
    for result in results:
        try:
            stats.append(TargetStats.from_bytes(result.target_stats))
        except Exception:  # an unreadable blob must not take the whole ranking down
            log.exception("unreadable target statistics for result %s", result.id)
            stats.append(None)
    return stats


def _pos_block(points: dict[str, np.ndarray], resampled: dict[str, np.ndarray] | None,
               members: list[int], subset: list[int], tiebreak: list,
               tie_keys: tuple[str, ...] = DISPLAYED,
               rank_keys: tuple[str, ...] = HEADLINES) -> dict[str, Any]:
    """Ranks (``rank_keys``) and tie p-values (``tie_keys``) on one POS over the systems
    ``subset`` (global indices, in snapshot order); lists are indexed like ``subset``.

    ``members`` are the global indices that have rows in ``resampled`` (same resamples)."""
    k = len(subset)
    member_row = {g: n for n, g in enumerate(members)}
    local = {n: member_row[g] for n, g in enumerate(subset) if g in member_row}
    sub_tiebreak = [tiebreak[g] for g in subset]
    index = np.array(subset, dtype=int)
    block: dict[str, Any] = {"ties": {}, "ranks": {}}
    for key in tie_keys:
        p: list[float | None] = [None] * k
        if resampled is not None and k:
            order = rs.order_by_points(points[key][index], sub_tiebreak)
            p = rs.neighbour_p_values(resampled[key], order, local)
        block["ties"][key] = p
    shown = sorted(local)
    rows = [local[n] for n in shown]
    for key in rank_keys:
        sub_points = points[key][index] if k else np.zeros(0)
        rank = rs.point_ranks(sub_points).tolist()
        lo: list[int | None] = [None] * k
        hi: list[int | None] = [None] * k
        cons: list[int | None] = [None] * k
        if resampled is not None and shown:
            values = resampled[key][rows]
            r_lo, r_hi = rs.rank_interval_bounds(values)
            c = conservative_ranks(values, sub_points[shown])
            for n, local_n in enumerate(shown):
                lo[local_n], hi[local_n], cons[local_n] = int(r_lo[n]), int(r_hi[n]), int(c[n])
        block["ranks"][key] = {"rank": rank, "lo": lo, "hi": hi, "conservative": cons}
    return block


def _columns_of(headline: str, track: str) -> tuple[str, ...]:
    """Metric columns of every view of ``track`` ranked on ``headline`` (the ones that need
    tie marks)."""
    return tuple(dict.fromkeys(k for v in views_for(track).values() if v.headline == headline
                               for k in v.columns))


def best_per_team(systems: list[dict[str, Any]], points: np.ndarray, tiebreak: list) -> list[int]:
    """Global indices of each team's best system on ``points`` (earliest wins a tie), in
    snapshot order."""
    best: dict[int, int] = {}
    for i, system in enumerate(systems):
        j = best.get(system["team_id"])
        if j is None or (-points[i], tiebreak[i]) < (-points[j], tiebreak[j]):
            best[system["team_id"]] = i
    return sorted(best.values())


def _pairwise(systems: list[dict[str, Any]], points: dict[str, np.ndarray],
              resampled: dict[str, np.ndarray] | None, members: list[int],
              keys: tuple[str, ...] = DISPLAYED) -> dict[str, Any]:
    """P(row beats column) among the top :data:`PAIRWISE_TOP` systems of every displayed
    metric ``keys`` (all targets), for the pairwise view."""
    out: dict[str, Any] = {}
    if resampled is None or not members:
        return out
    member_row = {g: n for n, g in enumerate(members)}
    for key in keys:
        ranked = sorted(members, key=lambda g: (-points[key][g], systems[g]["date"],
                                                systems[g]["id"]))
        top = [g for g in ranked if np.isfinite(points[key][g])][:PAIRWISE_TOP]
        values = resampled[key][[member_row[g] for g in top]]
        matrix = p_beats_rows(values[:, None, :], values[None, :, :])
        out[key] = {"ids": [systems[g]["id"] for g in top],
                    "p_beats": np.round(matrix, 4).tolist()}
    return out


def _resample_group(stats: list[TargetStats | None], pos: str | None
                    ) -> tuple[list[int], dict[str, np.ndarray] | None]:
    """Members sharing the most common resampling signature, and their (k, B) values."""
    sig = [None if s is None else (s.split_checksum, s.seed, s.bootstrap, s.rows.shape[0])
           for s in stats]
    common = Counter(x for x in sig if x is not None).most_common(1)
    if not common or common[0][0][2] <= 0:
        return [], None
    key = common[0][0]
    members = [i for i, x in enumerate(sig) if x == key]
    first = stats[members[0]]
    assert first is not None
    n = first.rows.shape[0] if pos is None else int(np.sum(first.pos == pos))
    if n == 0:
        return [], None
    counts = resample_counts(n, first.bootstrap, first.seed, pos_stream(pos))
    collected = {k: np.empty((len(members), counts.shape[0])) for k in DISPLAYED}
    # One matrix product per chunk of systems instead of one per system: BLAS is far faster
    # on a wide right-hand side, and chunks bound the memory (B × chunk × columns floats).
    for start in range(0, len(members), RESAMPLE_CHUNK):
        chunk = [stats[i] for i in members[start:start + RESAMPLE_CHUNK]]
        blocks = [s.rows if pos is None else s.rows[s.pos == pos] for s in chunk]  # type: ignore[union-attr]
        width = blocks[0].shape[1]
        sums = resampled_sums(counts, np.hstack(blocks)).reshape(counts.shape[0], len(chunk),
                                                                 width)
        values = metrics_from_sums(sums.transpose(1, 0, 2))
        for k in DISPLAYED:
            collected[k][start:start + len(chunk)] = values[k]
    return members, collected


def reported_rows(session: Session, board_id: int) -> list[dict[str, Any]]:
    """Rows with a publication's numbers (never re-scored, never ranked), in the order added."""
    rows = session.exec(select(ReportedRow).where(ReportedRow.board_id == board_id)
                        .order_by(col(ReportedRow.id))).all()
    return [{"name": r.name, "metrics": dict(r.metrics or {}), "citation": r.citation,
             "url": r.url, "source": r.source, "note": r.note,
             "benchmark": {"name": r.benchmark_name, "version": r.benchmark_version,
                           "split": r.benchmark_split}} for r in rows]


def _pos_targets(stats: list) -> dict[str, int]:
    """Scored targets per POS (the matrix's column heads), from any result's statistics:
    every result of a board has one row per scored target of its split."""
    first = next((t for t in stats if t is not None), None)
    if first is None:
        return {}
    names, counts = np.unique(first.pos, return_counts=True)
    return {str(n): int(c) for n, c in zip(names, counts, strict=True)}


def compute_snapshot_data(session: Session, board: Board,
                          benchmark: Benchmark) -> dict[str, Any]:
    """Everything the public pages show about a board, as JSON-ready data."""
    rows = public_submissions(session, board.id)  # type: ignore[arg-type]
    systems = []
    for sub, result, team in rows:
        systems.append({
            "id": sub.id, "system": sub.system_name, "team": team.name, "team_id": team.id,
            "date": sub.created_at.isoformat(), "description": sub.description,
            "paper_url": sub.paper_url, "code_url": sub.code_url,
            "file_sha256": sub.file_sha256, "scorer_version": result.scorer_version,
            "metrics": result.metrics, "intervals": result.intervals, "by_pos": result.by_pos,
            "coverage": coverage_of(result.counts), "signature": signature_of(result),
        })
    stats = _load_stats([r for _, r, _ in rows])
    m = len(systems)
    tiebreak = [(s["date"], s["id"]) for s in systems]
    views = view_set(board.track, benchmark.name)
    shown_keys, ranked_on = displayed(views), headlines(views)
    per_pos: dict[str, Any] = {}
    best: dict[str, Any] = {}
    pairwise: dict[str, Any] = {}
    overall: dict[str, np.ndarray] = {}
    for pos in (None, *POS_VALUES):
        name = pos or "all"
        def value(s: dict, k: str, pos: str | None = pos) -> float:
            src = s["metrics"] if pos is None else s["by_pos"].get(pos, {}).get("metrics", {})
            v = src.get(k)
            return float("-inf") if v is None else float(v)
        points = {k: np.array([value(s, k) for s in systems], dtype=float) for k in DISPLAYED}
        if pos is None:
            overall = points
        members, resampled = _resample_group(stats, pos) if m else ([], None)
        per_pos[name] = _pos_block(points, resampled, members, list(range(m)), tiebreak,
                                   tie_keys=shown_keys, rank_keys=ranked_on)
        for headline in ranked_on:
            subset = best_per_team(systems, overall[headline], tiebreak)
            entry = best.setdefault(headline, {"members": subset, "stats": {}})
            entry["stats"][name] = _pos_block(points, resampled, members, subset, tiebreak,
                                              tie_keys=_columns_of(headline, views),
                                              rank_keys=(headline,))
        if pos is None:
            pairwise = _pairwise(systems, points, resampled, members, shown_keys)
    references, elsewhere = reference_rows(session, board, benchmark)
    resampling = Counter((s["signature"]["seed"], s["signature"]["bootstrap"])
                         for s in systems).most_common(1)
    return {
        "format": SNAPSHOT_FORMAT,
        "generated_at": utcnow().isoformat(),
        "benchmark": {"id": benchmark.id, "name": benchmark.name, "version": benchmark.version,
                      "split": benchmark.split, "n_targets": benchmark.n_targets,
                      "checksum": benchmark.checksum, "title": benchmark_title(benchmark),
                      "pos_targets": _pos_targets(stats)},
        "signature": {"scorer_version": SCORER_VERSION, "split_checksum": benchmark.checksum,
                      "seed": resampling[0][0][0] if resampling else None,
                      "bootstrap": resampling[0][0][1] if resampling else None},
        "board": {"id": board.id, "slug": board.slug, "track": board.track, "views": views,
                  "phase": board.phase, "title": board_title(board, benchmark)},
        "systems": systems,
        "stats": per_pos,
        "best": best,
        "pairwise": pairwise,
        "references": references,
        "references_elsewhere": elsewhere,
        "reported": reported_rows(session, board.id),  # type: ignore[arg-type]
    }


def refresh_snapshot(*, session: Session, board_id: int) -> LeaderboardSnapshot:
    """Recompute the public ranking of a board and store it as a new snapshot.

    Called after a result is stored and on publish/hide/unhide/reference changes. Older
    snapshots of the board beyond the last few are deleted. The caller commits.
    """
    board = session.get(Board, board_id)
    if board is None:
        raise ValueError(f"no leaderboard {board_id}")
    benchmark = session.get(Benchmark, board.benchmark_id, options=Benchmark.without_files())
    snapshot = LeaderboardSnapshot(benchmark_id=board.benchmark_id, board_id=board_id,
                                   data=compute_snapshot_data(session, board, benchmark))
    session.add(snapshot)
    session.flush()
    old = session.exec(select(LeaderboardSnapshot)
                       .where(LeaderboardSnapshot.board_id == board_id)
                       .order_by(col(LeaderboardSnapshot.id).desc())
                       .offset(KEEP_SNAPSHOTS)).all()
    for row in old:
        session.delete(row)
    session.flush()
    return snapshot



def refresh_boards_of(session: Session, benchmark: Benchmark) -> list[Board]:
    """Refresh every board of the split's benchmark name and version (reference rows of any
    of its splits are shown on all of them); the caller commits."""
    boards = session.exec(select(Board)
                          .join(Benchmark, col(Benchmark.id) == col(Board.benchmark_id))
                          .where(Benchmark.name == benchmark.name,
                                 Benchmark.version == benchmark.version)).all()
    for board in boards:
        refresh_snapshot(session=session, board_id=board.id)  # type: ignore[arg-type]
    return list(boards)
