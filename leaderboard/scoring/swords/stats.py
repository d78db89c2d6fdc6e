"""Per-target statistics: the private, compact form every metric is recomputed from.

Each scored target is one row of a float matrix whose columns are the counts and credits
of :mod:`generative`, :mod:`gap` and :mod:`semeval`. Every metric is a function of column
sums, so a point estimate sums all rows and a bootstrap resample sums rows with weights.
"""

from __future__ import annotations

import io
import json
import threading
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from leaderboard.scoring.swords import gap, generative, jabbari, semeval
from leaderboard.scoring.tsar import metrics as tsar

COLUMNS: tuple[str, ...] = (generative.COLUMNS + gap.COLUMNS + semeval.COLUMNS
                             + jabbari.COLUMNS + tsar.COLUMNS)
COLUMN_INDEX = {name: i for i, name in enumerate(COLUMNS)}
#: Resamples per matrix product: the float64 copy of a (B, n) count block is what a worker's
#: peak memory is made of, so it is made of a block of resamples, not all B at once.
#: Blocks of 100 or more rows give bit-identical sums to one product (the same BLAS kernels;
#: smaller blocks were seen to differ in the last bit), so keep this at 100 or more.
RESAMPLE_BLOCK = 250
#: The fewest columns multiplied at once: narrower products (2 columns: a GAP file's) were
#: seen to take BLAS kernels whose sums differ from the full product's in the last bit; 12
#: and more gave the full product's sums, bit for bit, on the machine measured (20 GAP and 20
#: .best/.oot files, B = 50-1000); tests/scoring/test_compact_gold.py.
MIN_PRODUCT_COLUMNS = 16

#: Metric keys in display order (spec sections 3-5).
METRIC_KEYS: tuple[str, ...] = tuple(
    f"{mode}_{ref}_{m}@10"
    for mode in ("strict", "lenient")
    for ref in ("a", "c")
    for m in ("f", "fs", "p", "r", "rs")
) + ("strict_c_p@1", "gap", "gap_rat") + (
    "best_p", "best_r", "best_mode_p", "best_mode_r",
    "oot_p", "oot_r", "oot_mode_p", "oot_mode_r",
) + jabbari.METRIC_KEYS + tsar.METRIC_KEYS
#: What a SWORDS result shows: every metric but TSAR-2022's, which every result carries (one
#: statistics matrix for every benchmark) at 0 where the benchmark is not TSAR-2022's.
SWORDS_METRIC_KEYS: tuple[str, ...] = tuple(k for k in METRIC_KEYS
                                            if k not in tsar.METRIC_KEYS)


def resampled_sums(counts: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``counts @ rows`` in float64, ``RESAMPLE_BLOCK`` resamples at a time (bounded memory).

    ``counts`` is a (B, n) matrix of row multiplicities (any integer dtype), ``rows`` (n, k).
    A column of zeros sums to 0 on every resample: only the others are multiplied (a GAP
    file fills 2 of the 52 columns, a .best/.oot pair 25), at least :data:`MIN_PRODUCT_COLUMNS`
    of them, below which BLAS takes other kernels whose sums differ in the last bit.
    """
    filled = rows.any(axis=0)
    used = np.flatnonzero(filled)
    if len(used) < MIN_PRODUCT_COLUMNS:
        spare = np.flatnonzero(~filled)[:MIN_PRODUCT_COLUMNS - len(used)]
        used = np.union1d(used, spare)
    if len(used) == rows.shape[1]:
        return _product(counts, rows)
    out = np.zeros((counts.shape[0], rows.shape[1]))
    out[:, used] = _product(counts, np.ascontiguousarray(rows[:, used]))
    return out


_scratch = threading.local()


def _float_block(n: int) -> np.ndarray:
    """This thread's (RESAMPLE_BLOCK, n) float64 block, kept between products: a block
    allocated for each product was a fresh mapping each time, and its page faults cost
    nearly as much as the product itself (the same bits)."""
    block = getattr(_scratch, "block", None)
    if block is None or block.shape[1] != n:
        block = _scratch.block = np.empty((RESAMPLE_BLOCK, n))
    return block


def _product(counts: np.ndarray, rows: np.ndarray) -> np.ndarray:
    out = np.empty((counts.shape[0], rows.shape[1]))
    scratch = None if counts.dtype == np.float64 else _float_block(counts.shape[1])
    for start in range(0, counts.shape[0], RESAMPLE_BLOCK):
        part = counts[start:start + RESAMPLE_BLOCK]
        if scratch is not None:
            np.copyto(scratch[:len(part)], part)
            part = scratch[:len(part)]
        np.matmul(part, rows, out=out[start:start + RESAMPLE_BLOCK])
    return out


#: The metric families, each computed from the column sums alone.
FAMILIES = (generative.generative_metrics, gap.gap_metrics, semeval.semeval_metrics,
            jabbari.jabbari_metrics, tsar.tsar_metrics)


@lru_cache(maxsize=1)
def _family_keys() -> tuple[frozenset[str], ...]:
    zeros = {name: np.zeros(1) for name in COLUMNS}
    with np.errstate(all="ignore"):
        return tuple(frozenset(family(zeros)) for family in FAMILIES)


def metrics_from_sums(sums: np.ndarray,
                      keys: tuple[str, ...] | None = None) -> dict[str, np.ndarray]:
    """Every metric (or those of ``keys``, in that order), in percent, from column sums of
    shape (..., len(COLUMNS)); a family none of ``keys`` is in is not computed (the others'
    values are the same, computed alike)."""
    s = {name: sums[..., i] for name, i in COLUMN_INDEX.items()}
    fractions: dict[str, object] = {}
    wanted = None if keys is None else set(keys)
    for family, produces in zip(FAMILIES, _family_keys(), strict=True):
        if wanted is None or not produces.isdisjoint(wanted):
            fractions.update(family(s))
    return {key: np.asarray(fractions[key]) * 100.0 for key in keys or METRIC_KEYS}


@dataclass
class TargetStats:
    """Per-target statistics of one submission on one split, plus what pairs them up.

    ``rows`` has one row per scored target of the split, in split order; ``pos`` gives each
    row's part of speech. Two submissions are comparable when ``split_checksum``, ``seed``
    and ``bootstrap`` agree: they then share the same resamples.
    """

    rows: np.ndarray
    pos: np.ndarray
    split_checksum: str
    seed: int
    bootstrap: int
    scorer_version: str

    def metrics(self, pos: str | None = None,
                keys: tuple[str, ...] | None = None) -> dict[str, float]:
        """Point estimates (percent) on all targets or on one POS (of ``keys`` only)."""
        rows = self.rows if pos is None else self.rows[self.pos == pos]
        return {k: float(v) for k, v in metrics_from_sums(rows.sum(axis=0), keys).items()}

    def resampled(self, counts: np.ndarray, pos: str | None = None,
                  keys: tuple[str, ...] | None = None) -> dict[str, np.ndarray]:
        """Metric values (percent) on each resample: ``counts`` is (B, n) row multiplicities
        (of ``keys`` only)."""
        rows = self.rows if pos is None else self.rows[self.pos == pos]
        return metrics_from_sums(resampled_sums(counts, rows), keys)

    def to_bytes(self) -> bytes:
        """npz (no pickle): the matrix, POS codes and a JSON header."""
        meta = {
            "columns": list(COLUMNS),
            "split_checksum": self.split_checksum,
            "seed": self.seed,
            "bootstrap": self.bootstrap,
            "scorer_version": self.scorer_version,
        }
        buf = io.BytesIO()
        np.savez_compressed(buf, rows=self.rows, pos=self.pos.astype(str),
                            meta=np.array(json.dumps(meta)))
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> TargetStats:
        """Load what :meth:`to_bytes` wrote; refuses statistics with other columns, except
        statistics written before columns were appended (TSAR-2022's): those columns are 0
        for every other benchmark, so they are filled with 0."""
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            meta = json.loads(str(npz["meta"]))
            stored = tuple(meta["columns"])
            rows = npz["rows"].astype(np.float64)
            if stored != COLUMNS[:len(stored)]:
                raise ValueError("target statistics were written with other columns")
            if len(stored) < len(COLUMNS):
                rows = np.hstack([rows, np.zeros((rows.shape[0], len(COLUMNS) - len(stored)))])
            return cls(rows, npz["pos"].astype(object), meta["split_checksum"], meta["seed"],
                       meta["bootstrap"], meta["scorer_version"])
