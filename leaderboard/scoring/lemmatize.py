"""Lemmatization exactly as the original SWORDS scorer does it (spec section 2).

``lemma(word, pos) = WordNetLemmatizer().lemmatize(word, pos=p).lower().strip()`` over
WordNet 3.0. The lemmatizer sees the raw string: ``LINES`` stays ``lines`` and ``' runs '``
becomes ``runs``. No other lemmatizer is ever substituted: a missing WordNet is an error.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial

#: Target POS of the benchmark -> WordNet POS letter; anything else is a noun upstream.
WORDNET_POS = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}

INSTALL_HINT = (
    "Install it with `leaderboard wordnet install` (offline from Debian's wordnet-base: "
    "`apt-get install wordnet-base`; otherwise NLTK's downloader is tried)."
)


class WordNetMissing(RuntimeError):
    """WordNet 3.0 is not available to NLTK; the message says how to install it."""


_lemmatizer = None


def reset_wordnet() -> None:
    """Forget a failed or stale WordNet load so the next call looks on disk again."""
    global _lemmatizer
    _lemmatizer = None
    _lemmatize_raw.cache_clear()
    import nltk.corpus

    # LazyCorpusLoader replaces itself with the reader once loaded; put a fresh loader back.
    from nltk.corpus.reader import CorpusReader, WordNetCorpusReader
    from nltk.corpus.util import LazyCorpusLoader

    nltk.corpus.wordnet = LazyCorpusLoader(
        "wordnet",
        WordNetCorpusReader,
        LazyCorpusLoader("omw-2.0", CorpusReader, r".*/wn-data-.*\.tab", encoding="utf8"),
    )


def wordnet_status() -> tuple[bool, str]:
    """(True, where) when NLTK loads WordNet 3.0 and lemmatizes correctly, else (False, why)."""
    import warnings

    import nltk

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "multilingual functions are not available"
            where = str(nltk.data.find("corpora/wordnet"))
            wn = nltk.corpus.wordnet
            version = wn.get_version()
            probe = wn._morphy("glasses", "n")
    except (LookupError, OSError, ValueError, AssertionError) as exc:
        return False, f"{type(exc).__name__}: {str(exc).strip().splitlines()[0]}"
    if version != "3.0":
        return False, f"WordNet {version} at {where}; the scorer needs 3.0"
    if "glass" not in probe:
        return False, f"WordNet at {where} does not lemmatize glasses/n to glass"
    return True, where


def ensure_wordnet() -> None:
    """Load WordNet 3.0 now, or raise :class:`WordNetMissing` naming how to install it."""
    global _lemmatizer
    if _lemmatizer is not None:
        return
    ok, detail = wordnet_status()
    if not ok:
        raise WordNetMissing(f"WordNet 3.0 data for NLTK is missing ({detail}). {INSTALL_HINT}")
    from nltk.stem import WordNetLemmatizer

    _lemmatizer = WordNetLemmatizer()


@lru_cache(maxsize=1 << 20)
def _lemmatize_raw(word: str, wn_pos: str) -> str:
    return _lemmatizer.lemmatize(word, pos=wn_pos).lower().strip()


def lemmatizer_for(pos: str) -> Callable[[str], str]:
    """A cached one-argument :func:`lemma` for targets of one POS (for tight loops)."""
    if _lemmatizer is None:
        ensure_wordnet()
    return partial(_lemmatize_raw, wn_pos=WORDNET_POS.get(pos, "n"))


def lemma(word: str, pos: str) -> str:
    """Normalised lemma of ``word`` for a target of part of speech ``pos`` (NOUN/VERB/ADJ/ADV).

    Cached: a worker lemmatizes each distinct (string, POS) once per process.
    """
    if _lemmatizer is None:
        ensure_wordnet()
    return _lemmatize_raw(word, WORDNET_POS.get(pos, "n"))
