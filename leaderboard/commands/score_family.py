"""``leaderboard score --split semeval07:test`` (or ``tsar2022:en-test``): a split read from
the field's own files."""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path

from leaderboard.commands.metric_table import echo, echo_metrics
from leaderboard.scoring.lexsub import formats
from leaderboard.scoring.lexsub.split import FILES as LEXSUB_FILES
from leaderboard.scoring.swords.parse import open_upload
from leaderboard.scoring.version import SCORER_VERSION

EXIT_INVALID = 2
#: The collector's thresholds while ``leaderboard score`` runs (:func:`_collect_less`).
_QUIET_GC = (50_000, 20, 100)
RANKING_KEYS = ("gap",)
# The board's order: recall first, the headline it ranks by (metric_info's best view)
GENERATIVE_KEYS = ("best_r", "best_p", "best_mode_r", "best_mode_p", "oot_r", "oot_p",
                   "oot_mode_r", "oot_mode_p", "best1", "coverage_p", "coverage_r",
                   "coverage_f") + tuple(f"coverage_f@{k}" for k in range(1, 11))


def is_family_split(spec: str) -> bool:
    """``name:split`` of a family read from the field's files (not a path)."""
    name, sep, _ = spec.partition(":")
    if not sep:
        return False
    if name in LEXSUB_FILES:  # without importing the families (and numpy)
        return True
    from leaderboard.scoring.families import FAMILIES

    return hasattr(FAMILIES.get(name), "prepare_files")


def track_of_file(raw: bytes) -> str:
    """RANKED lines are a ranking; .best/.oot lines and JSON are generative answers."""
    data, refusal = open_upload(raw, 1 << 31)
    if refusal is not None:
        return "generative"
    kind = formats.detect(bytes(data[:65536]))
    return "ranking" if kind == formats.RANKED else "generative"


def score_family_split(spec: str, paths: tuple[Path, ...], *, track: str | None,
                       bootstrap: int, seed: int, as_json: bool) -> int:
    """Score each file on the split; prints a table or JSON lines; returns the exit status.
    LS07/CoInCo: no POS block is resampled and only the printed metrics' intervals are
    computed (none of the others is printed)."""
    name, _, split = spec.partition(":")
    lexsub = name in LEXSUB_FILES
    _collect_less()
    import click

    from leaderboard.scoring.families import FAMILIES, lexsub_data_dir

    family = FAMILIES[name]
    if split not in family.splits:
        raise click.BadParameter(f"{family.title} has the splits {', '.join(family.splits)}",
                                 param_hint="--split")
    data_dir = family.data_dir() if hasattr(family, "data_dir") else lexsub_data_dir()
    if not data_dir.is_dir():
        raise click.ClickException(f"no {family.title} data at {data_dir} (set "
                                   "LEADERBOARD_LEXSUB_DIR or LEADERBOARD_TSAR_DIR)")
    prepared = family.prepare_files(split, data_dir, name=spec, bootstrap=bootstrap,
                                    seed=seed)
    if lexsub:  # several files: each resample matrix converted to float64 once, not per file
        prepared.float_resamples = len(paths) > 1
    return _score_files(spec, paths, prepared, None if lexsub else family, track, as_json,
                        family.validate)


def _score_files(spec: str, paths: tuple[Path, ...], prepared, family, track: str | None,
                 as_json: bool, validate) -> int:
    """Validate, score and print each file; ``family`` None: LS07/CoInCo (their scoring
    called directly, without the intervals nobody sees here: per POS and of the metrics
    not printed)."""
    name, _, split = spec.partition(":")
    tracks = () if family is None else getattr(family, "tracks", ())
    if family is None:
        from leaderboard.scoring.lexsub.score import score as lexsub_score
    if gc.get_threshold() == _QUIET_GC:  # the split lives as long as the command: not walked
        gc.freeze()
    status = 0
    for path in paths:
        raw = path.read_bytes()
        file_track = track or (tracks[0] if len(tracks) == 1 else track_of_file(raw))
        report = validate(raw, prepared, track=file_track)
        if not report.ok:
            status = EXIT_INVALID
            _invalid(path, report, as_json)
            continue
        keys = (family.score_keys(file_track) if hasattr(family, "score_keys")
                else RANKING_KEYS if file_track == "ranking" else GENERATIVE_KEYS)
        if family is None:
            # the table prints no per-POS block: only JSON lines compute them
            result = lexsub_score(prepared, report, track=file_track, pos_intervals=False,
                                  pos_blocks=as_json, keys=keys)
        else:
            result = family.score(prepared, report, track=file_track)
        # what the family's own script prints (TSAR-2022: tsar_eval.py's floors)
        official = (family.official(prepared, report) if hasattr(family, "official")
                    else None)
        _show(path, result, keys, file_track, name, split, as_json, official)
    return status


def _show(path: Path, result, keys: tuple[str, ...], track: str, name: str, split: str,
          as_json: bool, official: dict | None = None) -> None:
    """One scored file: a JSON line, or the table (and what the family's script prints)."""
    if as_json:
        signature = {**result.signature, "benchmark": name, "split": split}
        echo(json.dumps({
            "submission": str(path), "benchmark": name, "split": split,
            "track": track, "metrics": {k: result.metrics[k] for k in keys},
            "intervals": {k: result.intervals.get(k) for k in keys},
            "by_pos": {pos: {"metrics": {k: b["metrics"][k] for k in keys}}
                       for pos, b in result.by_pos.items()},
            "counts": result.counts, "warnings": result.warnings,
            "signature": signature, **({"official": official} if official else {})}))
        return
    _table(path, result, keys, track, name)
    if official:
        echo("tsar_eval.py would print (fractions floored to 4 decimals, over the "
                   "instances the file holds): "
                   + ", ".join(f"{k} {v:.4f}" for k, v in official.items()))


def _collect_less() -> None:
    """For the rest of the command: the imports and the prepared split live as long as the
    process, so the cyclic collector runs less often and stops walking what exists now (while
    the split's many small tuples are built, then each file's); put back when the command
    ends."""
    click = sys.modules.get("click")
    ctx = None if click is None else click.get_current_context(silent=True)
    if ctx is None and click is not None:
        return
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*_QUIET_GC)
    if ctx is not None:
        ctx.call_on_close(lambda: (gc.set_threshold(*threshold), gc.unfreeze()))


def _table(path: Path, result, keys: tuple[str, ...], track: str, family: str) -> None:
    for warning in result.warnings:
        echo(f"warning: {warning}", err=True)
    echo(f"== {path} ({track}) ==")
    echo_metrics(((k, result.metrics[k], result.intervals.get(k)) for k in keys), keys[0],
                 family)
    c, s = result.counts, result.signature
    echo(f"{c['targets_scored']} instances scored, {c['targets_answered']} of "
               f"{c['targets_in_split']} answered; scorer {SCORER_VERSION}, split "
               f"{s['split_checksum'][:12]}, bootstrap B={s['bootstrap']}, seed {s['seed']}")


def _invalid(path: Path, report, as_json: bool) -> None:
    if as_json:
        echo(json.dumps({"submission": str(path),
                               "errors": [p.to_dict() for p in report.errors],
                               "errors_not_shown": report.errors_not_shown,
                               "warnings": [p.to_dict() for p in report.warnings]}))
        return
    echo(f"{path} is not a valid answer file:", err=True)
    for p in report.errors:
        echo(f"  [{p.code}] {p.message}", err=True)
    if report.errors_not_shown:
        echo(f"  ... and {report.errors_not_shown} more", err=True)
