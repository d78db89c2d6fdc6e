"""Benchmark families: one adapter per benchmark, the only place that knows its files.

The pipeline, the ranking and the pages ask the family of a split (by the split's benchmark
name) to prepare it, list its candidates and inputs, validate an upload and score it. A
fourth benchmark is one more adapter registered in :data:`FAMILIES`; its per-target
diagnostics are the adapter's ``diagnose``, shown when its labels are public.
"""

from __future__ import annotations

import gzip
import json
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leaderboard.scoring.bibtex import entry
from leaderboard.scoring.lexsub import data as lexsub_data
from leaderboard.scoring.lexsub import score as lexsub_score
from leaderboard.scoring.lexsub.diagnostics import diagnose as lexsub_diagnose
from leaderboard.scoring.lexsub.gap import split_last_space
from leaderboard.scoring.swords.diagnostics import TargetDiagnostics, diagnose
from leaderboard.scoring.swords.engine import ScoreResult, score_submission
from leaderboard.scoring.swords.gold import GZIP_MAGIC, PreparedSplit, load_split, prepare_split
from leaderboard.scoring.swords.gold import split_checksum as swords_checksum
from leaderboard.scoring.swords.ranking_track import (
    candidates_by_target,
    random_ranking_submission,
    validate_ranking_submission,
)
from leaderboard.scoring.swords.validate import ValidationReport, validate_submission
from leaderboard.scoring.tsar.family import Tsar2022Family

GENERATIVE, RANKING = "generative", "ranking"

# Each benchmark's BibTeX: the one copy the board's cite block, the about page and the API
# print. The fields are those of the ACL Anthology's entries and the papers' own headers
# (each card names its sources under "Licence and citation").
ACL = "Association for Computational Linguistics"
SWORDS_BIBTEX = entry(
    "inproceedings", "lee-etal-2021-swords",
    title="{S}words: A Benchmark for Lexical Substitution with Improved Data Coverage and "
          "Quality",
    author="Lee, Mina and Donahue, Chris and Jia, Robin and Iyabor, Alexander and Liang, Percy",
    booktitle="Proceedings of the 2021 Conference of the North American Chapter of the "
              "Association for Computational Linguistics: Human Language Technologies",
    month="jun", year="2021", address="Online", publisher=ACL,
    url="https://aclanthology.org/2021.naacl-main.345", doi="10.18653/v1/2021.naacl-main.345",
    pages="4362--4379")
SEMEVAL07_BIBTEX = entry(
    "inproceedings", "mccarthy-navigli-2007-semeval",
    title="{S}em{E}val-2007 Task 10: {E}nglish Lexical Substitution Task",
    author="McCarthy, Diana and Navigli, Roberto",
    booktitle="Proceedings of the Fourth International Workshop on Semantic Evaluations "
              "({S}em{E}val-2007)",
    year="2007", address="Prague, Czech Republic", publisher=ACL,
    url="https://aclanthology.org/S07-1009", pages="48--53")
SEMEVAL07_JOURNAL_BIBTEX = entry(
    "article", "mccarthy-navigli-2009-english",
    title="The {E}nglish lexical substitution task",
    author="McCarthy, Diana and Navigli, Roberto",
    journal="Language Resources and Evaluation", volume="43", pages="139--159", year="2009",
    publisher="Springer", doi="10.1007/s10579-009-9084-1")
COINCO_BIBTEX = entry(
    "inproceedings", "kremer-etal-2014-substitutes",
    title="What Substitutes Tell Us - Analysis of an {``}All-Words{''} Lexical Substitution "
          "Corpus",
    author="Kremer, Gerhard and Erk, Katrin and Pad{\\'o}, Sebastian and Thater, Stefan",
    booktitle="Proceedings of the 14th Conference of the {E}uropean Chapter of the "
              "Association for Computational Linguistics",
    month="apr", year="2014", address="Gothenburg, Sweden", publisher=ACL,
    url="https://aclanthology.org/E14-1057", doi="10.3115/v1/E14-1057", pages="540--549")


def lexsub_data_dir() -> Path:
    """``$LEADERBOARD_LEXSUB_DIR``, else ``../shared/data/lexsub`` beside the project."""
    env = os.environ.get("LEADERBOARD_LEXSUB_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared" / "data" / "lexsub"


@dataclass(frozen=True)
class SwordsFamily:
    """SWORDS: hidden labels, lemmatized gold, the original evaluation's metrics."""

    name: str = "swords"
    title: str = "SWORDS"
    splits: tuple[str, ...] = ("dev", "test", "test-subset")
    labels_public: bool = False
    #: the view set of its boards is the board's track (other families: ``<views>-<track>``)
    views: str = ""
    bibtex: tuple[str, ...] = (SWORDS_BIBTEX,)

    def checksum(self, source: bytes) -> str:
        return swords_checksum(load_split(source))

    def prepare(self, source: bytes, *, name: str, bootstrap: int = 1000,
                seed: int = 0) -> PreparedSplit:
        return prepare_split(load_split(source), name=name, bootstrap=bootstrap, seed=seed)

    def prepared_from_bytes(self, data: bytes) -> PreparedSplit:
        return PreparedSplit.from_bytes(data)

    def candidates(self, source: bytes) -> dict[str, list[str]]:
        return candidates_by_target(load_split(source))

    def inputs(self, source: bytes) -> dict[str, Any]:
        data = load_split(source)
        return {"contexts": data["contexts"], "targets": data["targets"],
                "substitutes": {sid: {"target_id": s["target_id"], "substitute": s["substitute"]}
                                for sid, s in data["substitutes"].items()}}

    def validate(self, raw: bytes, prepared: PreparedSplit, *, track: str,
                 candidates: dict[str, list[str]] | None = None, **limits) -> ValidationReport:
        if track == RANKING:
            return validate_ranking_submission(raw, prepared, candidates or {}, **limits)
        return validate_submission(raw, prepared, **limits)

    def score(self, prepared: PreparedSplit, report: ValidationReport, *, track: str,
              bootstrap: int | None = None, seed: int | None = None) -> ScoreResult:
        return score_submission(prepared, report, bootstrap=bootstrap, seed=seed)

    def diagnose(self, prepared: PreparedSplit, submission: Any,
                 track: str) -> list[TargetDiagnostics]:
        return diagnose(prepared, submission.entries)

    def random_submission(self, source: bytes, seed: int = 0) -> bytes:
        doc = random_ranking_submission(load_split(source), seed=seed)
        return gzip.compress(json.dumps(doc).encode(), 6, mtime=0)


@dataclass(frozen=True)
class LexsubFamily:
    """LS07 or CoInCo: public labels, the field's files, GAP (lst_gap.py) and best/oot
    (score.pl) plus Jabbari et al.'s metrics."""

    name: str
    title: str
    splits: tuple[str, ...]
    bibtex: tuple[str, ...]
    labels_public: bool = True
    views: str = "lexsub"

    def build_source(self, split: str, data_dir: Path | None = None) -> bytes:
        return lexsub_data.build_source(self.name, split, data_dir or lexsub_data_dir())

    def checksum(self, source: bytes) -> str:
        return lexsub_data.source_checksum(source)

    def prepare_files(self, split: str, data_dir: Path | None = None, *, name: str,
                      bootstrap: int = 1000, seed: int = 0) -> lexsub_data.LexsubSplit:
        """The prepared split straight from the files (one-off scoring, same checksum)."""
        return lexsub_data.prepare_files(self.name, split, data_dir or lexsub_data_dir(),
                                         name=name, bootstrap=bootstrap, seed=seed)

    def prepare(self, source: bytes, *, name: str, bootstrap: int = 1000,
                seed: int = 0) -> lexsub_data.LexsubSplit:
        return lexsub_data.prepare_source(source, name=name, bootstrap=bootstrap, seed=seed)

    def prepared_from_bytes(self, data: bytes) -> lexsub_data.LexsubSplit:
        return lexsub_data.LexsubSplit.from_bytes(data)

    def candidates(self, source: bytes) -> dict[str, list[str]]:
        split = lexsub_data.prepare_source(source, bootstrap=0)
        return {t.target_id: split.pool(t) for t in split.targets}

    def inputs(self, source: bytes) -> dict[str, Any]:
        split = lexsub_data.prepare_source(source, bootstrap=0)
        pools = {t.target_id: split.pool(t) for t in split.targets}
        return {"instances": [
            {"id": key, "lemma_pos": lemma_pos, "token_index": index, "sentence": sentence,
             "candidates": pools.get(key, [])}
            for key, lemma_pos, index, sentence in split.inputs]}

    def validate(self, raw: bytes, prepared: lexsub_data.LexsubSplit, *, track: str,
                 candidates: dict[str, list[str]] | None = None, **limits) -> ValidationReport:
        limits.pop("min_answered_fraction", None)  # labels are public: nothing to probe
        return lexsub_score.validate(raw, prepared, track=track, **limits)

    def score(self, prepared: lexsub_data.LexsubSplit, report: ValidationReport, *,
              track: str, bootstrap: int | None = None, seed: int | None = None
              ) -> ScoreResult:
        return lexsub_score.score(prepared, report, track=track, bootstrap=bootstrap, seed=seed)

    def diagnose(self, prepared: lexsub_data.LexsubSplit, submission: Any,
                 track: str) -> list[TargetDiagnostics]:
        return lexsub_diagnose(prepared, submission, ranking_track=track == RANKING)

    def random_submission(self, source: bytes, seed: int = 0) -> bytes:
        """Every candidate of every instance with a seeded uniform score, as RANKED lines."""
        split = lexsub_data.prepare_source(source, bootstrap=0)
        rng = random.Random(seed)
        lines = ["RANKED\t" + t.target_id + "".join(
            f"\t{c} {rng.random()!r}" for c in split.pool(t)) for t in split.targets]
        return gzipped("\n".join(lines).encode("latin-1") + b"\n")

    def upper_bound_submission(self, source: bytes) -> bytes:
        """The gold's own answers: its most frequent one as .best (the first of equals) and
        its ten most frequent as .oot, the bound McCarthy & Navigli give (45.76 on LS07 test)."""
        split = lexsub_data.prepare_source(source, bootstrap=0)
        best, oot = [], []
        for t in split.targets:
            gold = [split_last_space(e) for e in t.line.split("::", 1)[1].strip().split(";") if e]
            ranked = [sub for sub, _ in sorted(gold, key=lambda e: -int(e[1]))]
            best.append(f"{t.target_id} :: {';'.join(ranked[:1])}")
            oot.append(f"{t.target_id} ::: {';'.join(ranked[:10])}")
        return gzipped("\n".join(best + oot).encode("latin-1") + b"\n")


Family = SwordsFamily | LexsubFamily | Tsar2022Family
SWORDS = SwordsFamily()
FAMILIES: dict[str, Family] = {
    "swords": SWORDS,
    "semeval07": LexsubFamily("semeval07", "SemEval-2007 (LS07)", ("trial", "test", "all"),
                              (SEMEVAL07_BIBTEX, SEMEVAL07_JOURNAL_BIBTEX)),
    "coinco": LexsubFamily("coinco", "CoInCo", ("all", "dev", "test"), (COINCO_BIBTEX,)),
    "tsar2022": Tsar2022Family(),
}


def family_for(benchmark_name: str) -> Family:
    """The family of a split by its benchmark name; any other name is a SWORDS-format split
    (a host may import one under its own name)."""
    return FAMILIES.get(benchmark_name, SWORDS)


def gzipped(raw: bytes) -> bytes:
    """``raw`` gzipped (deterministically) unless it already is."""
    return raw if raw[:2] == GZIP_MAGIC else gzip.compress(raw, mtime=0)


def inputs_json(family: Family, source: bytes, header: dict) -> bytes:
    """A split's public inputs as deterministic gzipped JSON, with ``header`` first."""
    text = json.dumps({"benchmark": header, **family.inputs(source)}, ensure_ascii=False,
                      separators=(",", ":"))
    return gzip.compress(text.encode("utf-8"), mtime=0)
