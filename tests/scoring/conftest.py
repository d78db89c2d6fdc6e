"""Fixtures for the scoring tests: tiny hand-made splits and, when present, the real data."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from leaderboard.scoring import prepare_split
from leaderboard.scoring.swords.lemmatize import wordnet_status


def shared_dir() -> Path:
    """``../shared`` beside the project, or ``$LEADERBOARD_SHARED_DIR``."""
    env = os.environ.get("LEADERBOARD_SHARED_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2].parent / "shared"


def shared_file(*parts: str) -> Path:
    """A file under the shared directory, or skip the test saying why."""
    path = shared_dir().joinpath(*parts)
    if not path.is_file():
        pytest.skip(f"real SWORDS data not found at {path} (set LEADERBOARD_SHARED_DIR)")
    return path


def _sha1(obj: dict) -> str:
    return hashlib.sha1(json.dumps(obj, sort_keys=True).encode()).hexdigest()


def make_split(targets: list[tuple[str, str, str, list[tuple[str, list[str]]]]]) -> dict:
    """A SWORDS split from (context, target word, POS, [(substitute, labels)]) rows."""
    split: dict = {"contexts": {}, "targets": {}, "substitutes": {}, "substitute_labels": {},
                   "substitutes_lemmatized": True}
    for context, word, pos, subs in targets:
        cid = "c:" + _sha1({"context": context})
        split["contexts"][cid] = {"context": context, "extra": {}}
        offset = context.index(word)
        tid = "t:" + _sha1({"context_id": cid, "target": word.lower(), "offset": offset,
                            "pos": pos})
        split["targets"][tid] = {"context_id": cid, "target": word, "offset": offset,
                                 "pos": pos, "extra": {}}
        for sub, labels in subs:
            sid = "s:" + _sha1({"target_id": tid, "substitute": sub.lower()} | {"n": len(
                split["substitutes"])})
            split["substitutes"][sid] = {"target_id": tid, "substitute": sub, "extra": {}}
            split["substitute_labels"][sid] = labels
    return split


def labels(n_true: int, n_false: int, n_unsure: int = 0) -> list[str]:
    """A label list with the given counts."""
    return ["TRUE"] * n_true + ["FALSE"] * n_false + ["UNSURE"] * n_unsure


#: The worked example of test_engine.py (numbers derived there by hand).
TINY = [
    ("The car stopped.", "car", "NOUN", [
        ("automobile", labels(8, 2)), ("vehicle", labels(5, 5)),
        ("truck", labels(1, 8, 1)), ("train", labels(0, 10)),
    ]),
    ("She ran home.", "ran", "VERB", [
        ("sprint", labels(7, 3)), ("jog", labels(6, 4)), ("hurry", labels(2, 8)),
        ("walk", labels(0, 10)),
    ]),
    ("An apple fell.", "apple", "NOUN", [("pear", labels(0, 10))]),
    ("A big house.", "big", "ADJ", [("large", labels(9, 1)), ("huge", labels(4, 6))]),
    ("The house stood.", "house", "NOUN", [("houses", labels(9, 1)), ("home", labels(0, 0, 3))]),
]


@pytest.fixture(scope="session")
def wordnet() -> None:
    """Skip when WordNet is not installed (``leaderboard wordnet install``)."""
    ok, detail = wordnet_status()
    if not ok:
        pytest.skip(f"WordNet 3.0 not installed: {detail}")


@pytest.fixture(scope="session")
def tiny_split() -> dict:
    """The hand-made split of :data:`TINY`."""
    return make_split(TINY)


@pytest.fixture(scope="session")
def tiny(wordnet, tiny_split):
    """The tiny split, prepared; target ids by word in ``tiny.ids``."""
    prepared = prepare_split(tiny_split, name="tiny", bootstrap=200, seed=0)
    prepared.ids = {t.lemma: t.target_id for t in prepared.targets}
    return prepared


@pytest.fixture(scope="session")
def real_test(wordnet):
    """The real SWORDS test split, prepared once per run (skips when absent)."""
    from leaderboard.scoring import load_split

    path = shared_file("data", "swords", "swords-v1.1_test.json.gz")
    return prepare_split(load_split(path), name="swords-v1.1_test")
