"""Lemmatization exactly as the original SWORDS scorer does it (spec section 2).

``lemma(word, pos) = WordNetLemmatizer().lemmatize(word, pos=p).lower().strip()`` as NLTK 3.5
computes it over WordNet 3.0, reimplemented here without NLTK: NLTK 3.5's morphy (exception
lists, the detachment rules of the POS applied round after round until WordNet knows a form,
the shortest candidate). The lemmatizer sees the raw string: ``LINES`` stays ``lines`` and
``' runs '`` becomes ``runs``. A missing WordNet table is an error, never a fallback.

Unlike NLTK 3.5, which keeps every produced form (duplicates included) as a new string,
each round here holds each distinct form once, as (length of the word's prefix kept, new
suffix): the result is the same (the first shortest candidate, found in the same round), and
the cost stays linear in the word's length even for hostile strings.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial

from leaderboard.scoring.swords.wordnet_table import (
    INSTALL_HINT,
    WordNetMissing,
    WordNetTable,
    load_table,
)

__all__ = ["INSTALL_HINT", "WORDNET_POS", "WordNetMissing", "ensure_wordnet", "lemma",
           "lemmatizer_for", "morphy", "reset_wordnet", "wordnet_lemmatize", "wordnet_status"]

#: Target POS of the benchmark -> WordNet POS letter; anything else is a noun upstream.
WORDNET_POS = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}

#: NLTK 3.5's ``MORPHOLOGICAL_SUBSTITUTIONS``, in its order (the order decides ties).
RULES: dict[str, tuple[tuple[str, str], ...]] = {
    "n": (("s", ""), ("ses", "s"), ("ves", "f"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
          ("shes", "sh"), ("men", "man"), ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
          ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}
_LONGEST_RULE = max(len(old) for rules in RULES.values() for old, _ in rules)

_table: WordNetTable | None = None


def reset_wordnet() -> None:
    """Forget the loaded table so the next call reads it from disk again."""
    global _table
    _table = None
    _lemmatize_raw.cache_clear()


def ensure_wordnet() -> WordNetTable:
    """Load the compiled WordNet table now, or raise :class:`WordNetMissing` naming the fix."""
    global _table
    if _table is None:
        _table = load_table()
    return _table


def wordnet_status() -> tuple[bool, str]:
    """(True, where) when the table loads and lemmatizes correctly, else (False, why)."""
    from leaderboard.scoring.swords.wordnet_table import table_path

    try:
        table = ensure_wordnet()
    except WordNetMissing as exc:
        return False, str(exc)
    if wordnet_lemmatize("glasses", "n") != "glass":
        return False, f"the WordNet table {table_path()} does not lemmatize glasses/n to glass"
    return True, f"{table_path()} (from {table.source})"


def _apply_rules(word: str, forms: list[tuple[int, str]], rules) -> list[tuple[int, str]]:
    """One round of detachment rules over ``forms``; distinct results, first-seen order.

    A form is ``word[:k] + s``; it is kept canonical (``s`` never starts with the letter the
    word has at position k), so equal strings have equal pairs.
    """
    out: list[tuple[int, str]] = []
    seen: set[tuple[int, str]] = set()
    n = len(word)
    for k, s in forms:
        tail = word[max(0, k - _LONGEST_RULE):k] + s
        for old, new in rules:
            if not tail.endswith(old):
                continue
            if len(old) <= len(s):
                nk, ns = k, s[:len(s) - len(old)] + new
            else:
                nk, ns = k - (len(old) - len(s)), new
            while ns and nk < n and word[nk] == ns[0]:
                nk, ns = nk + 1, ns[1:]
            if (nk, ns) not in seen:
                seen.add((nk, ns))
                out.append((nk, ns))
    return out


def morphy(word: str, pos: str, table: WordNetTable | None = None) -> list[str]:
    """NLTK 3.5's ``WordNetCorpusReader._morphy(word, pos)`` (``pos`` a WordNet letter)."""
    table = table or ensure_wordnet()
    index = table.index[pos]
    limit = table.max_length

    def filter_forms(candidates) -> list[str]:
        result: list[str] = []
        for form in candidates:
            if form is not None and form in index and form not in result:
                result.append(form)
        return result

    def strings(forms: list[tuple[int, str]]):
        # a form longer than every WordNet lemma cannot be one: never build it
        return (word[:k] + s if k + len(s) <= limit else None for k, s in forms)

    exceptions = table.exceptions[pos]
    if word in exceptions:
        return filter_forms([word, *exceptions[word]])
    rules = RULES[pos]
    forms = _apply_rules(word, [(len(word), "")], rules)
    results = filter_forms([word, *strings(forms)])
    while not results and forms:
        forms = _apply_rules(word, forms, rules)
        results = filter_forms(strings(forms))
    return results


def wordnet_lemmatize(word: str, wn_pos: str = "n") -> str:
    """NLTK 3.5's ``WordNetLemmatizer().lemmatize(word, wn_pos)``: the first shortest lemma."""
    lemmas = morphy(word, wn_pos)
    return min(lemmas, key=len) if lemmas else word


#: Bounded so a long-lived worker's memory stays flat: one split's gold or one submission's
#: strings fit; beyond that the least recently used go (a miss only lemmatizes the string
#: again).
LEMMA_CACHE_SIZE = 1 << 15


@lru_cache(maxsize=LEMMA_CACHE_SIZE)
def _lemmatize_raw(word: str, wn_pos: str) -> str:
    return wordnet_lemmatize(word, wn_pos).lower().strip()


def lemmatizer_for(pos: str) -> Callable[[str], str]:
    """A cached one-argument :func:`lemma` for targets of one POS (for tight loops)."""
    ensure_wordnet()
    return partial(_lemmatize_raw, wn_pos=WORDNET_POS.get(pos, "n"))


def lemma(word: str, pos: str) -> str:
    """Normalised lemma of ``word`` for a target of part of speech ``pos`` (NOUN/VERB/ADJ/ADV).

    Cached: a worker lemmatizes each distinct (string, POS) once per process.
    """
    if _table is None:
        ensure_wordnet()
    return _lemmatize_raw(word, WORDNET_POS.get(pos, "n"))
