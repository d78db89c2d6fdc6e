"""leaderboard score: score a submission file against a split, as the server would."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from leaderboard.scoring import (
    METRIC_KEYS,
    WordNetMissing,
    load_split,
    prepare_split,
    score_submission,
    validate_submission,
)

EXIT_INVALID = 2


def _fmt_interval(interval: list[float] | None) -> str:
    return f"[{interval[0]:6.2f}, {interval[1]:6.2f}]" if interval else ""


def _print_table(result) -> None:
    click.echo(f"{'metric':<16} {'value':>7}  95% interval")
    for key in METRIC_KEYS:
        click.echo(f"{key:<16} {result.metrics[key]:7.2f}  "
                   f"{_fmt_interval(result.intervals.get(key))}")
    if result.by_pos:
        click.echo("\nPer part of speech (value [95% interval]):")
        names = list(result.by_pos)
        click.echo(f"{'metric':<16} " + " ".join(f"{n:<24}" for n in names))
        for key in METRIC_KEYS:
            cells = []
            for name in names:
                block = result.by_pos[name]
                cells.append(f"{block['metrics'][key]:6.2f} "
                             f"{_fmt_interval(block['intervals'].get(key)):<17}")
            click.echo(f"{key:<16} " + " ".join(cells))
    c = result.counts
    click.echo(f"\n{c['targets_answered']} of {c['targets_in_split']} targets answered; mean "
               f"list length {c['mean_list_length']:.1f}; bootstrap B="
               f"{result.signature['bootstrap']}, seed {result.signature['seed']}")


@click.command("score")
@click.option("--split", "split_path", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Benchmark split in SWORDS JSON (plain or .gz), with labels.")
@click.option("--submission", "submission_path", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Submission JSON (plain or .gz).")
@click.option("--bootstrap", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Bootstrap resamples for the 95% intervals (0: none).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the resamples (fixed per split).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
def score_command(split_path: Path, submission_path: Path, bootstrap: int, seed: int,
                  as_json: bool) -> None:
    """Score SUBMISSION against SPLIT: every metric with its interval, then per POS.

    Exit status 2 when the submission is invalid (the problems are printed).
    """
    try:
        prepared = prepare_split(load_split(split_path), name=split_path.name,
                                 bootstrap=bootstrap, seed=seed)
    except WordNetMissing as exc:
        raise click.ClickException(str(exc)) from exc
    report = validate_submission(submission_path.read_bytes(), prepared)
    if not report.ok:
        if as_json:
            click.echo(json.dumps({"errors": [p.to_dict() for p in report.errors],
                                   "errors_not_shown": report.errors_not_shown,
                                   "warnings": [p.to_dict() for p in report.warnings]}))
        else:
            click.echo(f"{submission_path} is not a valid submission:", err=True)
            for p in report.errors:
                click.echo(f"  [{p.code}] {p.message}", err=True)
            if report.errors_not_shown:
                click.echo(f"  ... and {report.errors_not_shown} more", err=True)
        sys.exit(EXIT_INVALID)
    result = score_submission(prepared, report)
    if as_json:
        click.echo(json.dumps({"metrics": result.metrics, "intervals": result.intervals,
                               "by_pos": result.by_pos, "warnings": result.warnings}))
        return
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    _print_table(result)
