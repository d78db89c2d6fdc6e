"""The TSAR-2022 adapter (:data:`leaderboard.scoring.families.FAMILIES` registers it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leaderboard.scoring.bibtex import entry
from leaderboard.scoring.swords.diagnostics import TargetDiagnostics
from leaderboard.scoring.swords.engine import ScoreResult
from leaderboard.scoring.swords.validate import ValidationReport
from leaderboard.scoring.tsar import data, score
from leaderboard.scoring.tsar.diagnostics import diagnose
from leaderboard.scoring.tsar.metrics import METRIC_KEYS

# The task paper's BibTeX, the one copy every page and the API print (its sources: the card).
TSAR2022_BIBTEX = entry(
    "inproceedings", "saggion-etal-2022-findings",
    title="Findings of the {TSAR}-2022 Shared Task on Multilingual Lexical Simplification",
    author="Saggion, Horacio and {\\v{S}}tajner, Sanja and Ferr{\\'e}s, Daniel and Sheang, "
           "Kim Cheng and Shardlow, Matthew and North, Kai and Zampieri, Marcos",
    booktitle="Proceedings of the Workshop on Text Simplification, Accessibility, and "
              "Readability (TSAR-2022)",
    year="2022", address="Abu Dhabi, United Arab Emirates (Virtual)",
    publisher="Association for Computational Linguistics",
    url="https://aclanthology.org/2022.tsar-1.31", doi="10.18653/v1/2022.tsar-1.31",
    pages="271--283")


@dataclass(frozen=True)
class Tsar2022Family:
    """TSAR-2022: public labels, the task's TSV files, ``tsar_eval.py``'s metrics, every
    instance of the split counted; generative track only, no POS."""

    name: str = "tsar2022"
    title: str = "TSAR-2022"
    splits: tuple[str, ...] = data.SPLITS
    labels_public: bool = True
    #: the view set of its boards (leaderboard.services.ranking.metric_info)
    views: str = "tsar"
    tracks: tuple[str, ...] = ("generative",)
    bibtex: tuple[str, ...] = (TSAR2022_BIBTEX,)

    def data_dir(self) -> Path:
        return data.data_dir()

    def score_keys(self, track: str) -> tuple[str, ...]:
        """The metrics ``leaderboard score`` prints, the headline first."""
        return METRIC_KEYS

    def official(self, prepared: data.TsarSplit, report: ValidationReport) -> dict[str, float]:
        """Each metric as ``tsar_eval.py`` prints it for the file (a fraction floored to 4
        decimals, over the instances the file holds)."""
        return score.official_floors(prepared, report)

    def build_source(self, split: str, data_dir: Path | None = None) -> bytes:
        return data.build_source(split, data_dir or data.data_dir())

    def checksum(self, source: bytes) -> str:
        return data.source_checksum(source)

    def prepare_files(self, split: str, data_dir: Path | None = None, *, name: str,
                      bootstrap: int = 1000, seed: int = 0) -> data.TsarSplit:
        return data.prepare_files(split, data_dir or data.data_dir(), name=name,
                                  bootstrap=bootstrap, seed=seed)

    def prepare(self, source: bytes, *, name: str, bootstrap: int = 1000,
                seed: int = 0) -> data.TsarSplit:
        return data.prepare_source(source, name=name, bootstrap=bootstrap, seed=seed)

    def prepared_from_bytes(self, raw: bytes) -> data.TsarSplit:
        return data.TsarSplit.from_bytes(raw)

    def candidates(self, source: bytes) -> dict[str, list[str]]:
        return {}

    def inputs(self, source: bytes) -> dict[str, Any]:
        doc = data.source_doc(source)
        return {"instances": [{"id": data.instance_key(sentence, word), "sentence": sentence,
                               "complex_word": word} for sentence, word in doc["inputs"]]}

    def validate(self, raw: bytes, prepared: data.TsarSplit, *, track: str,
                 candidates: dict[str, list[str]] | None = None, **limits) -> ValidationReport:
        return score.validate(raw, prepared, track=track, **limits)

    def score(self, prepared: data.TsarSplit, report: ValidationReport, *, track: str,
              bootstrap: int | None = None, seed: int | None = None) -> ScoreResult:
        return score.score(prepared, report, track=track, bootstrap=bootstrap, seed=seed)

    def diagnose(self, prepared: data.TsarSplit, submission: Any,
                 track: str) -> list[TargetDiagnostics]:
        return diagnose(prepared, submission)

    def random_submission(self, source: bytes, seed: int = 0) -> bytes:
        raise NotImplementedError("TSAR-2022 boards have no ranking track")

