"""Small SWORDS splits for the ops tests, built from readable words."""

from __future__ import annotations

import copy
import hashlib
import json
import os
from pathlib import Path

#: ``../shared/data`` beside the project, or ``$LEADERBOARD_SHARED_DIR/data`` (a worktree).
SHARED = (Path(os.environ["LEADERBOARD_SHARED_DIR"]) / "data"
          if os.environ.get("LEADERBOARD_SHARED_DIR")
          else Path(__file__).resolve().parents[2].parent / "shared" / "data")
TEST_SPLIT = SHARED / "swords" / "swords-v1.1_test.json.gz"
SUBSET_SPLIT = SHARED / "swords" / "swords-v1.1_test-subset.json.gz"
REFERENCE_DIR = SHARED / "reference-systems"


def hid(kind: str, text: str) -> str:
    """A SWORDS-style id: kind + ':' + sha1 hex of ``text``."""
    return f"{kind}:{hashlib.sha1(text.encode()).hexdigest()}"


def mini_split() -> dict:
    """Two targets; 'quickly' has rapidly (TRUE x2), fast (TRUE, FALSE), slowly (FALSE x2)."""
    c1, c2 = hid("c", "ctx1"), hid("c", "ctx2")
    t1, t2 = hid("t", "tgt1"), hid("t", "tgt2")
    split = {
        "contexts": {c1: {"context": "She quickly wrote a note.", "extra": {}},
                     c2: {"context": "The summit was cold.", "extra": {}}},
        "targets": {t1: {"context_id": c1, "target": "quickly", "offset": 4, "pos": "ADV",
                         "extra": {}},
                    t2: {"context_id": c2, "target": "summit", "offset": 4, "pos": "NOUN",
                         "extra": {}}},
        "substitutes": {}, "substitute_labels": {}, "substitutes_lemmatized": True,
    }
    for tid, word, labels in ((t1, "rapidly", ["TRUE", "TRUE"]), (t1, "fast", ["TRUE", "FALSE"]),
                              (t1, "slowly", ["FALSE", "FALSE"]), (t2, "peak", ["TRUE", "TRUE"]),
                              (t2, "top", ["TRUE", "UNSURE"]), (t2, "valley", ["FALSE", "FALSE"])):
        sid = hid("s", tid + word)
        split["substitutes"][sid] = {"target_id": tid, "substitute": word,
                                     "extra": {"sources": ["demo"]}}
        split["substitute_labels"][sid] = labels
    return split


def to_bytes(split: dict) -> bytes:
    return json.dumps(split).encode()


def variant(split: dict) -> dict:
    """A deep copy, to break one thing in."""
    return copy.deepcopy(split)
