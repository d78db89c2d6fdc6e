"""Lemmatization parity with the original scorer (spec section 2)."""

from __future__ import annotations

import pytest

from leaderboard.scoring import lemmatize
from leaderboard.scoring.lemmatize import WordNetMissing, ensure_wordnet, lemma


@pytest.mark.parametrize("word, pos, expected", [
    ("ran", "VERB", "run"),
    ("glasses", "NOUN", "glass"),
    ("better", "ADJ", "good"),
    ("LINES", "NOUN", "lines"),   # lowercased only after lemmatizing
    (" runs ", "VERB", "runs"),   # stripped only after lemmatizing
    ("runs", "VERB", "run"),
    ("dogs", "PROPN", "dog"),     # any other POS is a noun
    ("quickly", "ADV", "quickly"),
    ("ice creams", "NOUN", "ice creams"),
])
def test_lemma(wordnet, word, pos, expected):
    assert lemma(word, pos) == expected


def test_missing_wordnet_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(lemmatize, "_lemmatizer", None)
    monkeypatch.setattr(lemmatize, "wordnet_status", lambda: (False, "LookupError: nope"))
    with pytest.raises(WordNetMissing, match="leaderboard wordnet install"):
        ensure_wordnet()
