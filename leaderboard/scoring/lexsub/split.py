"""What a prepared LS07 or CoInCo split holds, without numpy: its instances and the per-split
readings of the gold that every scored file shares (:class:`LexsubGold`, which
:class:`.data.LexsubSplit` mixes in).
"""

from __future__ import annotations

from collections import namedtuple
from functools import cached_property

from leaderboard.scoring.lexsub.gap import gap_denominator, gold_weights, split_last_space
from leaderboard.scoring.lexsub.scorepl import item_of
from leaderboard.scoring.swords.jabbari import BLANKS, gold_total

TYPE_CHECKING = False  # typing itself is not imported: validation needs no more than this
if TYPE_CHECKING:
    from typing import TypeVar

    V = TypeVar("V")
POS_NAMES = {"n": "NOUN", "v": "VERB", "a": "ADJ", "j": "ADJ", "r": "ADV"}


class SplitFiles(namedtuple("SplitFiles", "gold inputs candidates filter_by_inputs",
                            defaults=(False,))):
    """Where one split's gold and inputs are, and which pool file goes with them;
    ``filter_by_inputs``: CoInCo's dev/test gold is its `all` gold restricted to the ids of
    these inputs."""

    __slots__ = ()


FILES: dict[str, dict[str, SplitFiles]] = {
    "semeval07": {
        split: SplitFiles(f"lst_{split}.gold", f"lst_{split}.preprocessed.gz",
                          "lst.gold.candidates")
        for split in ("trial", "test", "all")
    },
    "coinco": {
        split: SplitFiles("coinco_all.no_problematic.gold.gz",
                          f"coinco_{split}.no_problematic.preprocessed.gz",
                          "coinco.no_problematic.candidates", filter_by_inputs=split != "all")
        for split in ("all", "dev", "test")
    },
}


def pos_of(lemma_pos: str) -> str:
    """NOUN/VERB/ADJ/ADV from ``lemma.pos`` (LS07 n/v/a/r, CoInCo N/V/J/R); OTHER otherwise."""
    return POS_NAMES.get(lemma_pos.rpartition(".")[2].lower(), "OTHER")


def gold_key(line: str) -> str:
    """The instance key of a gold line as ``lst_gap.py`` takes it: the text before ``::``."""
    return line.split("::", 1)[0].strip()


class LexsubTarget(namedtuple("LexsubTarget", "target_id item_id lemma pos line")):
    """One gold instance: its key (``target_id``: ``lemma.pos ID``), score.pl's item id, its
    lemma and part of speech, and its gold line."""

    __slots__ = ()

    @property
    def scored(self) -> bool:
        return True

    def answer_counts(self) -> dict[str, int]:
        """Each gold answer and how many annotators gave it, as Jabbari et al.'s metrics read
        the line: answers trimmed of blanks at both ends, and entries that are then equal
        merged, their counts added (``garden 2;...;garden  1`` of ``yard.n 801``: garden 3).
        score.pl keys the two apart (``garden`` and ``garden ``), and best/oot keep that."""
        counts: dict[str, int] = {}
        for entry in self.line.split("::", 1)[1].strip().split(";"):
            if entry:
                answer, count = split_last_space(entry)
                answer = answer.strip(BLANKS)
                counts[answer] = counts.get(answer, 0) + int(count)
        return counts


def target_of(line: str) -> LexsubTarget:
    """The instance of one gold line."""
    key = gold_key(line)
    lemma_pos, _, item = key.rpartition(" ")
    return LexsubTarget(key, item_of(line) or item, lemma_pos.rpartition(".")[0],
                        pos_of(lemma_pos), line)


def targets_of(gold: list[str]) -> list[LexsubTarget]:
    """The instances of a split's gold lines; lst_gap.py keeps the last line of a key (no
    distributed file repeats one)."""
    by_key = {gold_key(line): line for line in gold}
    return [target_of(line) for line in by_key.values()]


class LexsubGold:
    """The per-split readings of the gold, each computed once per split object. Needs
    ``targets`` (list of :class:`LexsubTarget`), ``pools`` (lemma.pos -> candidates) and
    ``target_index`` (instance key -> target) on the class it is mixed into."""

    targets: list[LexsubTarget]
    pools: dict[str, list[str]]
    target_index: dict

    @cached_property
    def items(self) -> dict[str, LexsubTarget]:
        """score.pl's item id -> the first instance with it (score.pl keys items by id)."""
        found: dict[str, LexsubTarget] = {}
        for t in self.targets:
            found.setdefault(t.item_id, t)
        return found

    @cached_property
    def gap_gold(self) -> list[tuple[dict[str, int], float]]:
        """Per instance (split order): its no-mwe gold map and GAP denominator, parsed once
        per split rather than once per scored file."""
        out = []
        for t in self.targets:
            weights = gold_weights(t.line)
            out.append((dict(weights), gap_denominator(weights)))
        return out

    @cached_property
    def jabbari_counts(self) -> list[dict[str, int]]:
        """Per instance (split order): :meth:`LexsubTarget.answer_counts`, read once per split."""
        return [t.answer_counts() for t in self.targets]

    @cached_property
    def jabbari_totals(self) -> list[float]:
        """Per instance (split order): the sum of h over its gold answers, coverage R's
        denominator (:func:`leaderboard.scoring.swords.jabbari.gold_total`)."""
        return list(map(gold_total, self.jabbari_counts))

    @cached_property
    def item_rows(self) -> dict[str, int]:
        """score.pl's item id -> the row (split order) of its first instance, which an
        item's credit goes to."""
        return {t.item_id: i for i, t in reversed(list(enumerate(self.targets)))}

    @cached_property
    def pool_sets(self) -> dict[str, frozenset[str]]:
        """Instance key -> its pool as a set, built once per split (checked for every file);
        the instances of one lemma.pos share theirs."""
        by_lemma = {key: frozenset(pool) for key, pool in self.pools.items()}
        empty: frozenset[str] = frozenset()
        return {t.target_id: by_lemma.get(t.target_id.rpartition(" ")[0], empty)
                for t in self.targets}

    @cached_property
    def target_ids(self) -> list[str]:
        """Each instance's key, in split order."""
        return [t.target_id for t in self.targets]

    @cached_property
    def no_candidates(self) -> frozenset[str]:
        """Instances whose candidate pool is empty (9 on LS07: ``bar.n.v 48``, ``stand.n.v
        131``...; the pool file has no entry for their lemma.pos): no ranking answers them."""
        return frozenset(t.target_id for t in self.targets if not self.pool(t))

    def instance_key(self, key: str) -> str:
        """The split's key of an answer line's ``lemma.pos ID``, matched as score.pl matches
        lines, by the id alone: the trial XML writes ``bar.n 48`` for the gold's ``bar.n.v
        48``. A key of the split is its own; one whose id is not in the split stays as is."""
        if key in self.target_index:
            return key
        target = self.items.get(key.rpartition(" ")[2])
        return key if target is None else target.target_id

    def by_instance(self, entries: dict[str, V]) -> dict[str, V]:
        """Answer-line entries re-keyed by :meth:`instance_key` (the first one of an id);
        ``entries`` itself when every key is the split's own (the usual file): callers only
        read it."""
        if self.target_index.keys() >= entries.keys():
            return entries
        out: dict[str, V] = {}
        for key, value in entries.items():
            out.setdefault(self.instance_key(key), value)
        return out

    def answer_lengths(self, given: dict[str, list]) -> list[int]:
        """The length of each non-empty list of ``given`` (by instance) whose key is the
        split's, in ``given``'s order."""
        if self.target_index.keys() >= given.keys():  # the usual file: each key the split's
            return list(map(len, filter(None, given.values())))
        return [len(v) for k, v in given.items() if v and k in self.target_index]

    def pool(self, target: LexsubTarget) -> list[str]:
        """The candidates a ranking system scores for ``target``."""
        return self.pools.get(target.target_id.rpartition(" ")[0], [])
