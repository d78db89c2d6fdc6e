"""The numpy-free ``leaderboard score --bootstrap 0`` for .best/.oot lines and JSON on LS07
and CoInCo (issue 32 item 10) gives what the general path gives, to the last bit.

:func:`quick.score_generative` on the split read back from its cache entry against
:func:`score.score` (numpy rows, ``result_from_rows``) on the real test splits: the gold upper
bound, score.pl's parity file (blank, repeated and missing lines), seeded pools and seeded
quirky files (lines score.pl skips, CR line ends, repeated ids and answers, hyphens,
apostrophes, ``non-``, empty fields, unknown ids, .best or .oot lines only) and JSON: every
printed metric overall and per POS, the counts, the warnings and the signature, with ``==``.
The command's output through both paths is compared in ``test_quick.py``.
"""

from __future__ import annotations

import json
import random

import pytest

from leaderboard.commands.score_family import GENERATIVE_KEYS
from leaderboard.scoring.families import FAMILIES
from leaderboard.scoring.lexsub import quick
from leaderboard.scoring.lexsub.validation import validate

from .conftest import GENERATIVE
from .test_quick import _splits
from .test_scorepl_parity import _upper_bound_and_random

pytestmark = pytest.mark.slow

_ODD = ["non-stop", "non stop", "o'clock", "well-lit", " spaced ", "", "x;", "at hand",
        "\xe9t\xe9", "a  b"]


def _seeded(split, seed: int, scheme: str) -> bytes:
    """A .best/.oot file from each instance's pool and gold, shuffled with ``seed``."""
    rng = random.Random(seed)
    best, oot = [], []
    for t in split.targets:
        pool = list(split.pool(t)) + [e.rpartition(" ")[0] for e in
                                      t.line.split("::", 1)[1].strip().split(";") if e]
        rng.shuffle(pool)
        if scheme == "quirks":
            pool = [rng.choice(_ODD) if rng.random() < 0.1 else c for c in pool]
            if pool and rng.random() < 0.1:
                pool.append(pool[0])
        key = t.target_id if rng.random() > 0.05 else f"other.n {t.item_id}"
        roll = rng.random()
        if scheme == "quirks" and roll < 0.03:
            continue
        best.append(f"{key} :: {';'.join(pool[:rng.randint(0, 2)])}")
        oot.append(f"{key} ::: {';'.join(pool[:rng.randint(0, 14)])}"
                   + (";" * rng.randint(0, 2) if scheme == "quirks" else ""))
        if scheme == "quirks" and roll < 0.06:
            oot.append(f"{key} ::: {';'.join(pool[3:6])}")       # a repeated id
        if scheme == "quirks" and roll > 0.98:
            best.append(f"{key} : {pool[:1]}")                    # score.pl skips it
    if scheme == "quirks":
        best = [line + "\r" if rng.random() < 0.02 else line for line in best]
        best.append("unknown.n 999999 :: x")
    lines = {"pair": best + oot, "quirks": best + oot, "best": best, "oot": oot}[scheme]
    return ("\n".join(lines) + "\n").encode("latin-1")


def _json(split, seed: int) -> bytes:
    rng = random.Random(seed)
    doc = {"substitutes": {t.target_id: [[c, rng.randint(0, 3)] for c in split.pool(t)]
                           for t in split.targets if rng.random() < 0.9}}
    return json.dumps(doc).encode()


def _files(full):
    yield "mixed", _upper_bound_and_random(full, seed=7)
    for seed, scheme in enumerate(("pair", "quirks", "quirks", "best", "oot")):
        yield f"{scheme}{seed}", _seeded(full, seed, scheme)
    yield "json", _json(full, 3)


@pytest.mark.parametrize(("family", "name"), [("semeval07", "test"), ("semeval07", "trial"),
                                              ("coinco", "test")])
def test_quick_generative_is_the_general_path_bit_for_bit(family, name,
                                                          tmp_path_factory) -> None:
    full, fast = _splits(family, name, tmp_path_factory.getbasetemp() / "quick-cache")
    quick.load_generative(fast)
    assert "_scorepl_gold" in fast.__dict__ and "jabbari_counts" in fast.__dict__
    fam = FAMILIES[family]
    files = list(_files(full))
    files.append(("upper", fam.upper_bound_submission(fam.build_source(name))))
    for label, raw in files:
        report = fam.validate(raw, full, track=GENERATIVE)
        quick_report = validate(raw, fast, track=GENERATIVE)
        assert report.ok and quick_report.ok, (label, report.errors[:2])
        assert quick_report.warnings == report.warnings, label
        assert quick_report.counts == report.counts, label
        expected = fam.score(full, report, track=GENERATIVE)
        got = quick.score_generative(fast, quick_report)
        for key in GENERATIVE_KEYS:
            assert got.metrics[key] == expected.metrics[key], (label, key)
        assert list(got.by_pos) == list(expected.by_pos), label
        for pos, block in got.by_pos.items():
            for key in GENERATIVE_KEYS:
                assert block["metrics"][key] == expected.by_pos[pos]["metrics"][key], \
                    (label, pos, key)
        assert got.counts == expected.counts and list(got.counts) == list(expected.counts)
        assert got.warnings == expected.warnings and got.signature == expected.signature
        assert got.intervals == expected.intervals == {}
        if label == "quirks1":  # the quirks were met
            codes = {p.code for p in report.warnings}
            assert {"duplicate_instance", "unreadable_line", "carriage_return",
                    "duplicate_answers", "unknown_targets"} <= codes, codes
