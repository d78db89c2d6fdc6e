"""``leaderboard score --split semeval07:test`` (or ``tsar2022:en-test``): a split read from
the field's own files."""

from __future__ import annotations

import gc
import json
import os
import re
import sys
from pathlib import Path

from leaderboard.commands.metric_table import echo, echo_metrics
from leaderboard.scoring.lexsub import formats
from leaderboard.scoring.lexsub.scorepl import perl_round
from leaderboard.scoring.lexsub.split import FILES as LEXSUB_FILES
from leaderboard.scoring.parse import open_upload
from leaderboard.scoring.version import SCORER_VERSION

EXIT_INVALID = 2
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
                       bootstrap: int, seed: int, as_json: bool,
                       cache: Path | None = None) -> int:
    """Score each file on the split; prints a table or JSON lines; returns the exit status.
    LS07/CoInCo with a ``cache`` folder: the split's gold is read from its entry there
    (:func:`leaderboard.scoring.lexsub.quick.quick_split`), without importing the other
    families; no POS block is resampled and only the printed metrics' intervals are
    computed (none of the others is printed)."""
    name, _, split = spec.partition(":")
    lexsub = name in LEXSUB_FILES
    if lexsub and cache is not None and split in LEXSUB_FILES[name]:
        from leaderboard.scoring.lexsub import quick, validation
        from leaderboard.scoring.lexsub import split as lexsub_split

        data_dir = lexsub_split.data_dir()
        if data_dir.is_dir():
            prepared = quick.general_split(quick.quick_split(
                name, split, data_dir, name=spec, seed=seed, cache=cache), bootstrap)
            # several files: each resample matrix converted to float64 once, not per file
            prepared.float_resamples = len(paths) > 1
            return _score_files(spec, paths, prepared, None, track, as_json,
                                validation.validate)
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
    _collect_less()
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


def score_family_quick(spec: str, paths: tuple[Path, ...], *, track: str | None, seed: int,
                       as_json: bool, cache: Path | None) -> int | None:
    """:func:`score_family_split` with ``bootstrap=0`` on LS07/CoInCo, without numpy
    (:mod:`leaderboard.scoring.lexsub.quick`): GAP of ranking files, score.pl's and Jabbari
    et al.'s metrics of the others; the same output, to the byte. None (nothing printed)
    where it does not apply: another family, a missing data folder or split; the caller then
    takes the general path."""
    name, _, split = spec.partition(":")
    if name not in LEXSUB_FILES or split not in LEXSUB_FILES[name]:
        return None
    from leaderboard.scoring.lexsub import quick
    from leaderboard.scoring.lexsub.split import data_dir
    from leaderboard.scoring.lexsub.validation import validate

    folder = data_dir()
    if not folder.is_dir():
        return None
    prepared = quick.quick_split(name, split, folder, name=spec, seed=seed, cache=cache)
    _collect_less()
    status = 0
    for path in paths:
        raw = path.read_bytes()
        file_track = track or track_of_file(raw)
        if file_track != "ranking":  # score.pl's gold (the repeat check reads it)
            quick.load_generative(prepared)
        report = validate(raw, prepared, track=file_track)
        if not report.ok:
            status = EXIT_INVALID
            _invalid(path, report, as_json)
            continue
        if file_track == "ranking":
            result, keys = quick.score_ranking(prepared, report), RANKING_KEYS
        else:
            result, keys = quick.score_generative(prepared, report), GENERATIVE_KEYS
        _show(path, result, keys, file_track, name, split, as_json)
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
    _table(path, result, keys, track)
    if official:
        echo("tsar_eval.py would print (fractions floored to 4 decimals, over the "
                   "instances the file holds): "
                   + ", ".join(f"{k} {v:.4f}" for k, v in official.items()))


def _collect_less() -> None:
    """For the rest of the command: the imports and the prepared split live as long as the
    process, so the cyclic collector stops walking them for each file's short-lived tuples
    (a file's CPU: 10-15% less); put back when the command ends (in a click context; the
    click-free path of :func:`quick_main` ends with its process)."""
    click = sys.modules.get("click")
    ctx = None if click is None else click.get_current_context(silent=True)
    if ctx is None and click is not None:
        return
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    if ctx is not None:
        ctx.call_on_close(lambda: (gc.set_threshold(*threshold), gc.unfreeze()))


def _table(path: Path, result, keys: tuple[str, ...], track: str) -> None:
    for warning in result.warnings:
        echo(f"warning: {warning}", err=True)
    echo(f"== {path} ({track}) ==")
    # score.pl's own rounding (half up) for its metrics, so the figures read alike
    echo_metrics(((k, perl_round(result.metrics[k] / 100) if k.startswith(("best_", "oot_"))
                   else round(result.metrics[k], 2), result.intervals.get(k)) for k in keys),
                 keys[0])
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


_OPTIONS = ("--split", "--submission", "--bootstrap", "--seed", "--track")
_INT = re.compile(r"-?[0-9]+")
_COUNT = re.compile(r"[0-9]+")
_TRACKS = ("generative", "ranking")


def quick_args(args: list[str]) -> dict | None:
    """``score`` arguments as click would read them, where they ask for what
    :func:`quick_main` does (a split, files that exist, ``--bootstrap``, ``--seed``,
    ``--track``, ``--json``; no ``--no-cache``) and nothing else; None for anything else
    (help, another option, a value click would refuse or read differently, an option other
    than ``--submission`` or ``--seed`` given twice), which click then reads. Files: every
    ``--submission`` in order, then those given without it, as ``score_command`` takes them."""
    if not args or args[0] != "score":
        return None
    found: dict = {"--seed": "0", "--bootstrap": "1000", "--json": False}
    given: set[str] = set()
    submissions: list[str] = []
    paths: list[str] = []
    rest = iter(args[1:])
    for arg in rest:
        if arg == "--json":
            found["--json"] = True
            continue
        if arg.startswith("-"):
            name, eq, value = arg.partition("=")
            if name not in _OPTIONS or name in given and name not in ("--seed",
                                                                      "--submission"):
                return None
            if not eq:
                value = next(rest, None)
                if value is None or value.startswith("-") and name != "--seed":
                    return None
            if name == "--submission":
                submissions.append(value)
            found[name] = value
            given.add(name)
            continue
        paths.append(arg)
    if "--split" not in found or not _INT.fullmatch(found["--seed"]) or not _COUNT.fullmatch(
            found["--bootstrap"]) or found.get("--track") not in (None, *_TRACKS):
        return None
    files = tuple(Path(p) for p in (*submissions, *paths))
    if not files or not all(f.is_file() and os.access(f, os.R_OK) for f in files):
        return None
    return {"spec": found["--split"], "paths": files, "track": found.get("--track"),
            "bootstrap": int(found["--bootstrap"]), "seed": int(found["--seed"]),
            "as_json": found["--json"]}


def quick_main(args: list[str]) -> int | None:
    """``leaderboard score ARGS`` on LS07/CoInCo without click (what ``score_command`` does
    there, where :func:`quick_args` reads the arguments): with ``--bootstrap 0`` and RANKED
    files without numpy either (:func:`score_family_quick`). Its exit status; None (nothing
    done) for anything else."""
    found = quick_args(args)
    if found is None:
        return None
    spec, paths = found["spec"], found["paths"]
    name, _, split = spec.partition(":")
    if name not in LEXSUB_FILES or split not in LEXSUB_FILES[name]:
        return None
    from leaderboard.scoring.lexsub.split import data_dir
    from leaderboard.scoring.sources import cache_dir

    if not data_dir().is_dir():
        return None  # click's path says where the data was looked for
    cache = cache_dir()
    if found["bootstrap"] == 0:
        status = score_family_quick(spec, paths, track=found["track"], seed=found["seed"],
                                    as_json=found["as_json"], cache=cache)
        if status is not None:
            return status
    if "numpy" not in sys.modules:  # as score_command: one thread for one (B, n) product
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from leaderboard.scoring import bootstrap as resampling

    previous, resampling.DISK_CACHE = resampling.DISK_CACHE, cache
    try:
        return score_family_split(spec, paths, track=found["track"],
                                  bootstrap=found["bootstrap"], seed=found["seed"],
                                  as_json=found["as_json"], cache=cache)
    finally:
        resampling.DISK_CACHE = previous
