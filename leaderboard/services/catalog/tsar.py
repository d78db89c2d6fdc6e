"""TSAR-2022 on the site: its splits imported from the task's files, one test board per
language, and the task's published results as reported rows.

The published rows are read from ``results/official/TSAR2022_test_results_<lang>.csv`` at
import time (the files are CC BY-NC-SA: nothing of them is copied into the project). Labels
are public (the gold was released with the task), so splits are stored with ``hidden=False``.
The caller refreshes the boards' snapshots: the catalog does not import the ranking package.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from sqlmodel import Session

from leaderboard.models import Board, Phase, Split, Track
from leaderboard.scoring import reported as parsing
from leaderboard.scoring.families import FAMILIES
from leaderboard.scoring.tsar.data import LANGUAGES, data_dir
from leaderboard.services.catalog.benchmarks import import_family_split
from leaderboard.services.catalog.boards import create_board
from leaderboard.services.catalog.reported import Added, add_rows

NAME, VERSION = "tsar2022", "1"
STANDARD_SPLITS = tuple(f"{lang}-test" for lang in LANGUAGES)
CITATION = ("Horacio Saggion, Sanja Štajner, Daniel Ferrés, Kim Cheng Sheang, Matthew "
            "Shardlow, Kai North and Marcos Zampieri. 2022. Findings of the TSAR-2022 Shared "
            "Task on Multilingual Lexical Simplification. In Proceedings of the Workshop on "
            "Text Simplification, Accessibility, and Readability (TSAR-2022), EMNLP 2022.")
URL = "https://github.com/LaSTUS-TALN-UPF/TSAR-2022-Shared-Task"
#: CSV column -> metric key (the CSV holds fractions, floored to 4 decimals by tsar_eval.py)
CSV_COLUMNS = {"ACC@1": "acc@1", "ACC@1@Top1": "acc@1@top1", "ACC@2@Top1": "acc@2@top1",
               "ACC@3@Top1": "acc@3@top1", "MAP@3": "map@3", "MAP@5": "map@5",
               "MAP@10": "map@10", "Potential@3": "potential@3", "Potential@5": "potential@5",
               "Potential@10": "potential@10"}


def import_tsar_split(session: Session, split: str, *, root: Path | None = None,
                      bootstrap: int = 1000, seed: int = 0) -> Split:
    """The stored split (made from the files under ``root`` if absent); flushes."""
    return import_family_split(session, FAMILIES[NAME], version=VERSION, split=split,
                               data_dir=root or data_dir(), bootstrap=bootstrap, seed=seed)


def results_file(lang: str, root: Path | None = None) -> Path:
    return (root or data_dir()) / "results" / "official" / f"TSAR2022_test_results_{lang}.csv"


def published_rows(lang: str, root: Path | None = None) -> list[parsing.ReportedRow]:
    """Every team and run of the language's official results, as reported rows (percent)."""
    path = results_file(lang, root)
    rows = []
    for record in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))):
        team, run = record["Team"].strip(), record["Run"].strip()
        rows.append(parsing.ReportedRow(
            name=f"{team} (run {run})", citation=CITATION, url=URL,
            source=f"the task's official results ({path.name}), as the paper's tables",
            benchmark_name=NAME, benchmark_version=VERSION, benchmark_split=f"{lang}-test",
            track=Track.GENERATIVE,
            metrics={key: round(float(record[column]) * 100, 2)
                     for column, key in CSV_COLUMNS.items()},
            note="tsar_eval.py's output, floored to 4 decimals; its denominators count only "
                 "the instances a run answered"))
    return rows


def tsar_board(session: Session, split: str, *, root: Path | None = None) -> Board:
    """The generative board of ``split`` (``tsar2022-en-test``), made if absent; a test
    split's board gets the published rows of its language (replacing earlier ones)."""
    benchmark = import_tsar_split(session, split, root=root)
    board = create_board(session, benchmark, track=Track.GENERATIVE, phase=Phase.TEST,
                         slug=f"{NAME}-{split}")
    lang, phase = split.split("-")
    if phase == "test" and results_file(lang, root).is_file():
        add_published(session, board, lang, root)
    return board


def add_published(session: Session, board: Board, lang: str,
                  root: Path | None = None) -> Added:
    """Put the language's published rows on ``board`` (replacing the file's earlier rows)."""
    return add_rows(session, board, published_rows(lang, root), results_file(lang, root).name)


