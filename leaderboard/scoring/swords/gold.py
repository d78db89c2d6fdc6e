"""Gold side of a benchmark split, prepared once and reused for every submission (spec 2).

:func:`prepare_split` lemmatizes every substitute (this needs WordNet); the result
serialises with :meth:`PreparedSplit.to_bytes` to gzipped JSON so that any worker can load it
with :meth:`PreparedSplit.from_bytes` without WordNet-preparing the gold again.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from leaderboard.scoring.bootstrap import pos_stream, resample_counts
from leaderboard.scoring.swords.lemmatize import lemma
from leaderboard.scoring.swords.semeval import SemEvalGold, build_semeval_gold

POSITIVE_LABELS = frozenset({"TRUE", "TRUE_IMPLICIT"})
NEGATIVE_LABELS = frozenset({"FALSE", "FALSE_IMPLICIT"})
UNSURE = "UNSURE"
#: Upstream thresholds: acceptable is "score > 0.5", implemented as >= 0.5 + 1e-4.
ACCEPTABLE_THRESHOLD = 0.5 + 1e-4
CONCEIVABLE_THRESHOLD = 0.1
FORMAT_VERSION = 1
GZIP_MAGIC = b"\x1f\x8b"


def load_split(path_or_bytes: str | Path | bytes) -> dict:
    """Read a SWORDS split from a path or from bytes, plain or gzipped JSON."""
    raw = path_or_bytes if isinstance(path_or_bytes, bytes) else Path(path_or_bytes).read_bytes()
    if raw[:2] == GZIP_MAGIC:
        raw = gzip.decompress(raw)
    return json.loads(raw.decode("utf-8"))


def split_checksum(split: dict) -> str:
    """sha256 of the split's canonical JSON (sorted keys, compact), whatever file it came from."""
    canonical = json.dumps(split, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass
class GoldTarget:
    """One target's merged, lemmatized gold: candidates with positive and total label counts."""

    target_id: str
    pos: str
    lemma: str
    candidates: list[str]
    positives: list[int]
    n_labels: list[int]

    def __post_init__(self) -> None:
        pairs = list(zip(self.positives, self.n_labels, strict=True))
        # the same float division as upstream, so threshold comparisons agree bit for bit
        self.scores: list[float] = [p / n for p, n in pairs]
        scored = list(zip(self.candidates, self.scores, strict=True))
        # One candidate -> position table serves membership and the GAP weights: a worker
        # keeps every target of every split, and per-candidate tuples were its largest part.
        index = {c: i for i, c in enumerate(self.candidates)}
        self.candidate_set: Mapping[str, int] = index
        self.acceptable = frozenset(c for c, s in scored if s >= ACCEPTABLE_THRESHOLD)
        self.conceivable = frozenset(c for c, s in scored if s >= CONCEIVABLE_THRESHOLD)
        self.weights = CandidateWeights(index, self.positives, self.scores)
        self.gap_denominator = _ideal_gap(self.positives)
        self.gap_rat_denominator = _ideal_gap(self.scores)
        self.semeval: SemEvalGold = build_semeval_gold(self.candidates, self.positives)

    @property
    def answer_counts(self) -> dict[str, int]:
        """Candidate -> positive labels, for those with any (Jabbari et al.'s counts h);
        built when asked, not kept: a worker holds every target of every split."""
        return {c: p for c, p in zip(self.candidates, self.positives, strict=True) if p > 0}

    @property
    def scored(self) -> bool:
        """A target with no remaining substitute is left out of every metric (spec 2.7)."""
        return bool(self.candidates)

    def ranked_candidates(self) -> list[str]:
        """Candidates by gold score, descending (stable): the oracle ranking."""
        order = sorted(range(len(self.candidates)), key=lambda i: -self.scores[i])
        return [self.candidates[i] for i in order]


class CandidateWeights(Mapping):
    """Candidate -> (positive votes as float, score), read from a target's own lists."""

    __slots__ = ("_index", "_votes", "_scores")

    def __init__(self, index: dict[str, int], votes: list[int], scores: list[float]):
        self._index, self._votes, self._scores = index, votes, scores

    def get(self, key: str, default: object = None) -> tuple[float, float] | object:
        """The weights of ``key``, or ``default`` when it is not a candidate (hot path)."""
        i = self._index.get(key)
        return default if i is None else (float(self._votes[i]), self._scores[i])

    def __getitem__(self, key: str) -> tuple[float, float]:
        i = self._index[key]
        return float(self._votes[i]), self._scores[i]

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


def _ideal_gap(weights) -> float:
    """GAP denominator: sum_j (g_1 + ... + g_j) / j over positive weights sorted descending.

    Summed left to right in plain floats, as the original GAP script does.
    """
    total = acc = 0.0
    for j, w in enumerate(sorted((float(w) for w in weights if w > 0), reverse=True), start=1):
        acc += w
        total += acc / j
    return total


@dataclass
class PreparedSplit:
    """Everything the scorer needs about a split, with no further WordNet work."""

    name: str
    checksum: str
    targets: list[GoldTarget]
    bootstrap: int = 1000
    seed: int = 0
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def target_index(self) -> dict[str, GoldTarget]:
        """Target id -> gold target, for every target of the split (scored or not)."""
        return {t.target_id: t for t in self.targets}

    @cached_property
    def scored_targets(self) -> list[GoldTarget]:
        """Targets that enter the metrics, in split order: the rows of every statistic."""
        return [t for t in self.targets if t.scored]

    @cached_property
    def scored_pos(self) -> np.ndarray:
        """POS of each scored target, aligned with :attr:`scored_targets`."""
        return np.array([t.pos for t in self.scored_targets], dtype=object)

    def resamples(self, pos: str | None = None, *, bootstrap: int | None = None,
                  seed: int | None = None) -> np.ndarray:
        """(B, n) resample count matrix over scored targets (of one POS), fixed per split."""
        b = self.bootstrap if bootstrap is None else bootstrap
        s = self.seed if seed is None else seed
        n = len(self.scored_targets) if pos is None else int(np.sum(self.scored_pos == pos))
        return resample_counts(n, b, s, pos_stream(pos))

    def to_bytes(self) -> bytes:
        """Compact gzipped JSON (no pickle); :meth:`from_bytes` restores it exactly."""
        doc = {
            "format": FORMAT_VERSION,
            "name": self.name,
            "checksum": self.checksum,
            "bootstrap": self.bootstrap,
            "seed": self.seed,
            "targets": [
                [t.target_id, t.pos, t.lemma, t.candidates, t.positives, t.n_labels]
                for t in self.targets
            ],
        }
        text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
        return gzip.compress(text.encode("utf-8"), mtime=0)

    @classmethod
    def from_bytes(cls, data: bytes) -> PreparedSplit:
        """Load what :meth:`to_bytes` wrote."""
        doc = json.loads(gzip.decompress(data).decode("utf-8"))
        if doc.get("format") != FORMAT_VERSION:
            raise ValueError(f"unsupported prepared-split format {doc.get('format')!r}")
        # One string object per distinct candidate across targets (JSON gives one per use).
        seen: dict[str, str] = {}
        for row in doc["targets"]:
            row[3] = [seen.setdefault(c, c) for c in row[3]]
        targets = [GoldTarget(*row) for row in doc["targets"]]
        return cls(doc["name"], doc["checksum"], targets, doc["bootstrap"], doc["seed"])


def prepare_split(split: dict, *, name: str = "split", bootstrap: int = 1000,
                  seed: int = 0) -> PreparedSplit:
    """Lemmatize, merge and score the gold of a SWORDS split (spec section 2, steps 1-7).

    Per target: each substitute maps to ``lemma(substitute, target POS)``; one equal to the
    target's lemma is dropped; substitutes sharing a lemma are merged (labels concatenated);
    UNSURE labels are dropped and so is a substitute left with none.
    """
    targets = split["targets"]
    target_lemma = {tid: lemma(t["target"], t.get("pos")) for tid, t in targets.items()}
    merged: dict[str, dict[str, list[int]]] = {tid: {} for tid in targets}
    labels_by_sid = split.get("substitute_labels", {})
    for sid, sub in split["substitutes"].items():
        tid = sub["target_id"]
        if tid not in targets:
            raise ValueError(f"substitute {sid} points to unknown target {tid}")
        lem = lemma(sub["substitute"], targets[tid].get("pos"))
        if lem == target_lemma[tid]:
            continue
        counts = merged[tid].setdefault(lem, [0, 0])
        for label in labels_by_sid.get(sid, ()):
            if label in POSITIVE_LABELS:
                counts[0] += 1
                counts[1] += 1
            elif label in NEGATIVE_LABELS:
                counts[1] += 1
            elif label != UNSURE:
                raise ValueError(f"substitute {sid} has unknown label {label!r}")
    gold = []
    for tid, t in targets.items():
        kept = [(c, p, n) for c, (p, n) in merged[tid].items() if n > 0]
        gold.append(GoldTarget(
            tid, t.get("pos") or "", target_lemma[tid],
            [c for c, _, _ in kept], [p for _, p, _ in kept], [n for _, _, n in kept],
        ))
    return PreparedSplit(name, split_checksum(split), gold, bootstrap, seed)
