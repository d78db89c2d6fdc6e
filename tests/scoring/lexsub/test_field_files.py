"""The field's real files go in as its scripts take them, with the warnings they deserve.

A line score.pl skips with a message is skipped with a warning naming
it; every number still equals ``perl score.pl`` (run live here) on the same file.
"""

from __future__ import annotations

import json
import random

import pytest

from leaderboard.scoring.families import FAMILIES
from leaderboard.scoring.swords.stats import COLUMN_INDEX

from .conftest import GENERATIVE, RANKING, lexsub_dir, ours, perl_scores, run, tiny_split

_SPLITS: dict = {}


def _real(name: str):
    """A real LS07 split and its gold file, as score.pl reads it."""
    if name not in _SPLITS:
        fam = FAMILIES["semeval07"]
        _SPLITS[name] = fam.prepare(fam.build_source(name, lexsub_dir()),
                                    name=f"semeval07-{name}", bootstrap=0)
    return _SPLITS[name], lexsub_dir() / f"lst_{name}.gold"


def _equal_to_score_pl(tmp_path, split, gold, raw: bytes, kinds=("best",)):
    """Validate and score ``raw``; every number of ``kinds`` equals score.pl's."""
    answers = tmp_path / "answers"
    answers.write_bytes(raw)
    report, result = run(split, raw, GENERATIVE)
    assert report.ok, report.errors[:3]
    for kind in kinds:
        expected = perl_scores(answers, gold, kind)
        assert ours(result, kind) == {k: v for k, v in expected.items() if k != "attempted"}
        column = COLUMN_INDEX["se_attempted" if kind == "best" else "oot_attempted"]
        assert result.target_stats.rows[:, column].sum() == expected["attempted"]
    return report, result


def _warning(report, code: str):
    [found] = [p for p in report.warnings if p.code == code]
    return found


@pytest.mark.slow
def test_a_log_line_at_the_top_is_named_and_the_rest_scored(tmp_path) -> None:
    """A course's .best file starts with its program's log line: score.pl prints "Error in
    file on line 1" and scores the rest; it was refused whole (unreadable_line)."""
    split, gold = _real("test")
    rng = random.Random(32)
    lines = ["finished initializing the model (embeddings: 400000 x 300) in 41.3 s"]
    for t in split.targets:
        pool = split.pool(t)
        if pool and rng.random() < 0.9:
            lines.append(f"{t.target_id} :: {rng.choice(pool)}")
    raw = ("\n".join(lines) + "\n").encode("latin-1")
    report, result = _equal_to_score_pl(tmp_path, split, gold, raw)
    warning = _warning(report, "unreadable_line")
    assert warning.position == 1 and "Error in file on line 1" in warning.message
    assert 0 < result.metrics["best_p"] < 100


@pytest.mark.slow
def test_a_best_line_ending_in_its_separator_without_a_space(tmp_path) -> None:
    """``bright.a 2 ::``: no space after ``::``, so score.pl skips that line (with a message)
    and scores the others."""
    split, gold = _real("trial")
    raw = b"bright.a 1 :: intelligent\nbright.a 2 ::\nbright.a 3 :: luminous;clear\n"
    report, result = _equal_to_score_pl(tmp_path, split, gold, raw)
    assert _warning(report, "unreadable_line").position == 2
    assert result.metrics["best_p"] == pytest.approx(100 * (3 / 7 + 1 / 5 / 2) / 2)


def test_crlf_best_and_oot_lines_are_scored_as_score_pl_and_the_cr_is_named(tmp_path) -> None:
    gold = ["bright.a 1 :: smart 3;clever 2;", "bright.a 2 :: vivid 2;shining 1;"]
    split = tiny_split(tmp_path, gold)
    raw = (b"bright.a 1 :: smart\r\nbright.a 2 :: vivid;\r\n"
           b"bright.a 1 ::: clever;smart\r\nbright.a 2 ::: \r\n")
    report, result = _equal_to_score_pl(tmp_path, split, tmp_path / "lst_trial.gold", raw,
                                         ("best", "oot"))
    warning = _warning(report, "carriage_return")
    assert warning.position == 1 and "(4 in all, on lines 1, 2, 3, 4)" in warning.message
    # "smart\r" is no gold answer; "vivid;\r" is vivid and a second answer "\r"
    assert result.metrics["best_p"] == pytest.approx(100 * (0 + 2 / 3 / 2) / 2)


def test_a_best_file_giving_every_id_twice_says_so(tmp_path) -> None:
    gold = ["bright.a 1 :: smart 3;clever 2;", "bright.a 2 :: vivid 2;shining 1;"]
    split = tiny_split(tmp_path, gold)
    raw = (b"bright.a 1 :: clever\nbright.a 2 :: vivid\n"
           b"bright.a 1 :: smart\nbright.a 2 :: shining\n")
    report, result = _equal_to_score_pl(tmp_path, split, tmp_path / "lst_trial.gold", raw)
    warning = _warning(report, "duplicate_instance")
    assert (warning.position, warning.target_id) == (3, "bright.a 1")
    assert "already given on line 1" in warning.message and "(2 in all" in warning.message
    assert result.metrics["best_p"] == pytest.approx(100 * (2 / 5 + 2 / 3) / 2)   # the first


def test_ranked_strings_outside_the_pool_that_are_gold_are_not_said_to_earn_nothing(
        tmp_path) -> None:
    """lst_gap.py credits whatever is ranked: brainy, gold but not a candidate, earns."""
    split = tiny_split(tmp_path, ["bright.a 1 :: smart 3;clever 2;brainy 1;"],
                       {"bright.a": ["smart", "clever"]})
    report, result = run(split, b"RANKED\tbright.a 1\tbrainy 3\tzzz 2\tsmart 1\tclever 0\n",
                         RANKING)
    nothing, credited = _warning(report, "outside_pool"), _warning(report, "outside_pool_gold")
    assert nothing.message.startswith("1 ranked strings are neither candidates nor gold")
    assert credited.message.startswith("1 ranked strings are not candidates")
    assert "earn credit" in credited.message
    # brainy 1/1, zzz nothing, smart (1+3)/3, clever (4+2)/4 over 3/1 + 5/2 + 6/3
    assert result.metrics["gap"] == pytest.approx(100 * (1 + 4 / 3 + 6 / 4) / 7.5)


def test_a_ranked_file_on_a_generative_board_is_refused_naming_the_ranking_board(
        tmp_path) -> None:
    """A RANKED file on a generative board is refused, naming the ranking board, not scored
    as best/oot from the candidate pool; the same file is GAP on the ranking board, as
    `leaderboard score` prints it."""
    split = tiny_split(tmp_path, ["bright.a 1 :: smart 3;clever 2;brainy 1;"],
                       {"bright.a": ["smart", "clever", "intelligent"]})
    raw = b"RANKED\tbright.a 1\tsmart 0.9\tclever 0.5\tintelligent 0.1\n"
    report, result = run(split, raw, GENERATIVE)
    assert result is None and [e.code for e in report.errors] == ["ranked_on_generative"]
    assert "ranking leaderboard" in report.errors[0].message
    report, result = run(split, raw, RANKING)
    assert report.ok and result.metrics["gap"] > 0


def test_blank_answer_lines_are_counted_and_said_to_take_the_previous_answers(
        tmp_path) -> None:
    """Blank answer lines are counted, and the warning says what score.pl does with them:
    each is credited with the previous line's answers, here too."""
    gold = ["bright.a 1 :: smart 3;clever 1;", "bright.a 2 :: smart 2;", "bright.a 3 :: vivid 2;"]
    split = tiny_split(tmp_path, gold)
    raw = b"bright.a 1 :: smart\nbright.a 2 :: \n"
    report, result = run(split, raw, GENERATIVE)
    codes = {w.code: w for w in report.warnings}
    assert "the answers of the line before it" in codes["blank_answers"].message
    assert codes["blank_answers"].target_id == "bright.a 2"
    assert "bright.a 3" in codes["missing_targets"].message
    assert (report.counts["blank_lines"], report.counts["missing"]) == (1, 1)
    # smart: 3/4 on item 1 and, carried over, 2/2 on item 2: best R = (0.75 + 1) / 3
    assert result.metrics["best_r"] == pytest.approx(100 * 1.75 / 3, abs=0.01)


def test_an_instance_not_in_the_split_is_ignored_with_a_warning_in_every_format(
        tmp_path) -> None:
    """The site's own inputs list 7 LS07 instances without gold: answering them is a
    warning in every format (a JSON file as RANKED lines), not an unknown_target refusal."""
    split = tiny_split(tmp_path, ["bright.a 1 :: smart 3;clever 2;"],
                       {"bright.a": ["smart", "clever"]})
    as_json = json.dumps({"substitutes": {"bright.a 1": [["smart", 2], ["clever", 1]],
                                          "about.r 567": [["around", 1]]}}).encode()
    as_ranked = b"RANKED\tbright.a 1\tsmart 2\tclever 1\nRANKED\tabout.r 567\taround 1\n"
    for raw in (as_json, as_ranked):
        report, result = run(split, raw, RANKING)
        assert report.ok, report.errors
        warning = next(w for w in report.warnings if w.code == "unknown_targets")
        assert "about.r 567" in warning.message and "ignored" in warning.message
        assert result.metrics["gap"] == pytest.approx(100.0)
