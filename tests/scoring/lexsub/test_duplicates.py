"""Items with duplicates: the faithful number is kept, the repeats are
counted as score.pl counts them (run live here) and warned about."""

from __future__ import annotations

import re
import subprocess

import pytest

from leaderboard.scoring.families import FAMILIES
from tests.lexsub_files import GOLD

from .conftest import GENERATIVE, RANKING, lexsub_dir, ours, perl_scores, run, score_pl, tiny_split

_DUPLICATES = re.compile(r"OOT file contains duplicates on (\d+) lines")


def perl_duplicates(answers, gold) -> int:
    """The N of score.pl's "WARNING OOT file contains duplicates on N lines" (0 if silent)."""
    out = subprocess.run(["perl", str(score_pl()), str(answers), str(gold), "-t", "oot"],
                         capture_output=True, text=True, check=True).stdout
    found = _DUPLICATES.search(out)
    return int(found.group(1)) if found else 0


def _warning(report, code: str):
    [found] = [p for p in report.warnings if p.code == code]
    return found


def test_oot_repeats_are_counted_as_score_pl_counts_them_and_its_numbers_kept(tmp_path) -> None:
    split = tiny_split(tmp_path, GOLD)
    raw = (b"bright.a 1 :: smart;smart\n"              # best: a repeat is not counted
           b"bright.a 1 ::: smart;smart;smart\n"       # 3 x 3/5
           b"bright.a 2 ::: vivid;shining\n"           # no repeat: 2/3 + 1/3
           b"side.n 3 ::: edge;part;edge\n"            # 2/3 + 1/3 + 2/3
           b"side.n 4 ::: near-by;near by\n"           # both 'near by' after fixmisc: 2 x 1/3
           b"bright.a 1 ::: smart;smart\n")   # the id again: score.pl skips it
    answers = tmp_path / "answers"
    answers.write_bytes(raw)
    gold = tmp_path / "lst_trial.gold"
    report, result = run(split, raw, GENERATIVE)
    assert report.ok, report.errors
    assert perl_duplicates(answers, gold) == 3
    assert report.counts["items_with_duplicates"] == 3
    assert result.counts["items_with_duplicates"] == 3
    warning = _warning(report, "duplicate_answers")
    assert warning.message.startswith("3 items repeat an answer")
    assert "line 2, item 1" in warning.message and warning.position == 2
    # the faithful numbers: oot R = (1.8 + 1 + 5/3 + 2/3) / 4 items
    assert result.metrics["oot_r"] == pytest.approx(100 * (1.8 + 1 + 5 / 3 + 2 / 3) / 4)
    for kind in ("best", "oot"):
        expected = perl_scores(answers, gold, kind)
        assert ours(result, kind) == {k: v for k, v in expected.items() if k != "attempted"}
    assert ours(result, "oot")["r"] == 128.33


def test_a_file_without_repeats_counts_zero_and_is_not_warned(tmp_path) -> None:
    split = tiny_split(tmp_path, GOLD)
    raw = b"bright.a 1 ::: smart;clever\nside.n 3 ::: edge\n"
    (tmp_path / "answers").write_bytes(raw)
    report, result = run(split, raw, GENERATIVE)
    assert perl_duplicates(tmp_path / "answers", tmp_path / "lst_trial.gold") == 0
    assert result.counts["items_with_duplicates"] == 0
    assert "duplicate_answers" not in {w.code for w in report.warnings}


def test_json_answers_with_a_repeat_are_counted_on_a_generative_board(tmp_path) -> None:
    split = tiny_split(tmp_path, GOLD)
    raw = (b'{"substitutes": {"bright.a 1": [["smart", 2], ["smart", 1]], '
           b'"side.n 3": [["edge", 1]]}}')
    report, result = run(split, raw, GENERATIVE)
    assert report.counts["items_with_duplicates"] == 1
    assert result.counts["items_with_duplicates"] == 1
    assert result.metrics["oot_r"] == pytest.approx(100 * (1.2 + 2 / 3) / 4)


def test_a_ranked_candidate_given_twice_is_counted_and_gap_kept(tmp_path) -> None:
    split = tiny_split(tmp_path, ["bright.a 1 :: smart 3;clever 2;",
                                  "bright.a 2 :: vivid 2;shining 1;"],
                       {"bright.a": ["smart", "clever", "vivid", "shining"]})
    raw = (b"RANKED\tbright.a 1\tsmart 3\tsmart 2\tclever 1\n"
           b"RANKED\tbright.a 2\tvivid 2\tshining 1\n")
    report, result = run(split, raw, RANKING)
    assert report.ok, report.errors
    assert result.counts["items_with_duplicates"] == 1
    warning = _warning(report, "duplicate_answers")
    assert warning.target_id == "bright.a 1" and "lst_gap.py credits every repeat" in (
        warning.message)
    # smart 3/1, smart again 6/2, clever 8/3 over 3/1 + 5/2; the second instance is perfect
    assert result.metrics["gap"] == pytest.approx(100 * ((3 + 3 + 8 / 3) / 5.5 + 1) / 2)


@pytest.mark.slow
def test_the_repeated_mode_oot_file_keeps_its_number_and_is_counted(tmp_path) -> None:
    """The .oot file that repeats the gold mode on every line: its oot numbers are
    score.pl's (P far over 100), and its items with duplicates are counted as score.pl
    counts them."""
    fam = FAMILIES["semeval07"]
    split = fam.prepare(fam.build_source("test", lexsub_dir()), name="semeval07-test",
                        bootstrap=0)
    lines = []
    for t in split.targets:
        mode = t.line.split("::", 1)[1].strip().split(";")[0].rpartition(" ")[0]
        lines.append(f"{t.target_id} ::: " + ";".join([mode] * 10))
    raw = ("\n".join(lines) + "\n").encode("latin-1")
    answers = tmp_path / "mode.oot"
    answers.write_bytes(raw)
    gold = lexsub_dir() / "lst_test.gold"
    report, result = run(split, raw, GENERATIVE)
    expected = perl_duplicates(answers, gold)
    assert expected > 1600
    assert result.counts["items_with_duplicates"] == expected
    assert ours(result, "oot") == {k: v for k, v in perl_scores(answers, gold, "oot").items()
                                   if k != "attempted"}
    assert ours(result, "oot")["p"] > 400
