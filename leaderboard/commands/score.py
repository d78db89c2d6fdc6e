"""leaderboard score: score a submission file against a split, as the server would."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

# The scoring modules (numpy among them) are imported when the command runs, not when the
# CLI lists its commands: a one-off score's CPU is mostly imports.

EXIT_INVALID = 2
TRACKS = ("generative", "ranking")


def _only(doc: dict, keys: tuple[str, ...]) -> dict:
    """The JSON document with the metrics ``keys`` only (overall and per POS)."""
    def pick(block: dict) -> dict:
        return {k: block[k] for k in keys if k in block}

    return {**doc, "metrics": pick(doc["metrics"]), "intervals": pick(doc["intervals"]),
            "by_pos": {pos: {"metrics": pick(b["metrics"]), "intervals": pick(b["intervals"])}
                       for pos, b in doc["by_pos"].items()}}


def _print_table(result, keys: tuple[str, ...]) -> None:
    from leaderboard.commands.metric_table import echo_metrics, fmt_interval
    from leaderboard.scoring.printing import shown

    # keys come in the board's order, its headline first (F^10 strict, or GAP on ranking)
    echo_metrics(((k, result.metrics[k], result.intervals.get(k)) for k in keys), keys[0],
                 "swords")
    if result.by_pos:
        click.echo("\nPer part of speech (value [95% interval]):")
        names = list(result.by_pos)
        click.echo(f"{'metric':<16} " + " ".join(f"{n:<24}" for n in names))
        for key in keys:
            cells = []
            for name in names:
                block = result.by_pos[name]
                cells.append(f"{shown(block['metrics'][key], 'swords'):>6} "
                             f"{fmt_interval(block['intervals'].get(key), 'swords'):<17}")
            click.echo(f"{key:<16} " + " ".join(cells))
    c = result.counts
    click.echo(f"\n{c['targets_answered']} of {c['targets_in_split']} targets answered; mean "
               f"list length {c['mean_list_length']:.1f}; bootstrap B="
               f"{result.signature['bootstrap']}, seed {result.signature['seed']}")
    click.echo(f"scorer {result.signature['scorer_version']}; split checksum "
               f"{result.signature['split_checksum']}")


def _report_invalid(path: Path, report, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps({"submission": str(path),
                               "errors": [p.to_dict() for p in report.errors],
                               "errors_not_shown": report.errors_not_shown,
                               "warnings": [p.to_dict() for p in report.warnings]}))
        return
    click.echo(f"{path} is not a valid submission:", err=True)
    for p in report.errors:
        click.echo(f"  [{p.code}] {p.message}", err=True)
    if report.errors_not_shown:
        click.echo(f"  ... and {report.errors_not_shown} more", err=True)


@click.command("score")
@click.option("--split", "split_spec", required=True,
              help="Benchmark split in SWORDS JSON (plain or .gz), with labels; or "
              "semeval07:trial|test|all, coinco:all|dev|test (read from "
              "$LEADERBOARD_LEXSUB_DIR, else ../shared/data/lexsub), "
              "tsar2022:en-test|es-test|pt-test|en-trial|es-trial|pt-trial (read from "
              "$LEADERBOARD_TSAR_DIR, else ../shared/data/tsar2022).")
@click.option("--submission", "submission_paths", multiple=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Submission file (plain or .gz); the option may be repeated, and more "
              "files may follow it or be given without the option (every one is scored).")
@click.argument("more_submissions", nargs=-1,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--bootstrap", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Bootstrap resamples for the 95% intervals (0: none).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the resamples (fixed per split).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object per submission (JSON lines) instead.")
@click.option("--no-cache", is_flag=True,
              help="Prepare the split and draw its resamples again, and do not write "
              "them to the cache.")
@click.option("--track", type=click.Choice(TRACKS), default=None,
              help="[default: generative; on LS07/CoInCo, from the file: RANKED -> ranking, "
              ".best/.oot -> generative, JSON -> generative] "
              "generative: the system ranks its own substitutes (every metric). "
              "ranking: it scores every candidate of each target it answers, nothing else "
              "(checked); prints GAP, GAP ratio and P@1.")
def score_command(split_spec: str, submission_paths: tuple[Path, ...],
                  more_submissions: tuple[Path, ...],
                  bootstrap: int, seed: int, as_json: bool, no_cache: bool,
                  track: str | None) -> None:
    """Score submissions against SPLIT: every metric with its interval, then per POS.

    With ``--track ranking`` (the paper's ranking setting, Table 6) a file must give a score
    to every candidate of each target it answers (the candidates of
    ``leaderboard benchmark export-inputs``) and nothing else; only the ranking metrics are
    printed: GAP (the headline), GAP ratio and P@1.

    Several files score in one process: ``--submission a.json b.json c.json`` (or
    ``--submission a.json --submission b.json``). The prepared
    split is cached on disk by the split file's checksum and the scorer version
    ($LEADERBOARD_CACHE_DIR, else $XDG_CACHE_HOME/swords-leaderboard or
    ~/.cache/swords-leaderboard), so the gold is lemmatized once. Exit status 2 when any
    submission is invalid (its problems are printed; the others are still scored).
    """
    if "numpy" not in sys.modules:
        # one process, one (B, n) product: OpenBLAS's thread per core costs more CPU to
        # start than the product takes (0.05 s of LS07's 0.3 s)
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from leaderboard.commands.score_family import is_family_split, score_family_split

    # every --submission in order, then the files given without it
    paths = (*submission_paths, *more_submissions)
    if not paths:
        raise click.UsageError("Missing option '--submission' (or a file after the options).")
    family_split = is_family_split(split_spec)
    if not no_cache:  # the resamples of a split are drawn once per machine, not per run
        _cache_resamples_on_disk()
    if family_split:
        sys.exit(score_family_split(split_spec, paths, track=track, bootstrap=bootstrap,
                                    seed=seed, as_json=as_json))
    if not _score_swords_files(split_spec, paths, track=track or "generative",
                               bootstrap=bootstrap, seed=seed, as_json=as_json,
                               no_cache=no_cache):
        sys.exit(EXIT_INVALID)


def _cache_resamples_on_disk() -> None:
    """Keep drawn resamples in the disk cache for as long as the command runs."""
    from leaderboard.scoring import bootstrap as resampling
    from leaderboard.scoring.swords.sources import cache_dir

    previous, resampling.DISK_CACHE = resampling.DISK_CACHE, cache_dir()
    click.get_current_context().call_on_close(
        lambda: setattr(resampling, "DISK_CACHE", previous))


def _score_swords_files(split_spec: str, paths: tuple[Path, ...], *, track: str,
                        bootstrap: int, seed: int, as_json: bool, no_cache: bool) -> bool:
    """Score every file against a SWORDS split file; False when any of them is invalid."""
    from leaderboard.scoring import WordNetMissing
    from leaderboard.scoring.swords.gold import load_split
    from leaderboard.scoring.swords.ranking_track import SHOWN_METRICS, candidates_by_target
    from leaderboard.scoring.swords.split_cache import prepared_split_cached
    from leaderboard.scoring.swords.stats import SWORDS_METRIC_KEYS

    split_path = Path(split_spec)
    if not split_path.is_file():
        raise click.BadParameter(f"no file {split_spec!r}", param_hint="--split")
    try:
        prepared, _ = prepared_split_cached(split_path, bootstrap=bootstrap, seed=seed,
                                            use_cache=not no_cache)
    except WordNetMissing as exc:
        raise click.ClickException(str(exc)) from exc
    keys: tuple[str, ...] = SWORDS_METRIC_KEYS
    candidates = None
    if track == "ranking":
        keys = SHOWN_METRICS
        candidates = candidates_by_target(load_split(split_path))
    all_valid = True
    for n, path in enumerate(paths):
        heading = f"{'' if n == 0 else chr(10)}== {path} ==" if len(paths) > 1 else None
        if not _score_swords_file(path, prepared, candidates, keys, track=track,
                                  as_json=as_json, heading=heading):
            all_valid = False
    return all_valid


def _score_swords_file(path: Path, prepared, candidates: dict | None, keys: tuple[str, ...],
                       *, track: str, as_json: bool, heading: str | None) -> bool:
    """Validate and score one file, printing its problems or its metrics; False if invalid."""
    from leaderboard.scoring import score_submission, validate_submission
    from leaderboard.scoring.swords.ranking_track import validate_ranking_submission

    if candidates is not None:
        report = validate_ranking_submission(path.read_bytes(), prepared, candidates)
    else:
        report = validate_submission(path.read_bytes(), prepared)
    if not report.ok:
        _report_invalid(path, report, as_json)
        return False
    result = score_submission(prepared, report)
    if as_json:
        doc = {"submission": str(path), "metrics": result.metrics,
               "intervals": result.intervals, "by_pos": result.by_pos,
               "warnings": result.warnings, "counts": result.counts,
               "signature": result.signature}
        doc = _only(doc, keys) if candidates is None else {"track": track,
                                                            **_only(doc, keys)}
        click.echo(json.dumps(doc))
        return True
    if heading is not None:
        click.echo(heading)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    _print_table(result, keys)
    return True
