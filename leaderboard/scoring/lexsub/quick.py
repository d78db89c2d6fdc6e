"""Scores without resamples and without numpy: a one-off ``leaderboard score --bootstrap 0``
(GAP of RANKED files; score.pl's and Jabbari et al.'s metrics of .best/.oot lines and JSON,
:func:`score_generative`, from the per-instance values the general path writes into its rows).

lst_gap.py's whole run costs about 0.09 s of CPU on LS07; numpy's import alone costs half of
that. With no interval to compute nothing needs it: a file is validated by the general
path's own :func:`.validation.validate` (numpy-free), and :func:`score_ranking` computes the
same numbers as :func:`.score.score` followed by
:func:`leaderboard.scoring.engine.result_from_rows`, in plain Python, with the same
floating-point operations in the same order:

* a row per instance, GAP and "counted" (``gap_valid``), 0 for an instance lst_gap.py skips;
* column sums accumulated row by row, in split order (what numpy's ``rows.sum(axis=0)``
  does on a C-ordered matrix: one addition per row, no pairwise tree across rows);
* the mean: ``sum / counted`` (0 where nothing counts), floored at 0, times 100; per part of
  speech over that POS's rows.

``tests/scoring/lexsub/test_quick.py`` (GAP) and ``test_quick_generative.py`` hold both paths
equal to the last bit on real and
quirky files. The split comes from a small ``marshal`` file in the cache folder (its gold,
pools and per-split readings), named by what it was read from: the data files' paths, sizes
and modification times, the scorer version, this module's format and the Python version; a
new or edited file, a new scorer or another Python reads the data files again. The general
path (intervals) reads its split from the same entry
(:func:`general_split`).
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib
from itertools import compress
from pathlib import Path

from leaderboard.scoring.jabbari import COLUMNS as JABBARI_COLUMNS
from leaderboard.scoring.jabbari import METRIC_KEYS as JABBARI_KEYS
from leaderboard.scoring.lexsub import formats
from leaderboard.scoring.lexsub.gap import instance_gaps
from leaderboard.scoring.lexsub.repeats import scorepl_gold
from leaderboard.scoring.lexsub.scorepl import GoldItems, ordered_sum
from leaderboard.scoring.lexsub.split import FILES, LexsubTarget, QuickSplit
from leaderboard.scoring.lexsub.validation import RANKING
from leaderboard.scoring.validate import ValidationReport
from leaderboard.scoring.version import SCORER_VERSION

# typing's import (8 ms) and dataclasses' (inspect: 20 ms) cost a one-off run more than all
# of its scoring: the modules it imports use neither (a test keeps them out)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from leaderboard.scoring.lexsub.data import LexsubSplit

#: Bump when what an entry holds changes.
QUICK_FORMAT = "lexsub-quick-4"
#: The order of the per-POS blocks (:data:`leaderboard.scoring.engine.POS_ORDER`).
POS_ORDER = ("NOUN", "VERB", "ADJ", "ADV")


class QuickResult:
    """What :class:`leaderboard.scoring.engine.ScoreResult` shows of a file scored without
    resamples: ``metrics`` and each ``by_pos`` block hold GAP only, ``intervals`` is empty."""

    __slots__ = ("metrics", "by_pos", "warnings", "counts", "signature", "intervals")

    def __init__(self, metrics: dict[str, float], by_pos: dict[str, dict[str, dict]],
                 warnings: list[str], counts: dict[str, float],
                 signature: dict[str, object]) -> None:
        self.metrics, self.by_pos, self.warnings = metrics, by_pos, warnings
        self.counts, self.signature = counts, signature
        self.intervals: dict[str, list[float]] = {}


def _identity(family: str, split: str, data_dir: Path) -> str:
    """What an entry is read from and by: the data files (path, size, modification time),
    the scorer version, this module's format and the Python version (marshal's format)."""
    files = FILES[family][split]
    parts = [QUICK_FORMAT, SCORER_VERSION, sys.version, family, split,
             str(data_dir.absolute())]
    for name in (files.gold, files.inputs, files.candidates):
        st = os.stat(data_dir / name)
        parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    return "\0".join(parts)


def _file_name(identity: str) -> str:
    # crc32 and length name the file (hashlib's import costs a one-off run 2 ms); the entry
    # holds the whole identity, compared on reading, so two identities never share an entry
    data = identity.encode("utf-8", "surrogateescape")
    return f"lexsub-quick-{zlib.crc32(data):08x}-{len(data)}.marshal"


def _entry(split: QuickSplit, generative: tuple, identity: str) -> bytes:
    return marshal.dumps({
        "identity": identity, "checksum": split.checksum, "family": split.family,
        "split": split.split, "pools": split.pools,
        "targets": [(t.target_id, t.item_id, t.lemma, t.pos, t.line) for t in split.targets],
        "gap_gold": split.gap_gold, "no_candidates": split.no_candidates,
        # read by the general path only (best/oot and Jabbari's gold): kept as bytes, so
        # that loading an entry for GAP does not build them
        "generative": marshal.dumps(generative)})


def _from_entry(data: bytes, identity: str, name: str, seed: int) -> QuickSplit | None:
    try:
        doc = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(doc, dict) or doc.get("identity") != identity:
        return None
    split = QuickSplit(name, doc["checksum"], [LexsubTarget(*t) for t in doc["targets"]],
                       doc["family"], doc["split"], doc["pools"], 0, seed)
    # the per-split readings, as the cached properties would compute them
    split.__dict__.update(gap_gold=doc["gap_gold"], no_candidates=doc["no_candidates"],
                          _generative_entry=doc["generative"])
    return split


def _read(family: str, split: str, data_dir: Path, name: str, seed: int
          ) -> tuple[QuickSplit, tuple]:
    """The split read from the data files, as :func:`.data.prepare_files` reads it (that
    module imports numpy: only a process without a cache entry pays for it), and its
    generative readings (:func:`_generative`)."""
    from leaderboard.scoring.lexsub.data import prepare_files

    full = prepare_files(family, split, data_dir, name=name, bootstrap=0, seed=seed)
    found = QuickSplit(name, full.checksum, full.targets, full.family, full.split, full.pools,
                       0, seed)
    return found, _generative(found)


def _generative(split: QuickSplit) -> tuple:
    """Jabbari et al.'s gold counts and score.pl's reading of the gold (its four tables)."""
    gold = scorepl_gold(split)
    return (split.jabbari_counts, gold.counts, gold.modes, gold.items, gold.mode_items)


def load_generative(split: QuickSplit) -> None:
    """Jabbari et al.'s gold counts and score.pl's reading of the gold, from the split's cache
    entry where it has one (else computed from the gold lines when first read)."""
    blob = split.__dict__.pop("_generative_entry", None)
    if blob is not None:
        jabbari, counts, modes, items, mode_items = marshal.loads(blob)
        split.__dict__["jabbari_counts"] = jabbari
        split.__dict__["_scorepl_gold"] = GoldItems(counts, modes, items, mode_items)


def general_split(split: QuickSplit, bootstrap: int) -> LexsubSplit:
    """The :class:`.data.LexsubSplit` (with resamples: numpy) of a split read by
    :func:`quick_split`, its per-split readings taken from the cache entry rather than
    computed again; without the inputs, which scoring never reads."""
    from leaderboard.scoring.lexsub.data import LexsubSplit

    full = LexsubSplit(split.name, split.checksum, split.targets, bootstrap, split.seed,
                       family=split.family, split=split.split, pools=split.pools)
    for name in ("gap_gold", "pool_sets", "no_candidates"):
        full.__dict__[name] = getattr(split, name)
    blob = split.__dict__.get("_generative_entry")
    jabbari, counts, modes, items, mode_items = (_generative(split) if blob is None
                                                 else marshal.loads(blob))
    full.__dict__["jabbari_counts"] = jabbari
    full.__dict__["_scorepl_gold"] = GoldItems(counts, modes, items, mode_items)
    return full


def quick_split(family: str, split: str, data_dir: Path, *, name: str, seed: int = 0,
                cache: Path | None = None) -> QuickSplit:
    """``family``'s ``split`` for scoring without resamples; from ``cache`` (a folder) when it
    holds an entry for these data files, else read and written there (None: not kept)."""
    identity = _identity(family, split, data_dir)
    path = None if cache is None else cache / _file_name(identity)
    if path is not None and path.is_file():
        try:
            found = _from_entry(path.read_bytes(), identity, name, seed)
        except OSError:
            found = None
        if found is not None:
            return found
    prepared, generative = _read(family, split, data_dir, name, seed)
    if path is not None:
        _write(path, _entry(prepared, generative, identity))
    return prepared


def _write(path: Path, data: bytes) -> None:
    import tempfile  # only when an entry is written (its import costs a one-off run 4 ms)

    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".lexsub-quick-", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError:
        pass  # an unwritable cache only costs the next process a read of the data files
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def _mean(total: float, counted: float) -> float:
    """``gap_metrics``' mean in percent: ``safe_div``, floored at 0, times 100."""
    value = total / counted if counted != 0 else 0.0
    return (value if value >= 0.0 else 0.0) * 100.0


def score_ranking(split: QuickSplit, report: ValidationReport) -> QuickResult:
    """GAP of a valid RANKED (or JSON) report of :func:`.validation.validate` on the ranking
    track, as :func:`.score.score` computes it with ``bootstrap=0``."""
    if not report.ok or report.submission is None:
        raise ValueError(f"invalid submission: {[p.message for p in report.errors[:5]]}")
    gaps = instance_gaps(split.target_ids, split.gap_gold, report.submission.ranked)
    valid = [1.0 if denominator > 0 else 0.0 for _, denominator in split.gap_gold]
    total = counted = 0.0
    by_pos_sums: dict[str, list[float]] = {}
    for target, g, v in zip(split.targets, gaps, valid, strict=True):
        total += g
        counted += v
        sums = by_pos_sums.get(target.pos)
        if sums is None:
            by_pos_sums[target.pos] = [g, v]
        else:
            sums[0] += g
            sums[1] += v
    by_pos = {pos: {"metrics": {"gap": _mean(*by_pos_sums[pos])}, "intervals": {}}
              for pos in _pos_order(by_pos_sums)}
    return QuickResult({"gap": _mean(total, counted)}, by_pos,
                       [p.message for p in report.warnings],
                       _counts(split, report, counted), _signature(split))


def _pos_order(present) -> list[str]:
    """The per-POS blocks' order (:func:`leaderboard.scoring.engine.result_from_rows`)."""
    present = set(present)
    return [p for p in POS_ORDER if p in present] + sorted(present - set(POS_ORDER))


def _counts(split: QuickSplit, report: ValidationReport, scored: float) -> dict[str, float]:
    """:func:`.score.score`'s counts (the answers as scoring left them: JSON read as lines
    on the generative track)."""
    answers = report.submission
    given = answers.entries
    if answers.kind == formats.LINES:
        given = split.by_instance(given)
    lengths = split.answer_lengths(given)
    counts: dict[str, float] = {
        "targets_in_split": len(split.targets),
        "targets_scored": int(scored),
        "targets_answered": len(lengths),
        # numpy's mean of the lengths: a sum of integers, exact in any order
        "mean_list_length": sum(lengths) / len(lengths) if lengths else 0.0,
    }
    for key in ("targets_no_candidates", "items_with_duplicates"):
        if key in report.counts:
            counts[key] = int(report.counts[key])
    return counts


def _signature(split: QuickSplit) -> dict[str, object]:
    return {"scorer_version": SCORER_VERSION, "split_checksum": split.checksum,
            "seed": split.seed, "bootstrap": 0}


#: score.pl's metrics: (key, summed numerator column, summed denominator column)
_SEMEVAL = (("best_p", "best_credit", "se_attempted"), ("best_r", "best_credit", "se_item"),
            ("best_mode_p", "best_mode_hit", "se_mode_attempted"),
            ("best_mode_r", "best_mode_hit", "se_mode"),
            ("oot_p", "oot_credit", "oot_attempted"), ("oot_r", "oot_credit", "se_item"),
            ("oot_mode_p", "oot_mode_hit", "oot_mode_attempted"),
            ("oot_mode_r", "oot_mode_hit", "se_mode"))


def _percent(num: float, den: float) -> float:
    """``safe_div`` times 100, as :func:`leaderboard.scoring.stats.metrics_from_sums`."""
    return (num / den if den != 0 else 0.0) * 100.0


def _generative_metrics(sums: dict[str, float], jabbari: list[float]) -> dict[str, float]:
    metrics = {key: _percent(sums[num], sums[den]) for key, num, den in _SEMEVAL}
    # Jabbari et al.'s means: each column (after jb_item) over jb_item
    metrics.update((key, _percent(value, jabbari[0]))
                   for key, value in zip(JABBARI_KEYS, jabbari[1:], strict=True))
    return metrics


def score_generative(split: QuickSplit, report: ValidationReport) -> QuickResult:
    """score.pl's best/oot and Jabbari et al.'s metrics of a valid report on the generative
    track, as :func:`.score.score` computes them with ``bootstrap=0``: the same per-instance
    values (:func:`.columns.generative_columns`), each column summed in split order, overall
    and per part of speech."""
    from leaderboard.scoring.lexsub.columns import generative_columns

    load_generative(split)
    if not report.ok or report.submission is None:
        raise ValueError(f"invalid submission: {[p.message for p in report.errors[:5]]}")
    cols, jabbari = generative_columns(split, report.submission)
    width = len(JABBARI_COLUMNS)
    jabbari_cols = [jabbari[j::width] for j in range(width)]
    # each column added one value at a time, in order: numpy's sum down a C-ordered column
    sums = {name: ordered_sum(values) for name, values in cols.items()}
    metrics = _generative_metrics(sums, [ordered_sum(c) for c in jabbari_cols])
    by_pos = {}
    for pos in _pos_order(split.pos_masks):
        mask = split.pos_masks[pos]
        pos_sums = {name: ordered_sum(compress(values, mask)) for name, values in cols.items()}
        by_pos[pos] = {"metrics": _generative_metrics(
            pos_sums, [ordered_sum(compress(c, mask)) for c in jabbari_cols]), "intervals": {}}
    return QuickResult(metrics, by_pos, [p.message for p in report.warnings],
                       _counts(split, report, sums["se_item"]), _signature(split))


__all__ = ["QUICK_FORMAT", "RANKING", "QuickResult", "general_split", "quick_split",
           "score_generative", "score_ranking"]
