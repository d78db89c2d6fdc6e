"""Installing WordNet for NLTK from Debian's files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from leaderboard.scoring import wordnet_setup
from leaderboard.scoring.lemmatize import WordNetMissing
from leaderboard.scoring.wordnet_setup import (
    DEBIAN_WORDNET_DIR,
    LEXNAMES,
    LEXNAMES_MAN_PAGE,
    build_index_sense,
    install_wordnet,
    lexnames_text,
)

needs_debian = pytest.mark.skipif(not (DEBIAN_WORDNET_DIR / "data.noun").is_file(),
                                  reason="Debian's wordnet-base is not installed")


def test_lexnames_file():
    lines = lexnames_text().splitlines()
    assert len(lines) == 45
    assert lines[0] == "00\tadj.all\t3"
    assert lines[18] == "18\tnoun.person\t1"
    assert lines[44] == "44\tadj.ppl\t3"


@pytest.mark.skipif(not LEXNAMES_MAN_PAGE.is_file(), reason="lexnames(5WN) man page absent")
def test_lexnames_match_the_man_page():
    assert wordnet_setup.lexnames_from_man_page() == list(LEXNAMES)


@needs_debian
@pytest.mark.skipif(not (DEBIAN_WORDNET_DIR / "index.sense").is_file(),
                    reason="wordnet-sense-index is not installed: nothing to compare with")
def test_rebuilt_index_sense_equals_debians():
    reference = (DEBIAN_WORDNET_DIR / "index.sense").read_text(encoding="latin-1")
    assert build_index_sense(DEBIAN_WORDNET_DIR) == reference


@needs_debian
def test_assembled_directory_loads_in_nltk(tmp_path):
    source = tmp_path / "debian"
    source.mkdir()
    for name in wordnet_setup.REQUIRED_FILES:
        shutil.copyfile(DEBIAN_WORDNET_DIR / name, source / name)
    corpus = tmp_path / "nltk_data" / "corpora" / "wordnet"
    detail = wordnet_setup.assemble_from_debian(source, corpus)
    assert detail == "index.sense rebuilt from the data files"
    assert sorted(p.name for p in corpus.iterdir()) == sorted(
        [*wordnet_setup.REQUIRED_FILES, "lexnames", "index.sense"])
    # NLTK only reads corpora under its data path: check in a process that points there
    probe = ("from nltk.corpus import wordnet as wn; from nltk.stem import WordNetLemmatizer;"
             "print(wn.get_version(), WordNetLemmatizer().lemmatize('ran', 'v'))")
    env = {**os.environ, "NLTK_DATA": str(tmp_path / "nltk_data")}
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", probe], env=env,
                         capture_output=True, text=True, check=True).stdout
    assert out.split() == ["3.0", "run"]


def test_install_is_a_no_op_when_present(wordnet):
    assert install_wordnet().method == "present"


def test_no_source_and_no_download_fails_clearly(monkeypatch, tmp_path):
    monkeypatch.setattr(wordnet_setup, "wordnet_status", lambda: (False, "missing"))
    with pytest.raises(WordNetMissing, match="wordnet-base"):
        install_wordnet(data_dir=tmp_path, source=Path(tmp_path / "none"), allow_download=False)
