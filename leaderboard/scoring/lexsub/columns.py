"""The generative track's per-instance values, without numpy: score.pl's best/oot columns
and Jabbari et al.'s, one value per instance of the split (in its order).

:func:`.score.score` writes them into its numpy rows.
"""

from __future__ import annotations

from array import array

from leaderboard.scoring.lexsub import formats
from leaderboard.scoring.lexsub.jabbari_rows import jabbari_values
from leaderboard.scoring.lexsub.repeats import scorepl_gold
from leaderboard.scoring.lexsub.scorepl import score_columns
from leaderboard.scoring.lexsub.split import LexsubGold
from leaderboard.scoring.lexsub.validation import _json_lines

_NAMES = {"best": ("se_attempted", "best_credit", "se_mode_attempted", "best_mode_hit"),
          "oot": ("oot_attempted", "oot_credit", "oot_mode_attempted", "oot_mode_hit")}


def as_lines(answers: formats.Answers) -> None:
    """Scored rankings (JSON) as score.pl's lines, in place (:func:`.validation._json_lines`)."""
    answers.best_lines, answers.oot_lines = _json_lines(answers)
    answers.kind = formats.LINES


def semeval_columns(split: LexsubGold, answers: formats.Answers) -> dict[str, array]:
    """Column name -> a value per instance (an ``array('d')``, which numpy reads without a
    copy): score.pl's tallies (``se_item``, ``se_mode``, best and oot); an item's credit goes
    to the first instance of its id (score.pl keys items by the id). Each value is the sum,
    in order, of what the item adds (what numpy's element additions gave, one at a time)."""
    if answers.kind != formats.LINES:
        as_lines(answers)
    gold = scorepl_gold(split)
    row_of = split.item_rows
    n = len(split.targets)
    cols = {name: array("d", values) for name, values in _gold_columns(split).items()}
    zeros = array("d", bytes(8 * n))
    for kind in ("best", "oot"):
        score_columns(gold, answers.matches(kind), kind, row_of,
                      tuple(cols.setdefault(name, array("d", zeros)) for name in _NAMES[kind]))
    return cols


def _gold_columns(split: LexsubGold) -> dict[str, array]:
    """``se_item`` and ``se_mode``, which the gold alone fills: computed once per split."""
    found = split.__dict__.get("_gold_columns")
    if found is None:
        gold, row_of = scorepl_gold(split), split.item_rows
        found = {name: array("d", bytes(8 * len(split.targets)))
                 for name in ("se_item", "se_mode")}
        for item, count in gold.items.items():
            found["se_item"][row_of[item]] += count
        for item, count in gold.mode_items.items():
            found["se_mode"][row_of[item]] += count
        split.__dict__["_gold_columns"] = found
    return found


def generative_columns(split: LexsubGold, answers: formats.Answers
                       ) -> tuple[dict[str, array], array]:
    """:func:`semeval_columns` and the Jabbari values (each instance's row in turn,
    :func:`.jabbari_rows.jabbari_values`)."""
    cols = semeval_columns(split, answers)
    return cols, jabbari_values(split, answers)
