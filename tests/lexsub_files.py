"""Tiny LS07-format data folders written by tests (the real ones stay in ../shared)."""

from __future__ import annotations

import gzip
from pathlib import Path

#: A hand-checked LS07-format gold (numbers worked out in the tests that use it).
GOLD = ["bright.a 1 :: smart 3;clever 2;",
        "bright.a 2 :: vivid 2;shining 1;",
        "side.n 3 :: edge 2;part 1;",
        "side.n 4 :: at hand 2;near-by 1;"]
POOLS = {"bright.a": ["smart", "clever", "vivid", "shining"],
         "side.n": ["edge", "part", "at hand", "near-by"]}


def write_semeval07(folder: Path, gold: list[str] | None = None,
                    pools: dict[str, list[str]] | None = None,
                    splits: tuple[str, ...] = ("trial",)) -> Path:
    """LS07-named gold, input and candidate files of ``splits`` in ``folder``; returns it."""
    gold = GOLD if gold is None else gold
    pools = POOLS if pools is None else pools
    inputs = []
    for line in gold:
        lemma_pos, _, item = line.split("::", 1)[0].strip().rpartition(" ")
        inputs.append(f"{lemma_pos}\t{item}\t0\t{lemma_pos.rpartition('.')[0]} is here")
    for split in splits:
        (folder / f"lst_{split}.gold").write_bytes(("\n".join(gold) + "\n").encode("latin-1"))
        text = "\n".join(inputs) + "\n"
        (folder / f"lst_{split}.preprocessed.gz").write_bytes(
            gzip.compress(text.encode("latin-1")))
    (folder / "lst.gold.candidates").write_bytes("".join(
        f"{k}::{';'.join(v)}\n" for k, v in pools.items()).encode("latin-1"))
    return folder


#: A CoInCo-format gold (POS letters N/V/J/R; one lemma holds a space, as CoInCo's do).
COINCO_GOLD = ["e commerce.J 101 :: online 3;electronic 2;",
               "bank.N 102 :: shore 2;riverside 2;edge 1;",
               "run.V 103 :: sprint 3;dash 1;",
               "quickly.R 104 :: fast 4;rapidly 1;"]
COINCO_POOLS = {"e commerce.J": ["online", "electronic", "digital"],
                "bank.N": ["shore", "riverside", "edge", "lender"],
                "run.V": ["sprint", "dash", "jog"], "quickly.R": ["fast", "rapidly", "soon"]}


def write_coinco(folder: Path) -> Path:
    """CoInCo-named files (all/dev/test) of :data:`COINCO_GOLD` in ``folder``; returns it.
    The test split holds every instance; dev holds the first two."""
    inputs = []
    for line in COINCO_GOLD:
        lemma_pos, _, item = line.split("::", 1)[0].strip().rpartition(" ")
        inputs.append(f"{lemma_pos}\t{item}\t0\t{lemma_pos.rpartition('.')[0]} here")
    (folder / "coinco_all.no_problematic.gold.gz").write_bytes(
        gzip.compress(("\n".join(COINCO_GOLD) + "\n").encode("latin-1")))
    for split, rows in (("all", inputs), ("test", inputs), ("dev", inputs[:2])):
        (folder / f"coinco_{split}.no_problematic.preprocessed.gz").write_bytes(
            gzip.compress(("\n".join(rows) + "\n").encode("latin-1")))
    (folder / "coinco.no_problematic.candidates").write_bytes("".join(
        f"{k}::{';'.join(v)}\n" for k, v in COINCO_POOLS.items()).encode("latin-1"))
    return folder
