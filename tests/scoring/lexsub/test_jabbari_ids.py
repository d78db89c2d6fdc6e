"""Jabbari et al. on LS07 files: lines matched by the id (as score.pl), gold blanks merged.

The trial XML spells 12 lemmas unlike the gold (``bar.n 48`` against the
gold's ``bar.n.v 48``); score.pl keys items by the id and credits such a line, and so do
best1 and coverage here. Gold entries that differ only by trailing blanks
(``garden 2;...;garden  1``) would overwrite each other for Jabbari; they are merged there,
and kept apart for best/oot.
"""

from __future__ import annotations

import pytest

from leaderboard.scoring.lexsub.data import prepare_files

from .conftest import GENERATIVE, lexsub_dir, ours, perl_scores, run, tiny_split

BAR = "bar.n.v 48 :: prevent 3;obstruct 1;block 1;exclude 1;"
PUB = "bar.n 49 :: pub 5;saloon 2;"
YARD = "yard.n 801 :: garden 2;lawn 1;garden  1;"


def test_a_line_spelled_as_the_xml_answers_its_instance(tmp_path) -> None:
    split = tiny_split(tmp_path, [BAR, PUB])
    report, result = run(split, b"bar.n 48 :: prevent\nbar.n 48 ::: prevent;block;x\n",
                         GENERATIVE)
    m = result.metrics
    # item 48: best1 = 3 / 3; coverage found 3 + 1 of 6, one wrong answer; item 49: 0
    assert m["best1"] == pytest.approx(100 * (1 + 0) / 2)
    assert m["coverage_r"] == pytest.approx(100 * (4 / 6) / 2)
    assert m["coverage_p"] == pytest.approx(100 * (4 / 5) / 2)
    # best P as score.pl: 3/6 on the one attempted item
    assert m["best_p"] == pytest.approx(50.0)
    codes = {p.code: p.message for p in report.warnings}
    assert "unknown_targets" not in codes
    assert codes["missing_targets"].startswith("1 of 2 instances have no answer (first: bar.n 49)")
    assert result.counts["targets_answered"] == 1


def test_the_gold_spelling_still_answers_and_its_own_key_wins(tmp_path) -> None:
    split = tiny_split(tmp_path, [BAR, PUB])
    _, result = run(split, b"bar.n.v 48 ::: block\nbar.n 49 ::: pub\n", GENERATIVE)
    # coverage R: 1/6 and 5/7; best1 from the .oot line's first answer: 1/3 and 5/5
    assert result.metrics["coverage_r"] == pytest.approx(100 * (1 / 6 + 5 / 7) / 2)
    assert result.metrics["best1"] == pytest.approx(100 * (1 / 3 + 1) / 2)


def test_gold_entries_differing_by_blanks_are_merged_for_jabbari_only(tmp_path) -> None:
    split = tiny_split(tmp_path, [YARD])
    assert split.targets[0].answer_counts() == {"garden": 3, "lawn": 1}
    answers = tmp_path / "run.best"
    answers.write_bytes(b"yard.n 801 :: lawn\nyard.n 801 ::: lawn\n")
    _, result = run(split, answers.read_bytes(), GENERATIVE)
    m = result.metrics
    # merged: garden 3 (unmerged, the last entry overwrote it: 1), lawn 1, total 4
    assert m["best1"] == pytest.approx(100 * 1 / 3)
    assert m["coverage_r"] == pytest.approx(100 * 1 / 4)
    # score.pl keys 'garden' (2), 'lawn' (1) and 'garden ' (1) apart: lawn = 1/4, and its
    # best numbers are ours
    gold = tmp_path / "lst_trial.gold"
    theirs = perl_scores(answers, gold, "best")
    assert theirs["p"] == 25.0
    assert ours(result, "best") == {k: theirs[k] for k in ("p", "r", "mode_p", "mode_r")}


def test_score_pl_counts_the_blank_spelling_as_its_own_answer(tmp_path) -> None:
    split = tiny_split(tmp_path, [YARD])
    answers = tmp_path / "run.best"
    answers.write_bytes(b"yard.n 801 :: garden\n")
    _, result = run(split, answers.read_bytes(), GENERATIVE)
    theirs = perl_scores(answers, tmp_path / "lst_trial.gold", "best")
    assert theirs["p"] == 50.0  # 2 of 4: score.pl's 'garden' is the first entry alone
    assert ours(result, "best")["p"] == 50.0
    assert result.metrics["best1"] == pytest.approx(100.0)  # 3 of 3 merged


def test_trial_one_line_file_from_the_xml_spelling() -> None:
    data = lexsub_dir()
    split = prepare_files("semeval07", "trial", data, bootstrap=0)
    report, result = run(split, b"bar.n 48 :: prevent\n", GENERATIVE)
    messages = [p.message for p in report.warnings]
    assert not any("300 of 300" in m for m in messages)
    assert any(m.startswith("299 of 300 instances have no answer") for m in messages)
    assert result.counts["targets_answered"] == 1
    # best1 = 3 / 3 on bar.n.v 48, 0 on the 299 others (all 300 have gold counts)
    assert all(sum(t.answer_counts().values()) > 0 for t in split.targets)
    assert result.metrics["best1"] == pytest.approx(100 / 300)


def test_ls07_test_gold_merges_thirteen_instances() -> None:
    split = prepare_files("semeval07", "test", lexsub_dir(), bootstrap=0)
    yard = split.target_index["yard.n 801"]
    assert yard.answer_counts() == {"garden": 3, "lot": 1, "property": 1}
    merged = [t.target_id for t in split.targets
              if len(t.answer_counts()) < t.line.split("::", 1)[1].count(";")]
    assert len(merged) == 13
    assert {"yard.n 801", "come.v 888", "let.v 980", "light.a 992",
            "caravan.n 1221"} <= set(merged)


def test_ls07_test_best_oot_keep_score_pl_literal_keys(tmp_path) -> None:
    data = lexsub_dir()
    split = prepare_files("semeval07", "test", data, bootstrap=0)
    answers = tmp_path / "run.pair"
    answers.write_bytes(b"yard.n 801 :: garden\ncome.v 888 :: arrive\n"
                        b"yard.n 801 ::: garden\ncome.v 888 ::: arrive\n")
    _, result = run(split, answers.read_bytes(), GENERATIVE)
    for kind in ("best", "oot"):
        theirs = perl_scores(answers, data / "lst_test.gold", kind)
        assert ours(result, kind) == {k: theirs[k] for k in ("p", "r", "mode_p", "mode_r")}
    # Jabbari: garden 3 of 5 (yard), arrive 4 + 1 of come.v 888's total
    come = split.target_index["come.v 888"].answer_counts()
    assert come["arrive"] == 5
