"""Leaderboard snapshots: ranks, intervals and ties computed once, read by every page load.

``refresh_snapshot`` runs when a submission is scored, published, hidden or unhidden and when
reference rows change: from the last snapshot and its ranking state it compares again only
the systems that changed (a full rebuild compares every pair; both give the same snapshot)
and stores the public aggregates as JSON in ``LeaderboardSnapshot.data`` (the blocks:
:mod:`leaderboard.services.ranking.blocks`). Page loads read only that JSON, through
:mod:`leaderboard.services.ranking.snapshot_reader` (cached per process by snapshot id), and
never touch target statistics.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import and_, delete, func, not_, or_
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from leaderboard.models import (
    Board,
    LeaderboardSnapshot,
    RankingState,
    ReferenceSystem,
    ReportedRow,
    Result,
    Split,
    Submission,
    SubmissionStatus,
    System,
    Team,
    Track,
    utcnow,
)
from leaderboard.scoring import SCORER_VERSION
from leaderboard.scoring.families import family_for
from leaderboard.scoring.printing import EXACT
from leaderboard.scoring.rank_state import RankState
from leaderboard.services.catalog.benchmarks import base_split
from leaderboard.services.catalog.boards import benchmark_title, board_title, view_set
from leaderboard.services.ranking import ranking_stats as rs
from leaderboard.services.ranking.anonymity import masked_entry
from leaderboard.services.ranking.blocks import (
    BlockBuilder,
    PreviousPairs,
    best_per_team,
    merge_needs,
    pairwise_matrices,
    pairwise_needs,
    points_of,
    small_change,
)
from leaderboard.services.ranking.board_state import (
    BoardState,
    load_board_state,
    save_board_state,
)
from leaderboard.services.ranking.ladder import NOT_HELD
from leaderboard.services.ranking.metric_info import (
    POS_VALUES,
    displayed,
    headlines,
    views_for,
)
from leaderboard.services.ranking.neighbours import neighbour_bands
from leaderboard.services.ranking.resamples import Resamples
from leaderboard.services.ranking.set_apart import apart_indices, repeat_facts
from leaderboard.services.ranking.systems import coverage_of, signature_of

log = logging.getLogger(__name__)
# A ranking needs none of the stored files (split, upload, reference file: megabytes each);
# they are left unread, else every refresh would read all of them into the worker.
#: 3: best-per-team blocks and ties of the board's track (GAP on a ranking board).
#: 4: reference rows of the board's split only (``references_elsewhere`` names the others).
#: 5: each system's coverage (answered / empty / missing targets).
#: 6: each system's signature and the board's (scorer version, split checksum, seed, B).
#: 7: each system's result id (incremental refresh; pairs and blocks are reused by it),
#:    and its numbers of the board's shown metrics only, to four decimals.
#: 8: ``neighbours``: each ranked system against the 29 below it per headline metric.
#: 9: LS07/CoInCo generative boards rank by recall (best R, oot R, mode R views).
#: 10: each system's ``flags`` and ``items_with_duplicates``; a system set apart on a metric
#:     (:mod:`.set_apart`) has no rank, tie, pair or neighbour band on it.
#: 11: numbers to six decimals, so each prints as its full value does.
SNAPSHOT_FORMAT = 11
KEEP_SNAPSHOTS = 2


def public_submissions(session: Session, board_id: int, *,
                       numbers: bool = True) -> list[tuple[Submission, Result, Team]]:
    """Public, non-hidden submissions of enabled teams that have a current result.

    Selected by the result, not by status: a submission re-queued for re-scoring (queued or
    running again) keeps its previous numbers on the ranking until its new result replaces
    them. Only ``invalid`` (the new scorer rejects the file) takes it off. Without
    ``numbers``, a result's metrics, intervals, per-POS numbers and counts load when first
    read (an incremental refresh reads them for new results only).
    """
    stmt = (
        select(Submission, Result, Team)
        .join(Result, col(Result.submission_id) == col(Submission.id))
        .join(Team, col(Team.id) == col(Submission.team_id))
        .where(Submission.board_id == board_id, *_SHOWN)
        .order_by(col(Submission.created_at), col(Submission.id))
        .options(defer(Submission.file_bytes), defer(Result.target_stats),
                 defer(Submission.errors), defer(Submission.warnings),
                 defer(Submission.release_detail),
                 *([] if numbers else [defer(Result.metrics), defer(Result.intervals),
                                       defer(Result.by_pos), defer(Result.counts)]))
    )
    return list(session.exec(stmt).all())


#: Who may be seen: a submission on its board's ranking once it has a current result.
_VISIBLE = (Submission.status != SubmissionStatus.INVALID, NOT_HELD,
            col(Submission.is_public).is_(True), col(Submission.hidden).is_(False),
            col(Team.disabled).is_(False))
#: What puts a submission on its board's ranking (see :func:`public_submissions`).
_SHOWN = (*_VISIBLE, col(Result.is_current).is_(True))


def withdrawn_ids(session: Session, board_id: int) -> frozenset[int]:
    """Submissions of the board that its ranking must not show now, whatever their result
    (the read filter: :func:`~leaderboard.services.ranking.snapshot_reader.latest_snapshot`
    keeps those its snapshot lists). One index range of the board's submissions."""
    stmt = (select(Submission.id)
            .join(Team, col(Team.id) == col(Submission.team_id))
            .where(Submission.board_id == board_id, not_(and_(*_VISIBLE))))
    return frozenset(int(i) for i in session.exec(stmt).all())


#: Per board: (snapshot id, creation time) -> the (submission, result) pairs it lists.
_LISTED: dict[int, tuple[tuple[int, str], frozenset[tuple[int, int]]]] = {}


def boards_behind(session: Session) -> list[int]:
    """Boards whose latest snapshot does not list exactly their public submissions with
    their current results (a refresh asked for and lost with Redis's queue, or one still
    running), and boards with submissions but no snapshot. Each snapshot is read once per
    process."""
    public: dict[int, set[tuple[int, int]]] = {}
    stmt = (select(Submission.board_id, Submission.id, Result.id)
            .join(Result, col(Result.submission_id) == col(Submission.id))
            .join(Team, col(Team.id) == col(Submission.team_id)).where(*_SHOWN))
    for board_id, sub_id, result_id in session.exec(stmt).all():
        public.setdefault(int(board_id), set()).add((int(sub_id), int(result_id)))
    latest = session.exec(select(LeaderboardSnapshot.board_id,
                                 func.max(col(LeaderboardSnapshot.id)))
                          .group_by(col(LeaderboardSnapshot.board_id))).all()
    newest = {int(board): int(snapshot) for board, snapshot in latest}
    behind = sorted(board for board in public if board not in newest)
    for board_id, snapshot_id in sorted(newest.items()):
        if _listed(session, board_id, snapshot_id) != public.get(board_id, set()):
            behind.append(board_id)
    return sorted(behind)


def _listed(session: Session, board_id: int, snapshot_id: int) -> frozenset[tuple[int, int]]:
    created = str(session.exec(select(LeaderboardSnapshot.created_at)
                               .where(LeaderboardSnapshot.id == snapshot_id)).one())
    known = _LISTED.get(board_id)
    if known is None or known[0] != (snapshot_id, created):
        data = session.exec(select(LeaderboardSnapshot.data)
                            .where(LeaderboardSnapshot.id == snapshot_id)).one()
        listed = frozenset((int(s["id"]), int(s["result_id"]))
                           for s in (data or {}).get("systems", []))
        known = _LISTED[board_id] = ((snapshot_id, created), listed)
    return known[1]


def public_counts(session: Session) -> dict[int, int]:
    """Board id -> how many submissions its ranking shows (boards with none are absent)."""
    stmt = (select(Submission.board_id, func.count(col(Submission.id)))
            .join(Result, col(Result.submission_id) == col(Submission.id))
            .join(Team, col(Team.id) == col(Submission.team_id))
            .where(*_SHOWN).group_by(col(Submission.board_id)))
    return {int(board_id): int(n) for board_id, n in session.exec(stmt).all()}


def reference_rows(session: Session, board: Board,
                   benchmark: Split) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
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
    stmt = (select(ReferenceSystem, Split)
            .join(Split, col(Split.id) == col(ReferenceSystem.split_id))
            .where(Split.name == benchmark.name, Split.version == benchmark.version,
                   shown, or_(ReferenceSystem.kind != "random",
                              ReferenceSystem.split_id == benchmark.id))
            .order_by(col(ReferenceSystem.id))
            .options(defer(ReferenceSystem.file_bytes), *Split.without_files()))
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
            "scorer_version": ref.scorer_version, "metrics": {}, "intervals": {}, "by_pos": {},
            "signature": _reference_signature(ref, bench)})
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


#: (split checksum, scorer version) -> the split's (seed, B): a ranker keeps these two
#: numbers, not the prepared splits, which are large and only the worker needs.
_RESAMPLING: dict[tuple[str, str], tuple[int, int]] = {}


def _reference_signature(ref: ReferenceSystem, bench: Split) -> dict[str, Any]:
    """A reference row's signature, as a system's: it was scored with its split's own seed
    and B."""
    key = (bench.checksum, bench.scorer_version)
    if key not in _RESAMPLING:
        prepared = family_for(bench.name).prepared_from_bytes(bench.prepared_bytes)
        _RESAMPLING[key] = (prepared.seed, prepared.bootstrap)
    seed, bootstrap = _RESAMPLING[key]
    return {"scorer_version": ref.scorer_version, "split_checksum": bench.checksum,
            "seed": seed, "bootstrap": bootstrap}


def _columns_of(headline: str, track: str) -> tuple[str, ...]:
    """Metric columns of every view of ``track`` ranked on ``headline`` (the ones that need
    tie marks)."""
    return tuple(dict.fromkeys(k for v in views_for(track).values() if v.headline == headline
                               for k in v.columns))


def reported_rows(session: Session, board_id: int) -> list[dict[str, Any]]:
    """Rows with a publication's numbers (never re-scored, never ranked), in the order added."""
    rows = session.exec(select(ReportedRow).where(ReportedRow.board_id == board_id)
                        .order_by(col(ReportedRow.id))).all()
    return [{"name": r.name, "metrics": dict(r.metrics or {}), "citation": r.citation,
             "url": r.url, "source": r.source, "note": r.note,
             "benchmark": {"name": r.benchmark_name, "version": r.benchmark_version,
                           "split": r.benchmark_split}} for r in rows]


def _signature(result: Result) -> tuple[str, int, int]:
    return (result.split_checksum, result.bootstrap_seed, result.bootstrap_samples)


def _system_entry(sub: Submission, result: Result, team: Team, system: System,
                  known: dict[str, Any] | None, keys: frozenset[str]) -> dict[str, Any]:
    """A system's row with its numbers of the metrics the board shows (``keys``; every
    page, export and API answer reads only those), to :data:`SNAPSHOT_DECIMALS`; a
    result's numbers never change, so ``known`` (its row in the last snapshot) gives them
    without reading them again. Points, and so ranks, are those rounded numbers."""
    entry = {
        "id": sub.id, "result_id": result.id, "system": sub.system_name, "team": team.name,
        "team_id": team.id, "date": sub.created_at.isoformat(),
        "description": system.description, "paper_url": system.paper_url,
        "code_url": system.code_url, "file_sha256": sub.file_sha256,
        "scorer_version": result.scorer_version, "system_slug": system.slug,
        # the facts readers filter by (the paper's table)
        "open_weights": system.open_weights, "external_llm_api": system.external_llm_api,
        "extra_resources": system.extra_resources}
    numbers = ("metrics", "intervals", "by_pos", "coverage", "flags", "items_with_duplicates",
               "without_repeats")
    if known is not None:
        entry.update((k, known[k]) for k in numbers)
    else:
        def shown(numbers: dict[str, Any] | None) -> dict[str, Any]:
            return {k: _rounded(v) for k, v in (numbers or {}).items() if k in keys}
        entry.update(metrics=shown(result.metrics), intervals=shown(result.intervals),
                     by_pos={pos: {"metrics": shown(block.get("metrics")),
                                   "intervals": shown(block.get("intervals"))}
                             for pos, block in (result.by_pos or {}).items()},
                     coverage=coverage_of(result.counts), **repeat_facts(result.counts))
    entry["signature"] = signature_of(result)
    return masked_entry(entry, system.anonymous_tag) if system.anonymous else entry


#: Decimals of the numbers a snapshot keeps (percent): those the printing rule reads
#: (:data:`leaderboard.scoring.printing.EXACT`), so a value prints from the snapshot as from
#: the result; more would only make the snapshot every web process reads larger.
SNAPSHOT_DECIMALS = EXACT


def _rounded(value: Any) -> Any:
    """A metric value or an interval to :data:`SNAPSHOT_DECIMALS` (None stays None)."""
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return None if value is None else round(float(value), SNAPSHOT_DECIMALS)


def _meta(signature: tuple | None, views: str) -> dict[str, Any]:
    return {"format": SNAPSHOT_FORMAT, "views": views,
            "signature": list(signature) if signature else None}


def _plan(previous: BoardState | None, signature: tuple, views: str,
          member_rids: list[int]) -> tuple[list[int], list[int]] | None:
    """(removed, added) result ids when the previous state can be updated, else None."""
    if previous is None or previous.meta != _meta(signature, views):
        return None
    return small_change(previous.members, member_rids)


def compute_snapshot_data(session: Session, board: Board, benchmark: Split,
                          previous: BoardState | None = None
                          ) -> tuple[dict[str, Any], BoardState]:
    """Everything the public pages show about a board, as JSON-ready data, and the ranking
    state a later refresh updates. With ``previous`` (the last snapshot's data and state),
    only what changed is compared again; the result is the same as without it."""
    rows = public_submissions(session, board.id,  # type: ignore[arg-type]
                              numbers=previous is None)
    known = ({s["result_id"]: s for s in previous.data["systems"]}
             if previous is not None and previous.data.get("format") == SNAPSHOT_FORMAT else {})
    views = view_set(board.track, benchmark.name)
    shown_keys, ranked_on = displayed(views), headlines(views)
    keys = frozenset(shown_keys + ranked_on)
    metadata = {m.id: m for m in session.exec(select(System).where(
        col(System.id).in_({sub.system_id for sub, _, _ in rows})))}
    systems = [_system_entry(sub, result, team, metadata[sub.system_id], known.get(result.id),
                             keys) for sub, result, team in rows]
    rids = [s["result_id"] for s in systems]
    signatures = Counter(_signature(r) for _, r, _ in rows).most_common(1)
    signature = signatures[0][0] if signatures else None
    candidates = [rids[g] for g, (_, r, _) in enumerate(rows) if _signature(r) == signature]
    plan = _plan(previous, signature, views, candidates)
    source = Resamples(session, ranked_on, shown_keys, keep_stats=plan is not None)
    if plan is None:
        previous = None
    member_rids = _readable_members(source, candidates, plan)
    chosen = set(member_rids)
    old_data = previous.data if previous else None
    inputs = _BoardInputs(
        systems=systems, rids=rids, views=views, shown_keys=shown_keys, ranked_on=ranked_on,
        apart=apart_indices(systems, tuple(dict.fromkeys(shown_keys + ranked_on))),
        tiebreak_rank=rs.tiebreak_ranks([(s["date"], s["id"]) for s in systems]),
        members=[g for g, r in enumerate(rids) if r in chosen], signature=signature,
        source=source, previous=previous,
        before=PreviousPairs(old_data, {rid: g for g, rid in enumerate(rids)}),
        pos_targets=(old_data["benchmark"]["pos_targets"] if old_data
                     else source.pos_targets(member_rids[:1])), states={})
    ranked = _rank_every_pos(inputs)
    data = _snapshot_document(session, board, benchmark, inputs, ranked)
    return data, BoardState(meta=_meta(signature, views), states=inputs.states,
                            members=[rids[g] for g in inputs.members], data=data,
                            incremental=plan is not None)


def _readable_members(source: Resamples, candidates: list[int],
                      plan: tuple[list[int], list[int]] | None) -> list[int]:
    """The result ids compared on resamples: those of the board's signature whose resamples
    can be read (on an update, only the added ones are read again)."""
    if plan is None:
        readable = source.readable(candidates)
        return [r for r in candidates if r in readable]
    new = set(plan[1])
    readable = source.readable(plan[1])
    return [r for r in candidates if r in readable or r not in new]


@dataclass
class _BoardInputs:
    """What every part of speech's blocks of one refresh are computed from."""

    systems: list[dict[str, Any]]
    rids: list[int]
    views: str
    shown_keys: tuple[str, ...]
    ranked_on: tuple[str, ...]
    apart: dict[str, set[int]]
    tiebreak_rank: np.ndarray
    members: list[int]  # indices of ``systems`` compared on resamples
    signature: tuple | None
    source: Resamples
    previous: BoardState | None  # None on a full rebuild
    pos_targets: dict[str, int]
    before: PreviousPairs
    states: dict[str, RankState]

    @property
    def old_data(self) -> dict[str, Any] | None:
        return self.previous.data if self.previous else None


@dataclass
class _Ranked:
    """The blocks of one refresh, filled one part of speech at a time."""

    per_pos: dict[str, Any] = field(default_factory=dict)
    best: dict[str, Any] = field(default_factory=dict)
    pairwise: dict[str, Any] = field(default_factory=dict)
    neighbours: dict[str, Any] = field(default_factory=dict)
    teams_best: dict[str, list[int]] = field(default_factory=dict)


def _rank_every_pos(inputs: _BoardInputs) -> _Ranked:
    """The blocks of every part of speech, all of them first; pairwise and neighbours on
    all only."""
    ranked = _Ranked()
    for pos in (None, *POS_VALUES):
        _rank_pos(inputs, pos, ranked)
        if inputs.previous is None:
            inputs.source.forget()
    return ranked


def _rank_pos(inputs: _BoardInputs, pos: str | None, ranked: _Ranked) -> None:
    """Add one part of speech's blocks (``None``: all of them) to ``ranked``."""
    name = pos or "all"
    systems, rids, shown_keys, ranked_on = (inputs.systems, inputs.rids, inputs.shown_keys,
                                            inputs.ranked_on)
    points = points_of(systems, pos, tuple(dict.fromkeys(shown_keys + ranked_on)))
    for key, indices in inputs.apart.items():   # below every ranked system, then unranked
        points[key][list(indices)] = -np.inf
    inputs.before.current[name] = points
    n_targets = (sum(inputs.pos_targets.values()) if pos is None
                 else inputs.pos_targets.get(pos, 0))
    resampled = bool(inputs.members) and n_targets > 0 and inputs.signature[2] > 0
    where = BlockBuilder(pos, points, inputs.tiebreak_rank, rids,
                         set(inputs.members) if resampled else set(), inputs.source,
                         inputs.previous, inputs.states, inputs.apart)
    if pos is None:
        for headline in ranked_on:
            ranked.teams_best[headline] = best_per_team(systems, points[headline],
                                                        inputs.tiebreak_rank)
    if inputs.previous is not None:
        _prefetch_update(inputs, where, pos, points, resampled, ranked.teams_best)
    before = inputs.before
    ranked.per_pos[name] = where.block(list(range(len(systems))), "", shown_keys, ranked_on,
                                       lambda key: before.pairs(name, key))
    for headline in ranked_on:
        subset = ranked.teams_best[headline]
        entry = ranked.best.setdefault(headline, {"members": subset, "stats": {}})
        entry["stats"][name] = where.block(
            subset, f"best:{headline}:", _columns_of(headline, inputs.views), (headline,),
            lambda key, headline=headline: before.pairs(name, key, headline))
    if pos is None:
        _rank_pairs(inputs, points, resampled, ranked)


def _prefetch_update(inputs: _BoardInputs, where: BlockBuilder, pos: str | None,
                     points: dict[str, np.ndarray], resampled: bool,
                     teams_best: dict[str, list[int]]) -> None:
    """An update: the values every block (and the pairwise view) still needs, told at once,
    so a result split by new neighbours is computed once on this POS."""
    name, before, rids = pos or "all", inputs.before, inputs.rids
    needs = where.needs(list(range(len(inputs.systems))), inputs.shown_keys,
                        lambda key: before.pairs(name, key))
    for headline in inputs.ranked_on:
        merge_needs(needs, where.needs(
            teams_best[headline], _columns_of(headline, inputs.views),
            lambda key, headline=headline: before.pairs(name, key, headline)))
    if pos is None and resampled:
        merge_needs(needs, {rids[g]: keys for g, keys in pairwise_needs(
            inputs.systems, points, inputs.members, inputs.shown_keys,
            inputs.old_data.get("pairwise", {}) if inputs.old_data else {}).items()})
    inputs.source.prefetch(dict(sorted(needs.items())), pos)


def _rank_pairs(inputs: _BoardInputs, points: dict[str, np.ndarray], resampled: bool,
                ranked: _Ranked) -> None:
    """The pairwise matrices and neighbour bands, on all parts of speech together."""
    rids, source, old_data = inputs.rids, inputs.source, inputs.old_data

    def rows_of(globals_: list[int], key: str) -> np.ndarray:
        return source.rows([rids[g] for g in globals_], None, key)

    compared = inputs.members if resampled else []
    ranked.pairwise = pairwise_matrices(
        inputs.systems, points, rows_of, compared, inputs.shown_keys,
        old_data.get("pairwise", {}) if old_data else {},
        lambda needs: source.prefetch({rids[g]: k for g, k in needs.items()}, None))
    ranked.neighbours = neighbour_bands(
        inputs.systems, points, rows_of, compared, inputs.ranked_on,
        old_data.get("neighbours", {}) if old_data else {})


def _snapshot_document(session: Session, board: Board, benchmark: Split,
                       inputs: _BoardInputs, ranked: _Ranked) -> dict[str, Any]:
    """The snapshot's JSON: the board, its benchmark and signature, systems and blocks."""
    references, elsewhere = reference_rows(session, board, benchmark)
    resampling = Counter((s["signature"]["seed"], s["signature"]["bootstrap"])
                         for s in inputs.systems).most_common(1)
    return {
        "format": SNAPSHOT_FORMAT,
        "generated_at": utcnow().isoformat(),
        "benchmark": {"id": benchmark.id, "name": benchmark.name, "version": benchmark.version,
                      "split": benchmark.split, "n_targets": benchmark.n_targets,
                      "checksum": benchmark.checksum, "title": benchmark_title(benchmark),
                      "pos_targets": inputs.pos_targets},
        "signature": {"scorer_version": SCORER_VERSION, "split_checksum": benchmark.checksum,
                      "seed": resampling[0][0][0] if resampling else None,
                      "bootstrap": resampling[0][0][1] if resampling else None},
        "board": {"id": board.id, "slug": board.slug, "track": board.track,
                  "views": inputs.views, "phase": board.phase,
                  "title": board_title(board, benchmark)},
        "systems": inputs.systems,
        "stats": ranked.per_pos,
        "best": ranked.best,
        "pairwise": ranked.pairwise,
        "neighbours": ranked.neighbours,
        "references": references,
        "references_elsewhere": elsewhere,
        "reported": reported_rows(session, board.id),  # type: ignore[arg-type]
    }


def refresh_snapshot(*, session: Session, board_id: int,
                     full: bool = False) -> LeaderboardSnapshot:
    """Recompute the public ranking of a board and store it as a new snapshot.

    Called after a result is stored and on publish/hide/unhide/reference changes. It starts
    from the board's last snapshot and its ranking state and compares again only what
    changed; ``full`` (or a missing, older or mismatched state) recomputes everything. Older
    snapshots of the board beyond the last few are deleted (their states cascade). The caller
    commits.
    """
    board = session.get(Board, board_id)
    if board is None:
        raise ValueError(f"no leaderboard {board_id}")
    benchmark = session.get(Split, board.split_id, options=Split.without_files())
    previous = None if full else load_board_state(session, board_id)
    data, state = compute_snapshot_data(session, board, benchmark, previous)
    snapshot = LeaderboardSnapshot(split_id=board.split_id, board_id=board_id,
                                   data=data)
    session.add(snapshot)
    session.flush()
    save_board_state(session, snapshot, state)
    old = session.exec(select(LeaderboardSnapshot.id)
                       .where(LeaderboardSnapshot.board_id == board_id)
                       .order_by(col(LeaderboardSnapshot.id).desc())
                       .offset(KEEP_SNAPSHOTS)).all()
    if old:  # by id: loading them would parse megabytes of JSON only to delete it
        session.exec(delete(RankingState).where(col(RankingState.snapshot_id).in_(old)))
        session.exec(delete(LeaderboardSnapshot).where(col(LeaderboardSnapshot.id).in_(old)))
    session.flush()
    return snapshot


def refresh_boards_of(session: Session, benchmark: Split) -> list[Board]:
    """Refresh every board of the split's benchmark name and version (reference rows of any
    of its splits are shown on all of them); the caller commits."""
    boards = session.exec(select(Board)
                          .join(Split, col(Split.id) == col(Board.split_id))
                          .where(Split.name == benchmark.name,
                                 Split.version == benchmark.version)).all()
    for board in boards:
        refresh_snapshot(session=session, board_id=board.id)  # type: ignore[arg-type]
    return list(boards)
