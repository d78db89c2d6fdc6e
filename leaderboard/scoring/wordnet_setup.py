"""Install WordNet 3.0 data where NLTK finds it, offline when Debian's package is present.

Order of preference (see :func:`install_wordnet`):

1. NLTK already finds a working WordNet 3.0: nothing to do.
2. Debian's ``wordnet-base`` is installed (``/usr/share/wordnet``): assemble an NLTK corpus
   directory ``<sys.prefix>/share/nltk_data/corpora/wordnet`` from its files. Debian ships no
   ``lexnames`` (NLTK's reader opens it at start-up): it is written from the table of the
   lexnames(5WN) man page. ``index.sense`` comes from ``wordnet-sense-index`` when installed,
   else it is rebuilt from the data and index files (NLTK 3.10 reads it at start-up too).
3. NLTK's downloader, where the network allows.

Files are copied, not symlinked: NLTK's path check refuses files that resolve outside the
corpus root.
"""

from __future__ import annotations

import gzip
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from leaderboard.scoring.lemmatize import WordNetMissing, reset_wordnet, wordnet_status

DEBIAN_WORDNET_DIR = Path("/usr/share/wordnet")
LEXNAMES_MAN_PAGE = Path("/usr/share/man/man5/lexnames.5WN.gz")

#: WordNet 3.0 lexicographer files, numbered 00-44 (lexnames(5WN)).
LEXNAMES: tuple[str, ...] = (
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
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
_POS_FILES = ("noun", "verb", "adj", "adv")
REQUIRED_FILES: tuple[str, ...] = (
    *(f"data.{p}" for p in _POS_FILES),
    *(f"index.{p}" for p in _POS_FILES),
    *(f"{p}.exc" for p in _POS_FILES),
    "cntlist.rev",
)


@dataclass(frozen=True)
class InstallResult:
    """What :func:`install_wordnet` did: ``method`` is present, debian or download."""

    method: str
    path: str
    detail: str = ""


def default_nltk_data_dir() -> Path:
    """``<sys.prefix>/share/nltk_data``: on NLTK's default search path inside a venv."""
    return Path(sys.prefix) / "share" / "nltk_data"


def lexnames_text() -> str:
    """The ``lexnames`` file NLTK expects: ``NN<TAB>name<TAB>category`` on 45 lines."""
    return "".join(
        f"{i:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES)
    )


def lexnames_from_man_page(path: Path = LEXNAMES_MAN_PAGE) -> list[str]:
    """Parse the lexicographer file names out of the lexnames(5WN) man page table."""
    text = gzip.decompress(path.read_bytes()).decode("latin-1")
    rows = re.findall(r"^(\d\d)\t(\S+)\s*\t", text, flags=re.MULTILINE)
    return [name for _, name in sorted(rows, key=lambda r: int(r[0]))]


def build_index_sense(wn_dir: Path) -> str:
    """Rebuild WordNet's ``index.sense`` from the data, index and cntlist.rev files.

    Each line is ``sense_key synset_offset sense_number tag_cnt`` (senseidx(5WN)), sorted by
    sense key. Satellite adjectives carry the head word and head lex id of their cluster.
    """
    synsets: dict[tuple[str, str], tuple[str, int, list[tuple[str, int]], str | None]] = {}
    for pos in _POS_FILES:
        with open(wn_dir / f"data.{pos}", encoding="latin-1") as fh:
            for line in fh:
                if line.startswith("  "):
                    continue
                f = line.split(" | ", 1)[0].split()
                offset, lexfile, ss_type, n_words = f[0], int(f[1]), f[2], int(f[3], 16)
                words = [
                    (re.sub(r"\(.*\)$", "", f[4 + 2 * i]).lower(), int(f[5 + 2 * i], 16))
                    for i in range(n_words)
                ]
                k = 4 + 2 * n_words
                head = None
                for j in range(int(f[k])):
                    sym, tgt, tpos = f[k + 1 + 4 * j : k + 4 + 4 * j]
                    if ss_type == "s" and sym == "&" and tpos == "a" and head is None:
                        head = tgt
                synsets[(pos, offset)] = (ss_type, lexfile, words, head)
    sense_number: dict[tuple[str, str, str], int] = {}
    for pos in _POS_FILES:
        with open(wn_dir / f"index.{pos}", encoding="latin-1") as fh:
            for line in fh:
                if line.startswith("  "):
                    continue
                f = line.split()
                lemma, n_syn, n_ptr = f[0], int(f[2]), int(f[3])
                for rank, off in enumerate(f[4 + n_ptr + 2 : 4 + n_ptr + 2 + n_syn], start=1):
                    sense_number[(pos, off, lemma)] = rank
    tag_count: dict[str, str] = {}
    with open(wn_dir / "cntlist.rev", encoding="latin-1") as fh:
        for line in fh:
            key, _, count = line.split()
            # cntlist.rev spells satellite heads with their marker, e.g. "preceding(a)"
            tag_count[re.sub(r"\(\w+\)", "", key)] = count
    type_number = {"n": 1, "v": 2, "a": 3, "r": 4, "s": 5}
    lines = []
    for (pos, offset), (ss_type, lexfile, words, head) in synsets.items():
        head_word, head_id = "", ""
        if ss_type == "s" and head is not None:
            hw, hid = synsets[("adj", head)][2][0]
            head_word, head_id = hw, f"{hid:02d}"
        seen: set[str] = set()
        for word, lex_id in words:
            if word in seen:  # "ddC" and "DDC" share one lowercase sense key: keep the first
                continue
            seen.add(word)
            key = f"{word}%{type_number[ss_type]}:{lexfile:02d}:{lex_id:02d}:{head_word}:{head_id}"
            number = sense_number.get((pos, offset, word), 0)
            lines.append((key, f"{key} {offset} {number} {tag_count.get(key, '0')}\n"))
    lines.sort()
    return "".join(text for _, text in lines)


def assemble_from_debian(source: Path, corpus_dir: Path) -> str:
    """Copy Debian's WordNet files into an NLTK corpus directory, adding what NLTK needs."""
    missing = [name for name in REQUIRED_FILES if not (source / name).is_file()]
    if missing:
        raise WordNetMissing(f"{source} lacks {', '.join(missing)}: is wordnet-base complete?")
    if LEXNAMES_MAN_PAGE.is_file():
        from_man = lexnames_from_man_page()
        if from_man != list(LEXNAMES):
            raise WordNetMissing(f"lexnames table in {LEXNAMES_MAN_PAGE} differs from WordNet 3.0")
    corpus_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=corpus_dir.parent))
    try:
        for name in REQUIRED_FILES:
            shutil.copyfile(source / name, staging / name)
        (staging / "lexnames").write_text(lexnames_text(), encoding="ascii")
        if (source / "index.sense").is_file():
            shutil.copyfile(source / "index.sense", staging / "index.sense")
            detail = "index.sense from wordnet-sense-index"
        else:
            (staging / "index.sense").write_text(build_index_sense(source), encoding="latin-1")
            detail = "index.sense rebuilt from the data files"
        if corpus_dir.exists():
            shutil.rmtree(corpus_dir)
        staging.rename(corpus_dir)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return detail


def install_wordnet(
    *,
    data_dir: Path | None = None,
    source: Path = DEBIAN_WORDNET_DIR,
    allow_download: bool = True,
    force: bool = False,
) -> InstallResult:
    """Make WordNet 3.0 loadable by NLTK; idempotent, offline when Debian's data is present.

    Raises :class:`WordNetMissing` when no method works, naming what to install.
    """
    data_dir = data_dir or default_nltk_data_dir()
    if not force:
        ok, where = wordnet_status()
        if ok:
            return InstallResult("present", where)
    corpus_dir = data_dir / "corpora" / "wordnet"
    if (source / "data.noun").is_file():
        detail = assemble_from_debian(source, corpus_dir)
        reset_wordnet()
        ok, where = wordnet_status()
        if ok:
            return InstallResult("debian", str(corpus_dir), detail)
        raise WordNetMissing(f"assembled {corpus_dir} but NLTK cannot load it: {where}")
    if allow_download:
        import nltk

        try:
            downloaded = nltk.download("wordnet", download_dir=str(data_dir), quiet=True)
        except Exception as exc:  # the downloader raises many kinds when offline
            downloaded, why = False, str(exc)
        else:
            why = "NLTK's downloader reported failure"
        if downloaded:
            reset_wordnet()
            ok, where = wordnet_status()
            if ok:
                return InstallResult("download", where)
            why = where
    else:
        why = "download not allowed"
    raise WordNetMissing(
        "WordNet 3.0 could not be installed: no Debian data in "
        f"{source} (apt-get install wordnet-base) and no download ({why})."
    )
