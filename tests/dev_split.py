"""A three-target split with public labels and one submission, every diagnostic by hand.

Every gold candidate has 10 labels, so its score is votes / 10 and GAP ratio = GAP on
every target (both the numerator and the denominator scale by 1/10).

car (NOUN): automobile 8/10 (acceptable), auto 6/10 (acceptable), vehicle 5/10 and truck
  1/10 (conceivable: 0.5 is not above the acceptable threshold 0.5 + 1e-4), train 0/10.
  Submitted: vehicle, automobile, boat, train.
  top 10: vehicle conceivable 0.5, automobile acceptable 0.8, boat not in gold,
  train not conceivable 0.0. Missed: auto 0.6 (never listed).
  hits 1 of 4 listed, min(2 acceptable, 10) = 2: P = 1/4, R = 1/2, F = 2PR/(P+R) = 1/3.
  GAP: votes 5, 8, -, 0 -> (5/1 + 13/2) / (8/1 + 14/2 + 19/3 + 20/4) = 11.5 / (79/3)
  = 34.5/79 = 0.436709 -> 43.67.
big (ADJ): large 9/10 (acceptable), huge 4/10 (conceivable), small 0/10.
  Submitted: ten adjectives outside the gold, then large at rank 11.
  top 10: all not in gold. Missed: large 0.9, rank 11. P = R = F = 0.
  GAP: (9/11) / (9/1 + 13/2) = (9/11) / 15.5 = 18/341 = 0.052786 -> 5.28.
summit (NOUN): peak 10/10, top 7/10 (acceptable), hill 2/10 (conceivable).
  Submitted: rock, stone, hill, peak, top. Missed: none.
  hits 2 of 5, min(2, 10) = 2: P = 2/5, R = 1, F = 0.8/1.4 = 4/7 = 57.14.
  GAP: votes -, -, 2, 10, 7 -> (2/3 + 12/4 + 19/5) / (10/1 + 17/2 + 19/3)
  = (112/15) / (149/6) = 224/745 = 0.300671 -> 30.07.
Pooled: hits 3, listed 4 + 10 + 5 = 19, gold 2 + 1 + 2 = 5: P = 3/19, R = 3/5,
  F = 2 (9/95) / (72/95) = 1/4 -> strict F^10 25.00; mean GAP
  (0.436709 + 0.052786 + 0.300671) / 3 = 0.263389 -> 26.34.
"""

from __future__ import annotations

import hashlib
import json

FILLERS = ["red", "blue", "green", "tall", "short", "old", "new", "hot", "cold", "wet"]


def hid(kind: str, text: str) -> str:
    """A SWORDS-style id: kind + ':' + 40 hex."""
    return f"{kind}:{hashlib.sha1(text.encode()).hexdigest()}"


TARGETS = {
    "car": ("The car stopped at the light.", "NOUN",
            [("automobile", 8), ("auto", 6), ("vehicle", 5), ("truck", 1), ("train", 0)]),
    "big": ("A big house stood there.", "ADJ", [("large", 9), ("huge", 4), ("small", 0)]),
    "summit": ("The summit was cold.", "NOUN", [("peak", 10), ("top", 7), ("hill", 2)]),
}
TID = {word: hid("t", f"dev-{word}") for word in TARGETS}


def dev_split() -> dict:
    """The split: 10 labels per candidate (votes TRUE, the rest FALSE)."""
    split: dict = {"contexts": {}, "targets": {}, "substitutes": {}, "substitute_labels": {},
                   "substitutes_lemmatized": True}
    for word, (context, pos, gold) in TARGETS.items():
        cid = hid("c", f"dev-{word}")
        split["contexts"][cid] = {"context": context, "extra": {}}
        split["targets"][TID[word]] = {"context_id": cid, "target": word,
                                       "offset": context.index(word), "pos": pos, "extra": {}}
        for sub, votes in gold:
            sid = hid("s", f"dev-{word}-{sub}")
            split["substitutes"][sid] = {"target_id": TID[word], "substitute": sub, "extra": {}}
            split["substitute_labels"][sid] = ["TRUE"] * votes + ["FALSE"] * (10 - votes)
    return split


def dev_split_bytes() -> bytes:
    return json.dumps(dev_split()).encode()


def dev_submission() -> dict:
    """The submission worked out in the module docstring."""
    return {"substitutes_lemmatized": False, "substitutes": {
        TID["car"]: [["vehicle", 0.9], ["automobile", 0.8], ["boat", 0.7], ["train", 0.6]],
        TID["big"]: [[w, 10 - i] for i, w in enumerate(FILLERS)] + [["large", 0.5]],
        TID["summit"]: [["rock", 0.9], ["stone", 0.8], ["hill", 0.7], ["peak", 0.6],
                        ["top", 0.5]],
    }}


def dev_submission_bytes() -> bytes:
    return json.dumps(dev_submission()).encode()
