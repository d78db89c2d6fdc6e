"""Lemmatization parity with the original scorer's NLTK 3.5 (spec section 2)."""

from __future__ import annotations

import gzip
import json
import re
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from leaderboard.scoring.swords import lemmatize
from leaderboard.scoring.swords.lemmatize import (
    WordNetMissing,
    ensure_wordnet,
    lemma,
    morphy,
    wordnet_lemmatize,
)
from leaderboard.scoring.swords.wordnet_table import DEBIAN_WORDNET_DIR, compile_table, load_table

FIXTURE = Path(__file__).parent / "fixtures" / "nltk35_lemmas.jsonl.gz"


@pytest.mark.parametrize("word, pos, expected", [
    # NLTK 3.5 keeps applying the rules to the forms it produced (newer NLTK stops after one)
    ("businessess", "NOUN", "business"),
    ("nameded", "VERB", "name"),
    ("luncheses", "NOUN", "lunch"),
    ("possesses", "NOUN", "posse"),
    ("iss", "NOUN", "i"),
    # the same in every NLTK
    ("ran", "VERB", "run"),
    ("glasses", "NOUN", "glass"),
    ("better", "ADJ", "good"),
    ("LINES", "NOUN", "lines"),   # lowercased only after lemmatizing
    (" runs ", "VERB", "runs"),   # stripped only after lemmatizing
    ("runs", "VERB", "run"),
    ("dogs", "PROPN", "dog"),     # any other POS is a noun
    ("quickly", "ADV", "quickly"),
    ("ice creams", "NOUN", "ice creams"),  # WordNet spells collocations with underscores
])
def test_lemma(wordnet, word, pos, expected):
    assert lemma(word, pos) == expected


def test_morphy_candidates_in_nltk_order(wordnet):
    # in the exception list: the word and its listed lemmas only, no rule applied ('axe')
    assert morphy("axes", "n") == ["ax", "axis"]
    # 'es' -> '' twice, then 's' -> '': the first round that finds anything decides
    assert morphy("businessess", "n") == ["business"]
    assert morphy("xyzzyqq", "n") == []


def _fixture_rows() -> Iterator[tuple[str, list[str | None]]]:
    """(word, [NLTK 3.5's lemma for n, v, a, r]) for every string of the fixture written by
    scripts/make_lemma_fixture.py under NLTK 3.5."""
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as fh:
        for line in fh:
            word, *lemmas = json.loads(line)
            yield word, lemmas


def _stratum(word: str, lemmas: list[str | None]) -> tuple:
    """Which parts of speech change the word, and its shape: the kinds of string whose
    lemmatizing could differ, so that a sample holds some of each."""
    kinds = (False,) * len(_SHAPES) if word.isalpha() else tuple(
        bool(kind.search(word)) for kind in _SHAPES)
    shape = (word != word.lower(), *kinds, len(word) // 8)
    return tuple(expected is not None for expected in lemmas), shape


#: White space, digits, anything else that is not a letter.
_SHAPES = (re.compile(r"\s"), re.compile(r"\d"), re.compile(r"[^\w\s]|_"))


def _differences(rows) -> tuple[list[tuple], int]:
    differences, compared = [], 0
    for word, lemmas in rows:
        for pos, expected in zip("nvar", lemmas, strict=True):
            compared += 1
            got = wordnet_lemmatize(word, pos)
            if got != (word if expected is None else expected):
                differences.append((word, pos, expected, got))
    return differences, compared


def _stratified_sample() -> dict[tuple, list[tuple[str, list[str | None]]]]:
    """Stratum -> its rows to check: every row of a small stratum, and of the others their
    first row and a fixed one in SAMPLE_ONE_IN (chosen by a hash of the word, so every run
    checks the same rows)."""
    strata: dict[tuple, list] = {}
    for row in _fixture_rows():
        strata.setdefault(_stratum(*row), []).append(row)
    return {stratum: rows if len(rows) <= SMALL_STRATUM else
            rows[:1] + [row for row in rows[1:]
                        if zlib.crc32(row[0].encode()) % SAMPLE_ONE_IN == 0]
            for stratum, rows in strata.items()}


#: Strata up to this size are checked whole.
SMALL_STRATUM = 200
SAMPLE_ONE_IN = 25


def test_nltk35_fixture_sample_has_zero_differences(wordnet):
    """A stratified sample of the fixture; ``make verify`` checks every row."""
    strata = _stratified_sample()
    differences, compared = _differences(row for rows in strata.values() for row in rows)
    assert len(strata) > 70
    assert compared > 40_000
    assert differences[:20] == []


@pytest.mark.verify
def test_nltk35_fixture_has_zero_differences(wordnet):
    differences, compared = _differences(_fixture_rows())
    assert compared > 900_000
    assert differences[:20] == []


def _nltk35_morphy(word: str, pos: str, table) -> list[str]:
    """NLTK 3.5's _morphy as written there: no deduplication between rounds."""
    from leaderboard.scoring.swords.lemmatize import RULES

    index, rules = table.index[pos], RULES[pos]

    def apply_rules(forms):
        return [f[:-len(old)] + new for f in forms for old, new in rules if f.endswith(old)]

    def filter_forms(forms):
        out = []
        for f in forms:
            if f in index and f not in out:
                out.append(f)
        return out

    if word in table.exceptions[pos]:
        return filter_forms([word, *table.exceptions[pos][word]])
    forms = apply_rules([word])
    results = filter_forms([word, *forms])
    while not results and forms:
        forms = apply_rules(forms)
        results = filter_forms(forms)
    return results


@pytest.mark.parametrize("word, pos", [
    *((("es" * k), "v") for k in range(1, 9)),
    *((("es" * k + "d"), "v") for k in range(1, 7)),
    *((("ses" * k), "n") for k in range(1, 7)),
    *((("inging" * k), "v") for k in range(1, 4)),
    ("businessesseses", "n"), ("classeses", "n"), ("passeded", "v"), ("gladdesterer", "a"),
    ("watcheses", "n"), ("boxeses", "n"), ("missesses", "v"), ("menmen", "n"),
])
def test_deduplicated_rounds_equal_nltk35_rounds_on_short_hostile_strings(wordnet, word, pos):
    table = ensure_wordnet()
    assert morphy(word, pos) == _nltk35_morphy(word, pos, table)


def test_hostile_string_costs_linear_time(wordnet):
    # NLTK 3.5 doubles its form list each round on such strings; ours holds distinct forms
    assert wordnet_lemmatize("eses", "v") == "eses"
    started = time.perf_counter()
    assert wordnet_lemmatize("es" * 2000, "v") == "es" * 2000
    assert wordnet_lemmatize("es" * 2000 + "d", "v") == "es" * 2000 + "d"
    assert wordnet_lemmatize("s" * 5000 + "ing", "n") == "s" * 5000 + "ing"
    assert time.perf_counter() - started < 5  # exponential would never finish


def test_missing_table_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("LEADERBOARD_WORDNET_TABLE", str(tmp_path / "nope.json.gz"))
    lemmatize.reset_wordnet()
    try:
        with pytest.raises(WordNetMissing, match="leaderboard wordnet install"):
            ensure_wordnet()
        ok, detail = lemmatize.wordnet_status()
        assert not ok and "nope.json.gz" in detail
    finally:
        monkeypatch.undo()
        lemmatize.reset_wordnet()


def test_missing_wordnet_source_is_a_clear_error(tmp_path):
    with pytest.raises(WordNetMissing, match=r"lacks index\.noun.*wordnet-base"):
        compile_table(tmp_path, tmp_path / "table.json.gz")


@pytest.mark.skipif(not (DEBIAN_WORDNET_DIR / "index.noun").is_file(),
                    reason="Debian's wordnet-base is not installed")
def test_compiles_from_debian_and_from_an_nltk_data_dir(tmp_path):
    table = load_table(compile_table(DEBIAN_WORDNET_DIR, tmp_path / "t.json.gz"))
    assert "glass" in table.index["n"] and "run" in table.index["v"]
    assert table.exceptions["v"]["ran"] == ("run",)
    assert table.exceptions["a"]["better"] == ("good", "well")
    assert morphy("glasses", "n", table) == ["glasses", "glass"]  # both are nouns
    nltk_dir = tmp_path / "nltk_data" / "corpora" / "wordnet"
    nltk_dir.mkdir(parents=True)
    for name in ("index.noun", "index.verb", "index.adj", "index.adv",
                 "noun.exc", "verb.exc", "adj.exc", "adv.exc"):
        (nltk_dir / name).write_bytes((DEBIAN_WORDNET_DIR / name).read_bytes())
    again = load_table(compile_table(tmp_path / "nltk_data", tmp_path / "u.json.gz"))
    assert again.index == table.index and again.exceptions == table.exceptions
