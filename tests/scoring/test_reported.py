"""Reported rows: the shipped files load, their numbers are the papers', bad files are refused."""

from __future__ import annotations

import json

import pytest

from leaderboard.scoring.reported import (
    ReportedInvalid,
    load_reported,
    load_shipped,
    parse_reported,
    shipped_files,
)

from .conftest import shared_file

F_KEYS = ("lenient_a_f@10", "lenient_c_f@10", "strict_a_f@10", "strict_c_f@10")


def _file(name: str) -> list:
    [path] = [p for p in shipped_files() if p.name == name]
    return load_reported(path)


def _by_name(rows) -> dict:
    return {(r.name, r.track): r for r in rows}


def test_every_shipped_file_loads():
    assert [p.name for p in shipped_files()] == [
        "arefyev-coling2020-lexsubgen.json", "mccarthy-navigli-2009-ls07.json",
        "seneviratne-coling2022-cilex.json", "swords-naacl2021-generative.json",
        "swords-naacl2021-ranking.json", "wada-coling2022-ls07.json", "wada-coling2022.json"]
    rows = load_shipped()
    assert len(rows) == 22 + 1 + 12 + 13 + 7 + 1 + 2
    assert {r.track for r in rows} == {"generative", "ranking"}
    for row in rows:
        assert row.citation and row.url.startswith("https://") and row.source
        assert all(0 <= v <= 100 for v in row.metrics.values())


def test_table_4_numbers_typed_by_hand():
    rows = _by_name(_file("swords-naacl2021-generative.json"))
    humans = rows["Humans", "generative"]
    assert {k: humans.metrics.get(k) for k in F_KEYS} == {
        "lenient_a_f@10": 48.8, "lenient_c_f@10": 77.9, "strict_a_f@10": None,
        "strict_c_f@10": None}
    assert (humans.benchmark_version, humans.benchmark_split) == ("1.0", "test-subset")
    thesaurus = rows["Thesaurus", "generative"]
    assert (thesaurus.metrics["lenient_a_f@10"], thesaurus.metrics["lenient_c_f@10"]) == (
        12.0, 44.9)
    assert (thesaurus.benchmark_name, thesaurus.benchmark_version,
            thesaurus.benchmark_split) == ("swords", "1.0", "test")
    assert [rows["GPT-3 (reranked by BERT)", "generative"].metrics[k] for k in F_KEYS] == [
        34.6, 49.0, 22.7, 36.3]
    assert [rows["BERT-M (reranked by BERT)", "generative"].metrics[k] for k in F_KEYS] == [
        30.9, 48.3, 16.2, 25.4]
    assert [rows["BERT-LS", "generative"].metrics[k] for k in F_KEYS] == [
        32.1, 54.9, 17.2, 27.0]
    # Table 7 and Table 8 values of one row
    assert rows["Wordtune", "generative"].metrics["strict_c_p@10"] == 39.7
    assert rows["CoInCo", "generative"].metrics["strict_c_p@1"] == 88.2


def test_table_6_and_wada_typed_by_hand():
    rows = _by_name(_file("swords-naacl2021-ranking.json"))
    assert {n: r.metrics for (n, _), r in rows.items()} == {
        "Humans": {"gap": 66.2}, "BERT": {"gap": 56.9}, "BERT-LS": {"gap": 53.4},
        "BERT-LS without s_p": {"gap": 52.9}, "BERT-LS without s_v": {"gap": 51.7},
        "GloVe": {"gap": 49.7}, "Random": {"gap": 32.7}}
    wada = _file("wada-coling2022.json")
    assert [(r.track, r.metrics) for r in wada] == [
        ("generative", {"lenient_a_f@10": 33.61, "lenient_c_f@10": 65.84,
                        "strict_a_f@10": 24.52, "strict_c_f@10": 39.90}),
        ("ranking", {"gap_rat": 62.9})]
    assert {(r.benchmark_version, r.benchmark_split) for r in wada} == {("1.1", "test")}


def test_lexsubgen_readme_gap_typed_by_hand():
    """Samsung/LexSubGen README at 7d49693, 'Results': the SemEval and COINCO GAP columns."""
    rows = _file("arefyev-coling2020-lexsubgen.json")
    gap = {(r.name, r.benchmark_name, r.benchmark_split): r.metrics for r in rows}
    assert gap["XLNet+embs (Arefyev et al., LexSubGen)", "semeval07", "all"] == {"gap": 59.62}
    assert gap["XLNet+embs (Arefyev et al., LexSubGen)", "coinco", "all"] == {"gap": 55.63}
    assert gap["OOC (Arefyev et al., LexSubGen)", "semeval07", "all"] == {"gap": 44.65}
    assert gap["RoBERTa+embs (Arefyev et al., LexSubGen)", "coinco", "all"] == {"gap": 54.6}
    assert {r.track for r in rows} == {"ranking"} and len(gap) == 22


def test_cilex_table_2_typed_by_hand():
    """sandaruSen/CILex figs/results.png at 23f10aa (the paper's Table 2): best, best-m, oot,
    oot-m, recorded as recall."""
    keys = ("best_r", "best_mode_r", "oot_r", "oot_mode_r")
    rows = {(r.name, r.benchmark_name): r for r in _file("seneviratne-coling2022-cilex.json")}
    cilex3 = rows["CILex3 (Seneviratne et al.)", "semeval07"]
    assert [cilex3.metrics[k] for k in keys] == [23.31, 40.98, 56.32, 74.88]
    assert (cilex3.track, cilex3.benchmark_split) == ("generative", "test")
    lexsubcon = rows["LexSubCon (Michalopoulos et al. 2022)", "coinco"]
    assert [lexsubcon.metrics[k] for k in keys] == [14.0, 29.7, 38.0, 59.2]
    assert lexsubcon.benchmark_split == "test" and "Michalopoulos" in lexsubcon.note
    assert len(rows) == 12 and all(set(r.metrics) == set(keys) for r in rows.values())


def test_f_is_the_harmonic_mean_of_the_transcribed_p_and_r():
    for row in _file("swords-naacl2021-generative.json"):
        for prefix in ("lenient_a", "lenient_c", "strict_a", "strict_c"):
            m = {k: row.metrics.get(f"{prefix}_{k}@10") for k in "fpr"}
            if m["f"] is None:
                assert m["p"] is None and m["r"] is None
                continue
            assert m["f"] == pytest.approx(2 * m["p"] * m["r"] / (m["p"] + m["r"]), abs=0.1), (
                row.name, prefix)


def _detriple(token: str) -> str:
    """The text copy of the paper prints most numbers three times: 48.848.848.8."""
    n = len(token)
    return token[:n // 3] if n % 3 == 0 and token[:n // 3] * 3 == token else token


@pytest.mark.slow
def test_every_table_4_and_6_number_is_in_the_paper():
    lines = shared_file("papers", "swords-naacl2021.txt").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Humans* ")
                 and len(line.split()) == 5)
    table4 = [[_detriple(t) for t in lines[i].split()] for i in range(start, start + 13)]
    gen = _file("swords-naacl2021-generative.json")
    for row, printed in zip(gen, table4, strict=True):
        assert printed[0].rstrip("*") == row.name.split(" (")[0].replace("GPT-3", "Gpt-3") \
            .replace("BERT", "Bert")
        assert [str(row.metrics[k]) if k in row.metrics else "-" for k in F_KEYS] == printed[1:]
    start = next(i for i, line in enumerate(lines) if line.startswith("Model GAP"))
    table6 = [_detriple(lines[i].split()[-1]) for i in range(start + 1, start + 8)]
    ranking = _file("swords-naacl2021-ranking.json")
    assert [str(r.metrics["gap"]) for r in ranking] == table6


def _doc(**changes) -> dict:
    doc = {"format": 1, "citation": "A. Author. 2024. A paper.", "url": "https://example.org/p",
           "source": "Table 1", "benchmark": {"name": "swords", "version": "1.1", "split": "test"},
           "track": "generative",
           "rows": [{"name": "Sys", "metrics": {"lenient_a_f@10": 30.0}}]}
    doc.update(changes)
    return doc


def _problems(doc) -> list[str]:
    with pytest.raises(ReportedInvalid) as info:
        parse_reported(json.dumps(doc), origin="x.json")
    assert str(info.value).startswith("x.json: ")
    return info.value.problems


def test_a_minimal_file_and_row_overrides():
    doc = _doc(rows=[{"name": "Sys", "metrics": {"gap": 50}, "track": "ranking",
                      "benchmark": {"name": "swords", "version": "1.0", "split": "dev"},
                      "note": "n"}])
    [row] = parse_reported(json.dumps(doc))
    assert (row.track, row.benchmark_version, row.benchmark_split, row.note) == (
        "ranking", "1.0", "dev", "n")
    assert row.metrics == {"gap": 50.0}
    assert row.to_dict()["benchmark"] == {"name": "swords", "version": "1.0", "split": "dev"}


def test_unknown_metric_key_is_named():
    doc = _doc(rows=[{"name": "Sys", "metrics": {"lenient_f@10": 30.0}}])
    [problem] = _problems(doc)
    assert problem.startswith("rows[0] (Sys): unknown metric key 'lenient_f@10'")


def test_missing_citation():
    doc = _doc()
    del doc["citation"]
    assert _problems(doc) == ["rows[0] (Sys): missing citation"]


@pytest.mark.parametrize("value, message", [
    (100.5, "lenient_a_f@10 = 100.5 is outside 0-100 (values are percent)"),
    (-1, "lenient_a_f@10 = -1 is outside 0-100 (values are percent)"),
    (True, "lenient_a_f@10 must be a number, not true"),
    ("30", 'lenient_a_f@10 must be a number, not "30"'),
    (float("nan"), "lenient_a_f@10 must be a number, not NaN"),
])
def test_values_must_be_percent_numbers(value, message):
    doc = _doc(rows=[{"name": "Sys", "metrics": {"lenient_a_f@10": value}}])
    assert _problems(doc) == [f"rows[0] (Sys): {message}"]


def test_every_problem_is_listed_at_once():
    doc = _doc(track="both", format=2, extra=1,
               rows=[{"name": "Sys", "metrics": {}}, {"metrics": {"gap": 1}, "typo": 1}, 3])
    doc["benchmark"] = {"name": "swords", "version": "1.1"}
    assert _problems(doc) == [
        "format must be 1, not 2",
        "unknown field 'extra'",
        "rows[0] (Sys): benchmark has no split",
        "rows[0] (Sys): track must be one of generative, ranking, not 'both'",
        "rows[0] (Sys): metrics must be a non-empty object",
        "rows[1]: unknown field 'typo'",
        "rows[1]: missing name",
        "rows[1]: benchmark has no split",
        "rows[1]: track must be one of generative, ranking, not 'both'",
        "rows[2]: must be an object",
    ]


def test_the_same_row_twice_and_a_bad_url():
    row = {"name": "Sys", "metrics": {"gap": 1}}
    assert _problems(_doc(url="ftp://x", rows=[row, row])) == [
        "rows[0] (Sys): url must start with https:// or http://, not 'ftp://x'",
        "rows[1] (Sys): url must start with https:// or http://, not 'ftp://x'",
        "rows[1] (Sys): the same name, track and benchmark appear twice",
    ]


@pytest.mark.parametrize("raw, message", [
    (b"{", "not valid JSON"),
    (b'{"format": 1, "format": 1, "rows": []}', "duplicate key(s) 'format'"),
    (b"[]", "the top level must be an object"),
    (b'{"format": 1}', "rows must be a non-empty list"),
    (b"\xff", "not valid JSON"),
    (b" " * 1_000_001, "the file has 1,000,001 bytes; the limit is 1,000,000"),
])
def test_unreadable_files(raw, message):
    with pytest.raises(ReportedInvalid, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_reported(raw)
