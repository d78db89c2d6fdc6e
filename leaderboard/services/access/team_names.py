"""What a team name may look like, beyond the text rules of every name.

A team name is how the public tells teams apart, so three kinds of look-alike are refused:

- **Invisible characters**: every format character (Unicode category Cf: the soft hyphen
  U+00AD, zero-width joiners, bidirectional controls, tag characters...), private-use and
  unassigned code points, and the other default-ignorable or blank ones (combining grapheme
  joiner, variation selectors, Hangul fillers, the blank Braille pattern). ``al\\u00adpha``
  reads "alpha".
- **Mixed scripts**: the letters of a name come from one script (Common and Inherited
  characters, digits, punctuation and combining marks, do not count), or from one of the
  combinations Unicode TR39 calls *highly restrictive*: Latin with Han, Hiragana and Katakana
  (Japanese), with Han and Bopomofo, or with Han and Hangul (Korean). ``alphа`` with a
  Cyrillic ``а`` mixes Latin and Cyrillic.
- **Confusables**: :func:`name_skeleton` is the TR39 skeleton of the name, case-folded; two
  names with one skeleton look alike (Latin ``pax`` and Cyrillic ``рах``, ``PayPaI`` and
  ``PayPal``, ``Team 1`` and ``Team l``), and ``team.name_skeleton`` is unique, so the
  database keeps one of them even when both are signed up at the same moment.

Scripts and confusable pairs come from ``confusable_homoglyphs`` (Unicode's Scripts.txt and
confusables.txt, 15.0); see :func:`_prototypes` for how the skeleton's mapping is read from its
pairs. Upgrading that package can move skeletons: recompute ``team.name_skeleton`` in a
migration when it does.
"""

from __future__ import annotations

import unicodedata
from functools import cache

#: Default-ignorable or blank code points that are not format characters (Cf).
_IGNORABLE_NOT_CF = frozenset(
    ["\u034f", "\u115f", "\u1160", "\u17b4", "\u17b5", "\u180b", "\u180c", "\u180d", "\u180f",
     "\u2800", "\u3164", "\uffa0"]
    + [chr(c) for c in range(0xFE00, 0xFE10)] + [chr(c) for c in range(0xE0100, 0xE01F0)])
_INVISIBLE_CATEGORIES = {"Cf": "an invisible formatting character",
                         "Co": "a private-use character", "Cn": "an unassigned code point"}
#: Scripts that never make a name mixed.
_NEUTRAL = frozenset({"COMMON", "INHERITED"})
#: TR39 "highly restrictive": the mixtures allowed besides a single script.
_ALLOWED_MIXES = (frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
                  frozenset({"LATIN", "HAN", "BOPOMOFO"}),
                  frozenset({"LATIN", "HAN", "HANGUL"}))
#: Longest skeleton the ``team.name_skeleton`` column holds.
SKELETON_MAX = 255


def name_problem(name: str) -> str | None:
    """Why ``name`` may not be a team name (a sentence for the form), or None.

    Refuses invisible characters and mixed scripts (see the module's docstring); the caller
    has already refused control characters (:func:`leaderboard.services.text_fields.text_problem`).
    """
    for position, char in enumerate(name, start=1):
        kind = _INVISIBLE_CATEGORIES.get(unicodedata.category(char))
        if kind is None and char in _IGNORABLE_NOT_CF:
            kind = "an invisible or blank character"
        if kind:
            return (f"The team name contains {kind} (U+{ord(char):04X}) at position "
                    f"{position}; remove it and try again.")
    scripts = _scripts(name)
    if len(scripts) > 1 and not any(set(scripts) <= mix for mix in _ALLOWED_MIXES):
        first, other = (s.replace("_", " ").title() for s in list(scripts)[:2])
        char, position = _first_of(name, list(scripts)[1])
        return (f"The team name mixes scripts, {first} and {other} ({char!r} at position "
                f"{position} is {other}); write it in one script.")
    if len(name_skeleton(name)) > SKELETON_MAX:
        return "Team name must be 1 to 80 characters."
    return None


def name_skeleton(name: str) -> str:
    """The form of a team name that no other team's may share: the TR39 skeleton of its
    NFKC form, case-folded, skeleton again, blanks collapsed.

    Folding after the first skeleton catches ``PayPaI`` (capital I) for ``paypal``; the
    second skeleton maps the lower-case look-alikes folding produced (Cyrillic ``А`` becomes
    ``а``, then ``a``). Case variants are :func:`leaderboard.models.team_name_key`'s job."""
    folded = _skeleton(_skeleton(unicodedata.normalize("NFKC", name)).casefold())
    return " ".join(folded.split())


def _skeleton(text: str) -> str:
    """UTS #39 skeleton: NFD, each character replaced by its prototype, NFD again; repeated
    while that changes it (a prototype's decomposition may hold a mapped mark, rarely)."""
    prototypes = _prototypes()
    text = unicodedata.normalize("NFD", text)
    for _ in range(3):
        mapped = unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in text))
        if mapped == text:
            break
        text = mapped
    return text


@cache
def _prototypes() -> dict[str, str]:
    """Character -> the prototype it is confusable with (confusables.txt's mapping).

    ``confusable_homoglyphs`` keeps each line ``source -> prototype`` of confusables.txt in
    both directions: a source lists its one prototype, a prototype lists its sources. The
    mapping is read back from that: a character that lists one entry, which is a sequence or
    lists several, is that entry's source. A pair that only list each other (a prototype with
    a single source) is mapped to the smaller of the two, which serves as well: a skeleton is
    only ever compared with another. Right-to-left characters come wrapped in U+200E marks.
    Loaded on first use (two large JSON files), not at import.
    """
    from confusable_homoglyphs.confusables import confusables_data

    pairs = {key.replace("\u200e", ""): [entry["c"].replace("\u200e", "") for entry in value]
             for key, value in confusables_data.items()}
    prototypes = {}
    for char, others in pairs.items():
        if len(char) != 1 or len(others) != 1:
            continue
        other = others[0]
        back = pairs.get(other, [])
        if len(other) > 1 or len(back) > 1:
            prototypes[char] = other
        elif back == [char]:
            prototypes[char] = min(char, other)
    # A prototype sequence may hold a character mapped further (the smaller of a pair):
    # follow each to its end, so that a skeleton's skeleton is itself.
    for char, target in prototypes.items():
        for _ in range(4):
            mapped = "".join(prototypes.get(c, c) for c in target)
            if mapped == target:
                break
            target = mapped
        prototypes[char] = target
    return prototypes


def _scripts(name: str) -> dict[str, None]:
    """The scripts of ``name``'s characters in order of appearance, without Common and
    Inherited (an ordered set)."""
    from confusable_homoglyphs.categories import alias

    return dict.fromkeys(s for s in (alias(c).upper() for c in name) if s not in _NEUTRAL)


def _first_of(name: str, script: str) -> tuple[str, int]:
    from confusable_homoglyphs.categories import alias

    return next((c, n) for n, c in enumerate(name, start=1) if alias(c).upper() == script)
