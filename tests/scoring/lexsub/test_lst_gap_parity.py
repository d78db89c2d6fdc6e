"""GAP equals ``lst_gap.py GOLD RANKED OUT no-mwe`` on seeded files of the real splits.

The expected MEAN_GAP values were written by scripts/make_lexsub_gap_fixture.py, which runs
the field's Python 2 script itself on files from generated.py (seeds in the fixture), with the
number of fields it dropped printing "Error appending": the "quirks" files hold scores Python 2
reads and Python 3 does not (and the reverse), inf and nan, fields without a score and lines
ending in a tab and CRLF.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from leaderboard.scoring.families import FAMILIES

from .conftest import RANKING, lexsub_dir
from .generated import CASES, ranked_bytes

pytestmark = pytest.mark.slow
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "lst_gap_expected.json"
EXPECTED = json.loads(FIXTURE.read_text())["cases"]
_SPLITS: dict = {}


def _split(family: str, name: str):
    if (family, name) not in _SPLITS:
        fam = FAMILIES[family]
        _SPLITS[family, name] = fam.prepare(fam.build_source(name, lexsub_dir()),
                                            name=f"{family}-{name}", bootstrap=0)
    return _SPLITS[family, name]


def test_fixture_covers_every_generated_case() -> None:
    assert [(c["family"], c["split"], c["scheme"], c["seed"]) for c in EXPECTED] == CASES


@pytest.mark.parametrize("case", EXPECTED, ids=lambda c: f"{c['family']}-{c['split']}-"
                         f"{c['scheme']}-{c['seed']}")
def test_mean_gap_equals_lst_gap(case) -> None:
    split = _split(case["family"], case["split"])
    raw = ranked_bytes(split, case["scheme"], case["seed"])
    family = FAMILIES[case["family"]]
    report = family.validate(raw, split, track=RANKING)
    assert report.ok, report.errors[:3]
    result = family.score(split, report, track=RANKING, bootstrap=0)
    assert result.counts["targets_scored"] == case["read"]
    assert len(split.targets) - case["read"] == case["ignored"]
    # the script prints str(float): 12 significant digits
    assert float(f"{result.metrics['gap'] / 100:.12g}") == case["mean_gap"]
    # every field it dropped with a message is dropped with a warning, and no other
    assert dropped_fields(report.warnings) == case["errors_appending"]


def dropped_fields(warnings) -> int:
    """Fields the warnings say were dropped ("... (N in all, on lines ...)" or one)."""
    total = 0
    for w in warnings:
        if w.code in ("bad_score", "blank_entry"):
            many = re.search(r"\((\d[\d,]*) in all", w.message)
            total += int(many.group(1).replace(",", "")) if many else 1
    return total
