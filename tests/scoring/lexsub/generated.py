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
    ("semeval07", "all", "quirks", 9),
    ("coinco", "all", "quirks", 10),
]

# Scores Python 2's float reads (kept) and ones it refuses (lst_gap.py: "Error appending"),
# with the same weight: a field of the second kind is dropped, the rest of its line scored.
_READ = ["-inf", "inf", "nan", "1e999", "-1e999", "INF", "Infinity", "+nan", " 7 ", "3.",
         ".5", "-0", "2e0"]
_REFUSED = ["1_0", "\xd9\xa1", "\xa05", "5\x1c", "high", "0x1"]


def _gold_subs(line: str) -> list[str]:
    return [e[:e.rfind(" ")] for e in line.split("::", 1)[1].strip().split(";") if e]


def ranked_lines(split, scheme: str, seed: int) -> list[str]:
    """One RANKED line per instance of ``split`` (a prepared LexsubSplit), in split order.

    * random: every pool candidate, a uniform score;
    * coarse_ties: every pool candidate, a score in {0.0, 0.1, ..., 0.5} (many ties);
    * gold_aware: part of the pool, with gold answers (multiword and hyphenated ones
      included) near the top, strings outside the pool, repeated candidates and equal
      scores, in shuffled order;
    * quirks: gold_aware with scores Python 2 reads and Python 3 does not (or the reverse),
      ``inf``/``nan``, fields without a score (also a multiword one), a last field glued to
      its digits (``x5``: the newline makes it unreadable there), and lines ending in a tab,
      a tab and CR, or a CR.
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
        line = "RANKED\t" + t.target_id + "".join(f"\t{c} {s}" for c, s in entries)
        lines.append(_quirks(rng, line, entries) if scheme == "quirks" else line)
    return lines


def _quirks(rng: random.Random, line: str, entries: list[tuple[str, str]]) -> str:
    """The line of ``entries`` with odd scores, odd fields and odd line ends."""
    odd = [(c, rng.choice(_READ + _REFUSED) if rng.random() < 0.3 else s) for c, s in entries]
    fields = [f"{c} {s}" for c, s in odd]
    if rng.random() < 0.1:
        fields.insert(rng.randint(0, len(fields)), rng.choice(["smart", "at hand", "in-law"]))
    if fields and rng.random() < 0.1:
        fields.append(f"x{rng.randint(0, 9)}")
    line = line.split("\t", 2)
    return "\t".join(line[:2] + fields) + rng.choice(["", "", "", "\t", "\t\r", "\r"])


def ranked_bytes(split, scheme: str, seed: int) -> bytes:
    """The file as written for lst_gap.py (latin-1, one line per instance)."""
    return ("\n".join(ranked_lines(split, scheme, seed)) + "\n").encode("latin-1")


def single_words(pools: dict[str, list[str]]) -> list[str]:
    """Every candidate of ``pools`` that no-mwe keeps (no space, no hyphen), once, sorted."""
    return sorted({c for pool in pools.values() for c in pool if " " not in c and "-" not in c})


def distinct_ranked_bytes(split, words: list[str], per_line: int, seed: int = 0) -> bytes:
    """A RANKED file answering every instance of ``split`` with ``per_line`` distinct
    candidates: its pool's single words first, then words of ``words`` outside the pool, each
    with a one-digit score (the shape of a file at the per-line limit that ranks a whole
    vocabulary on each line)."""
    rng = random.Random(seed)
    lines = []
    for t in split.targets:
        pool = [c for c in split.pool(t) if " " not in c and "-" not in c]
        taken = set(pool)
        extra = [w for w in rng.sample(words, min(len(words), per_line + len(pool)))
                 if w not in taken][:per_line - len(pool)]
        lines.append("RANKED\t" + t.target_id + "".join(
            f"\t{c} {rng.randint(0, 9)}" for c in pool + extra))
    return ("\n".join(lines) + "\n").encode("latin-1")
