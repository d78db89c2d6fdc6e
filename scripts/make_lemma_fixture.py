"""Write the NLTK 3.5 lemma fixture: what the original scorer's lemmatizer returns, per string.

The original SWORDS scorer lemmatizes with NLTK 3.5 (its Docker image pins it). The project
reimplements that lemmatizer (leaderboard/scoring/swords/lemmatize.py) without NLTK; this script
records NLTK 3.5's own answers so that tests/scoring/test_lemma_fixture.py can assert zero
differences. It runs in a throwaway venv, never in the project's::

    python3.11 -m venv /tmp/nltk35
    /tmp/nltk35/bin/pip install nltk==3.5
    /tmp/nltk35/bin/python scripts/make_lemma_fixture.py \\
        --shared ../shared --out tests/scoring/fixtures/nltk35_lemmas.jsonl.gz

(about 30 s; run from the project root).

WordNet 3.0 comes from Debian's wordnet-base (/usr/share/wordnet, or --wordnet DIR): it is
copied into a temporary nltk_data/corpora/wordnet with the ``lexnames`` file NLTK's reader
opens at start-up (Debian does not ship it; its content is the table of lexnames(5WN)).

Each output line is the JSON array ``[word, n, v, a, r]``: for each WordNet POS letter,
exactly ``WordNetLemmatizer().lemmatize(word, pos)`` (before lower() and strip()), or null
where that is the word itself.
Covered: every target and substitute of every split under <shared>/data/swords (each with
every POS), every substitute under <shared>/data/reference-systems and leaderboard/demo,
both sides of every WordNet exception list entry, and generated variants of all of those
(suffixes, doubled suffixes, upper case, spaces, hyphens, multiword strings).
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
from pathlib import Path

LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal",
    "noun.artifact", "noun.attribute", "noun.body", "noun.cognition", "noun.communication",
    "noun.event", "noun.feeling", "noun.food", "noun.group", "noun.location", "noun.motive",
    "noun.object", "noun.person", "noun.phenomenon", "noun.plant", "noun.possession",
    "noun.process", "noun.quantity", "noun.relation", "noun.shape", "noun.state",
    "noun.substance", "noun.time", "verb.body", "verb.change", "verb.cognition",
    "verb.communication", "verb.competition", "verb.consumption", "verb.contact",
    "verb.creation", "verb.emotion", "verb.motion", "verb.perception", "verb.possession",
    "verb.social", "verb.stative", "verb.weather", "adj.ppl",
)
CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
POS = ("n", "v", "a", "r")
SUFFIXES = ("s", "es", "ies", "ed", "ing", "er", "est", "men", "ses", "ches", "ves", "xes")
DOUBLED = ("ss", "eses", "eded", "ses", "eses", "inging", "erer", "estest", "sed", "sing")
#: NLTK 3.5 does not deduplicate forms between rounds: its cost grows exponentially with
#: the number of suffixes it can strip, so generated strings stay short.
MAX_GENERATED_LENGTH = 24


def nltk_wordnet_dir(source: Path, root: Path) -> Path:
    """An nltk_data directory holding WordNet 3.0 from Debian's files, plus lexnames."""
    corpus = root / "corpora" / "wordnet"
    corpus.mkdir(parents=True)
    for path in source.iterdir():
        if path.is_file():
            shutil.copyfile(path, corpus / path.name)
    (corpus / "lexnames").write_text("".join(
        f"{i:02d}\t{name}\t{CATEGORY[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES)))
    return root


def read_json(path: Path):
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw)


def corpus_words(shared: Path, demo: Path, wordnet: Path) -> set[str]:
    """Every string the scorer can meet in the real data, the demo and the exception lists."""
    words: set[str] = set()
    for path in sorted((shared / "data" / "swords").glob("*.json*")):
        split = read_json(path)
        words.update(t["target"] for t in split["targets"].values())
        words.update(s["substitute"] for s in split["substitutes"].values())
    for base in (shared / "data" / "reference-systems", demo):
        for path in sorted(base.rglob("*.json*")):
            doc = read_json(path)
            if "targets" in doc:  # a split (the demo's)
                words.update(t["target"] for t in doc["targets"].values())
                words.update(s["substitute"] for s in doc["substitutes"].values())
                continue
            for items in doc.get("substitutes", {}).values():
                for item in items:
                    words.add(item[0] if isinstance(item, list) else item)
    for name in ("noun.exc", "verb.exc", "adj.exc", "adv.exc"):
        for line in (wordnet / name).read_text().splitlines():
            words.update(line.split())
    return {w for w in words if isinstance(w, str)}


def variants(word: str) -> set[str]:
    """Inflected, doubly inflected, re-cased, padded, hyphenated and multiword variants."""
    out = {word.upper(), word.capitalize(), f" {word} ", f"{word} ", f"\t{word}"}
    for suffix in SUFFIXES + DOUBLED:
        out.add(word + suffix)
    if word.endswith("y"):
        out.add(word[:-1] + "ies")
        out.add(word[:-1] + "ieses")
    if word.endswith("e"):
        out.update({word + "d", word[:-1] + "ing", word + "r", word + "st", word + "sed"})
    out.update({f"{word}-{word}", f"{word} {word}s", f"non-{word}", f"{word.upper()}S"})
    return {v for v in out if len(v) <= MAX_GENERATED_LENGTH}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=Path("../shared"))
    parser.add_argument("--demo", type=Path, default=Path("leaderboard/demo"))
    parser.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    parser.add_argument("--out", type=Path,
                        default=Path("tests/scoring/fixtures/nltk35_lemmas.jsonl.gz"))
    parser.add_argument("--variants-of", type=int, default=6000,
                        help="how many base words (shortest first, then alphabetical) get "
                             "generated variants")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        import nltk

        if nltk.__version__ != "3.5":
            sys.exit(f"this needs nltk 3.5 (found {nltk.__version__}); see the docstring")
        nltk.data.path.insert(0, str(nltk_wordnet_dir(args.wordnet, Path(tmp))))
        from nltk.stem import WordNetLemmatizer

        lemmatizer = WordNetLemmatizer()
        lemmatizer.lemmatize("dogs")  # loads WordNet from the temporary directory
        base = corpus_words(args.shared, args.demo, args.wordnet)
        single = sorted(w for w in base if w and " " not in w.strip())
        chosen = sorted(single, key=lambda w: (len(w), w))
        step = max(1, len(chosen) // args.variants_of)
        generated: set[str] = set()
        for word in chosen[::step]:
            generated |= variants(word)
        generated |= {"businessess", "nameded", "luncheses", "possesses", "iss", "ran",
                      "glasses", "better", "LINES", " runs ", "", " ", "-", "'s", "s", "es"}
        rows = []
        for word in sorted(base | generated):
            lemmas = [lemmatizer.lemmatize(word, pos) for pos in POS]
            rows.append([word, *(None if lem == word else lem for lem in lemmas)])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    args.out.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))
    changed = sum(1 for row in rows for lem in row[1:] if lem is not None)
    print(f"{len(rows)} words x {len(POS)} POS ({changed} changed by the lemmatizer) "
          f"-> {args.out}")


if __name__ == "__main__":
    main()
