"""A result's frozen record: what its permalink (``/results/<public_id>``) shows, cites and
gives to a model card. A re-score is a new result with a new record; the old one keeps its
numbers and names the record that superseded it."""

from __future__ import annotations

from typing import Any

import yaml
from sqlmodel import Session, col, select

from leaderboard.models import Board, Result, Submission, System, Team
from leaderboard.scoring.bibtex import entry, plain
from leaderboard.scoring.printing import printed_all
from leaderboard.services.catalog.benchmarks import get_split
from leaderboard.services.catalog.boards import benchmark_title, board_title, board_views
from leaderboard.services.ranking.anonymity import masked_entry
from leaderboard.services.ranking.metric_info import LABELS, board_metrics, headlines
from leaderboard.services.ranking.systems import publicly_visible

#: The Hugging Face task of a benchmark family's boards (type, name); lexical substitution
#: for every family not named.
TASKS = {"tsar2022": ("lexical-simplification", "Lexical Simplification")}
SUBSTITUTION = ("lexical-substitution", "Lexical Substitution")


def result_record(session: Session, public_id: str) -> dict[str, Any] | None:
    """The frozen record of the result ``public_id``, or None when there is none or its
    submission is not public (private, hidden, held by the Ladder, withdrawn, of a disabled
    team): callers answer 404 alike, so that an id tells nothing of a private result."""
    result = session.exec(select(Result).where(Result.public_id == public_id)).first()
    submission = session.get(Submission, result.submission_id) if result else None
    if submission is None:
        return None
    team = session.get(Team, submission.team_id)
    if not publicly_visible(submission, team):
        return None
    board, split = session.get(Board, submission.board_id), get_split(session, submission.split_id)
    views = board_views(board, session)
    keys = board_metrics(views, result.metrics)
    current = result if result.is_current else session.exec(
        select(Result).where(Result.submission_id == submission.id,
                             col(Result.is_current).is_(True))).first()
    system = session.get(System, submission.system_id)
    record = {
        "public_id": result.public_id, "system": submission.system_name,
        "team": team.name if team else "", "system_id": submission.id,
        "system_slug": system.slug if system else "",
        "board": {"slug": board.slug, "title": board_title(board, split)},
        "benchmark": {"name": split.name, "version": split.version, "split": split.split,
                      "title": benchmark_title(split)},
        # As every other surface prints them: the benchmark's script's rule, two decimals.
        "metrics": printed_all({k: result.metrics[k] for k in keys}, split.name),
        "intervals": printed_all({k: result.intervals[k] for k in keys
                                  if k in result.intervals}, split.name),
        "headlines": [k for k in headlines(views) if k in result.metrics],
        "scorer_version": result.scorer_version, "split_checksum": result.split_checksum,
        "bootstrap": {"seed": result.bootstrap_seed, "samples": result.bootstrap_samples},
        "file_sha256": submission.file_sha256, "scored_at": result.created_at.isoformat(),
        "superseded_by": (current.public_id
                          if current is not None and current.id != result.id else None),
    }
    if system is not None and system.anonymous:
        record = masked_entry(record, system.anonymous_tag)
        # to the day, like its submission date: a time to the microsecond would line it up
        # with its team's other uploads
        record["system_id"], record["scored_at"] = None, record["scored_at"][:10]
    return record


def result_bibtex(record: dict[str, Any], url: str) -> str:
    """The record as a BibTeX ``@misc``: the system on its board, its team as the author,
    the permalink and the scoring date, and what pins the numbers down (scorer version,
    split checksum, the uploaded file's sha256)."""
    date = record["scored_at"][:10]
    return entry(
        "misc", f"result-{record['public_id']}",
        title="{" + plain(f"{record['system']}: {record['board']['title']}"
                          .replace(" · ", ", ")) + "}",
        author="{" + plain(record["team"]) + "}", howpublished=f"\\url{{{url}}}",
        year=date[:4], url=url, urldate=date,
        note=(f"Scored {date}, scorer version {plain(record['scorer_version'])}, split "
              f"checksum {record['split_checksum']}, file sha256 {record['file_sha256']}"))


def model_index(record: dict[str, Any], url: str) -> str:
    """The ``model-index`` block of Hugging Face model-card metadata for the record: task,
    dataset (name, type, split), each metric the board ranks on with its value as the site
    prints it, and the permalink as the source."""
    task_type, task_name = TASKS.get(record["benchmark"]["name"], SUBSTITUTION)
    bench = record["benchmark"]
    result = {
        "task": {"type": task_type, "name": task_name},
        "dataset": {"name": bench["title"], "type": bench["name"], "split": bench["split"]},
        "metrics": [{"type": key, "name": LABELS.get(key, key), "value": record["metrics"][key]}
                    for key in record["headlines"]],
        "source": {"name": f"SWORDS leaderboard, result {record['public_id']}", "url": url}}
    doc = {"model-index": [{"name": record["system"], "results": [result]}]}
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
