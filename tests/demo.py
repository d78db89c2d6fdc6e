"""The demo split and its systems (leaderboard/demo), and submission files made from them."""

from __future__ import annotations

import gzip
import json

from leaderboard.config import PROJECT_ROOT

DEMO_DIR = PROJECT_ROOT / "leaderboard" / "demo"
DEMO_SPLIT = DEMO_DIR / "demo_split.json"
DEMO_SUBMISSIONS = DEMO_DIR / "submissions"


def demo_bytes(stem: str = "demo_strong") -> bytes:
    return (DEMO_SUBMISSIONS / f"{stem}.json").read_bytes()


def target_ids() -> list[str]:
    return list(json.loads(DEMO_SPLIT.read_bytes())["targets"])


def submission_doc(substitutes: dict, lemmatized: bool = False) -> bytes:
    return json.dumps({"substitutes_lemmatized": lemmatized,
                       "substitutes": substitutes}).encode()


def gzip_bomb(size: int) -> bytes:
    """A small .gz that expands to ``size`` bytes of spaces."""
    return gzip.compress(b" " * size, compresslevel=9)
