"""Seeded RANKED files for the lst_gap.py parity test and its fixture generator.

``scripts/make_lexsub_gap_fixture.py`` runs the real ``lst_gap.py`` on these files and stores
its MEAN_GAP; ``test_lst_gap_parity.py`` rebuilds the same files from the same seeds and
checks that ours gives the stored numbers. Both import this module, so they cannot drift.
"""

from __future__ import annotations

import random

#: (family, split, scheme, seed) of every stored case.
CASES = [
    ("semeval07", "all", "random", 0),
    ("semeval07", "all", "random", 1),
    ("semeval07", "all", "coarse_ties", 2),
    ("semeval07", "all", "gold_aware", 3),
    ("semeval07", "all", "gold_aware", 4),
    ("semeval07", "test", "coarse_ties", 5),
    ("semeval07", "trial", "gold_aware", 6),
    ("coinco", "all", "random", 7),
    ("coinco", "all", "gold_aware", 8),
]


def _gold_subs(line: str) -> list[str]:
    return [e[:e.rfind(" ")] for e in line.split("::", 1)[1].strip().split(";") if e]


def ranked_lines(split, scheme: str, seed: int) -> list[str]:
    """One RANKED line per instance of ``split`` (a prepared LexsubSplit), in split order.

    * random: every pool candidate, a uniform score;
    * coarse_ties: every pool candidate, a score in {0.0, 0.1, ..., 0.5} (many ties);
    * gold_aware: part of the pool, with gold answers (multiword and hyphenated ones
      included) near the top, strings outside the pool, repeated candidates and equal
      scores, in shuffled order.
    """
    rng = random.Random(seed)
    lines = []
    for t in split.targets:
        pool = list(split.pool(t))
        if scheme == "random":
            entries = [(c, repr(rng.random())) for c in pool]
        elif scheme == "coarse_ties":
            entries = [(c, str(rng.randint(0, 5) / 10)) for c in pool]
        else:
            rng.shuffle(pool)
            kept = pool[:rng.randint(0, len(pool))]
            gold = _gold_subs(t.line)
            entries = [(c, str(rng.randint(5, 9))) for c in gold if rng.random() < 0.7]
            entries += [(c, str(rng.randint(0, 6))) for c in kept]
            entries += [("zzz" + str(rng.randint(0, 3)), "4")] * rng.randint(0, 2)
            if entries and rng.random() < 0.2:
                entries.append(entries[0])
            rng.shuffle(entries)
        lines.append("RANKED\t" + t.target_id + "".join(f"\t{c} {s}" for c, s in entries))
    return lines


def ranked_bytes(split, scheme: str, seed: int) -> bytes:
    """The file as written for lst_gap.py (latin-1, one line per instance)."""
    return ("\n".join(ranked_lines(split, scheme, seed)) + "\n").encode("latin-1")
