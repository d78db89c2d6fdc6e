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
