"""leaderboard reference: add reference rows (Humans, oracles), scored by the same engine."""

from __future__ import annotations

from pathlib import Path

import click
from flask import current_app
from flask.cli import with_appcontext
from sqlmodel import Session

from leaderboard.db import get_engine, session_scope
from leaderboard.models import Split
from leaderboard.scoring import WordNetMissing
from leaderboard.scoring.printing import shown
from leaderboard.services.catalog import benchmarks, references
from leaderboard.services.ranking import snapshots


def refresh_showing(session: Session, benchmark: Split) -> None:
    """Refresh the ranking of every board that shows ``benchmark``'s references."""
    snapshots.refresh_boards_of(session, benchmark)


@click.group("reference")
def reference_group() -> None:
    """Reference rows (Humans, oracles): shown pinned above the ranking, never ranked."""


@reference_group.command("add")
@click.option("--name", required=True, help="Row name, e.g. Humans.")
@click.option("--kind", type=click.Choice(references.KINDS), required=True)
@click.option("--file", "path", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Result file in the upload format (plain or .gz).")
@click.option("--benchmark", "name_", default=None,
              help="Benchmark the file is scored on (default: the default split).")
@click.option("--version", "version", default=None)
@click.option("--split", default=None, help="e.g. test-subset for Humans.")
@click.option("--metrics", default="all", show_default=True,
              help="Keys this file provides: all, a, c, gap, semeval or KEY,KEY,...")
@click.option("--note", default="", help='Shown with the row, e.g. "computed on 89 targets".')
@with_appcontext
def add_command(name: str, kind: str, path: Path, name_: str | None, version: str | None,
                split: str | None, metrics: str, note: str) -> None:
    """Score FILE and store it as (part of) the reference row NAME."""
    try:
        keys = references.resolve_metric_keys(metrics)
        with session_scope(get_engine()) as session:
            if name_:
                benchmark = benchmarks.find_benchmark(session, name_, version, split)
            else:
                benchmark = benchmarks.default_benchmark(session)
            if benchmark is None:
                raise click.ClickException("no such benchmark (see `leaderboard benchmark list`)")
            row = references.add_reference(
                session=session, benchmark=benchmark, name=name, kind=kind,
                raw=path.read_bytes(), metric_keys=keys, note=note,
                max_bytes=current_app.config["LEADERBOARD"]["MAX_DECOMPRESSED_BYTES"])
            refresh_showing(session, benchmark)
            click.echo(_describe(row, benchmark))
    except (references.ReferenceInvalid, WordNetMissing) as exc:
        raise click.ClickException(str(exc)) from exc


def _describe(row, benchmark: Split) -> str:
    keys = "all metrics" if row.metric_keys is None else f"{len(row.metric_keys)} metrics"
    figures = ", ".join(f"{k} {shown(row.metrics[k])}" for k in
                       ("lenient_a_f@10", "lenient_c_f@10", "gap")
                       if row.metric_keys is None or k in row.metric_keys)
    return (f"{row.name} ({row.kind}) on {benchmark.name} {benchmark.version} "
            f"{benchmark.split}, {keys}: {figures}")


@reference_group.command("import-shared")
@click.argument("data_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--name", default="swords", show_default=True)
@click.option("--version", "version", default="1.1", show_default=True)
@with_appcontext
def import_shared_command(data_dir: Path, name: str, version: str) -> None:
    """Import the paper's reference rows from DATA_DIR (its swords/ and reference-systems/).

    Humans: three files on the 89-target test subset (acceptable -> *_a_*, conceivable ->
    *_c_* and P@1, all -> GAP); CoInCo and Thesaurus oracles on the full test split.
    """
    settings = current_app.config["LEADERBOARD"]
    try:
        with session_scope(get_engine()) as session:
            rows = references.import_shared(
                session=session, data_dir=data_dir, name=name, version=version,
                bootstrap=settings["BOOTSTRAP_SAMPLES"], seed=settings["BOOTSTRAP_SEED"])
            for row in rows:
                click.echo(_describe(row, session.get(Split, row.split_id)))
            refresh_showing(session, session.get(Split, rows[0].split_id))
    except (references.ReferenceInvalid, benchmarks.BenchmarkInvalid,
            benchmarks.BenchmarkConflict, WordNetMissing) as exc:
        raise click.ClickException(str(exc)) from exc
