"""The LS07/CoInCo hot loops at C speed, where the package was built with its extension
(``csrc/``, the module ``_native``):

* :func:`parse_ranked`: a usual RANKED file read as a whole (what :func:`.ranked.parse_ranked`
  reads line by line, to the last bit of every score);
* :func:`parse_lines`: a usual .best/.oot file read as a whole (:func:`.formats.parse_lines`);
* :func:`coverage`: the pool check of :func:`.validation.validate`;
* :func:`gap_values`: each instance's GAP (:func:`.gap.gap_numerator` over its denominator);
* :func:`scorepl_columns`: score.pl's best or oot tallies (:func:`.scorepl.score_columns`);
* :func:`oot_repeats`: the .oot lines score.pl finds duplicates on (:func:`.repeats.
  oot_repeats`);
* :func:`line_entries` and :func:`first_answers`: what :class:`.formats.Answers` and
  :func:`.jabbari_rows.first_lines` (the diagnostics) make of each key's (item's) first
  answer part;
* :func:`jabbari_rows`: Jabbari et al.'s values (:func:`leaderboard.scoring.jabbari.
  jabbari_row` per instance, as :func:`.jabbari_rows.jabbari_values` calls it).

Each returns None where the extension is missing (a machine without a C compiler, or
``LEADERBOARD_PURE_PYTHON=1``) or declines the input (a score the two Pythons read
differently, a repeated id, a NaN score...); the caller then takes the Python path, which is
the definition. ``tests/scoring/lexsub/test_native.py`` holds both equal.
"""

from __future__ import annotations

import os
from array import array

from leaderboard.scoring.lexsub.lines import LineMatch

try:
    if os.environ.get("LEADERBOARD_PURE_PYTHON"):
        raise ImportError("LEADERBOARD_PURE_PYTHON is set")
    from leaderboard.scoring.lexsub import _native
except ImportError:
    _native = None

AVAILABLE = _native is not None


def parse_ranked(data: bytes, max_entries: int, max_lines: int,
                 max_chars: int) -> dict[str, list[tuple[str, float]]] | None:
    """Instance key -> [(candidate, score)] of a usual RANKED file (every non-blank line
    ``anything<TAB>key<TAB>cand score<TAB>...`` or without fields, distinct keys, each score a
    decimal number with nothing around it but CR, VT or FF, within the limits); else None."""
    if _native is None:
        return None
    return _native.parse_ranked(data, max_entries, max_lines, max_chars)


def coverage(ranked: dict, target_ids: list[str], pools: list[frozenset[str]],
             gold_maps: list[dict[str, int]], distinct: set[str]) -> tuple[int, int, int] | None:
    """(strings outside the pool, those among the gold answers, pool candidates left out),
    summed over the answered instances; adds to ``distinct`` the instances that rank no
    candidate twice. None without the extension."""
    if _native is None:
        return None
    return _native.coverage(ranked, target_ids, pools, gold_maps, distinct)


def gap_values(ranked: dict, target_ids: list[str],
               gap_gold: list[tuple[dict[str, int], float]]) -> list[float] | None:
    """Each instance's GAP (0.0 where its denominator is not positive: skipped), computed
    with the same floating-point operations in the same order as :func:`.gap.gap_numerator`;
    None without the extension or where a ranking holds a NaN or a non-float score."""
    if _native is None:
        return None
    return _native.gap_values(ranked, target_ids, gap_gold)


def scorepl_columns(matches: list, best: bool, norms: dict[str, dict[str, float]],
                    modes: dict[str, str], row_of: dict[str, int],
                    columns: tuple[array, ...]) -> bool:
    """score.pl's (attempted, credit, mode attempted, mode hit) of each counted line added to
    ``columns`` (``array('d')`` of one length) in place (``norms``: item id -> its norms);
    False, with nothing changed, without the extension or where an answer part is not
    latin-1 text."""
    if _native is None:
        return False
    return _native.scorepl_columns(matches, best, norms, modes, row_of, *columns)


def jabbari_rows(item_ids: list[str], counts: list[dict[str, int]], totals: list[int],
                 coverage: dict[str, str], first: dict[str, str] | None, out: array) -> bool:
    """Each instance's Jabbari values, written row after row to ``out`` (an ``array('d')`` of
    ``len(item_ids) * 15`` values): ``coverage`` maps an item id to the answer part of the
    line coverage reads, ``first`` (None: the same lines) to that of the line best1 reads;
    answers are compared as bytes, no str made for one. False (``out`` holds nothing to read)
    without the extension, where a count is not an int or a text not latin-1."""
    if _native is None:
        return False
    return _native.jabbari_rows(item_ids, counts, totals, coverage, first, out)


def oot_repeats(lines: list[tuple[int, str]], matches: list,
                norms: dict[str, dict[str, float]]) -> list[tuple[int, str]] | None:
    """(line number, item id) of each counted .oot line that repeats an answer; None
    without the extension or where an answer part is not latin-1 text."""
    if _native is None:
        return None
    return _native.oot_repeats(lines, matches, norms)


def parse_lines(data: bytes, max_entries: int, max_lines: int, max_chars: int) -> tuple | None:
    """What :func:`.formats.lines_answers` takes, of a usual .best/.oot file: every non-blank
    line a .best or .oot line (score.pl's match), no id twice in one kind, no carriage return
    at a line's end, within the limits, at least one answer line; else None."""
    if _native is None:
        return None
    return _native.parse_lines(data, max_entries, max_lines, max_chars, LineMatch)


def line_entries(firsts: dict[str, str]) -> dict[str, list[tuple[str, float]]] | None:
    """Key -> [(answer, -i)] of its answer part's fields that are not blank; None without
    the extension or where a part is not latin-1 text."""
    if _native is None:
        return None
    return _native.line_entries(firsts)


def first_answers(matches: list) -> dict[str, list[str]] | None:
    """score.pl's item id -> its first line's answers, trimmed, empty ones left out; None
    without the extension or where a part is not latin-1 text."""
    if _native is None:
        return None
    return _native.first_answers(matches)
