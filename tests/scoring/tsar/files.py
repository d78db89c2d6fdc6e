"""Tiny TSAR-2022-format folders written by tests, and the official scorer run on files
(the real data and ``tsar_eval.py`` stay in ../shared; the script is run, never imported)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.scoring.conftest import shared_dir

#: A hand-worked 3-instance gold (numbers in tests/scoring/tsar/test_hand_worked.py).
GOLD = ["The cat sat on the mat.\tsat\trested\trested\tperched\tsat\tstayed",
        "She felt elated today.\telated\thappy\thappy\tglad\tglad\tjoyful",
        "The café was crowded.\tcrowded\tfull\tfull\tpacked\tbusy"]
#: The system file worked by hand: repeats, the complex word, a trailing space.
SYSTEM = ("The cat sat on the mat.\tsat\tsat\tperched\tperched\tmoved\trested\n"
          "She felt elated today.\telated\tjoyful\tglad\n"
          "The café was crowded.\tcrowded\tnoisy\tbusy \n")
#: Invented published rows (the real ones are read from ../shared at import time).
RESULTS = ("Team,Lang,Run,ACC@1,ACC@1@Top1,ACC@2@Top1,ACC@3@Top1,MAP@3,MAP@5,MAP@10,"
           "Potential@3,Potential@5,Potential@10\n"
           "TeamA,en,2,0.8096,0.4289,0.6112,0.6863,0.5834,0.4491,0.2812,0.9624,0.9812,0.9946\n"
           "LSBert-baseline,en,1,0.3333,0.1,0.2,0.3,0.2,0.1,0.05,0.5,0.6,0.7\n")
KEYS = ("acc@1", "acc@1@top1", "acc@2@top1", "acc@3@top1", "map@3", "map@5", "map@10",
        "potential@3", "potential@5", "potential@10")
#: tsar_eval.py's output labels, in the order of KEYS.
_LABELS = ("MAP@1/Potential@1/Precision@1", "Accuracy@1@top_gold_1", "Accuracy@2@top_gold_1",
           "Accuracy@3@top_gold_1", "MAP@3", "MAP@5", "MAP@10", "Potential@3", "Potential@5",
           "Potential@10")


def write_tsar(folder: Path, gold: list[str] | None = None, split: str = "en-test",
               results: str | None = RESULTS) -> Path:
    """The gold, inputs (and official results) of ``split`` in the repository's layout."""
    gold = GOLD if gold is None else gold
    lang, phase = split.split("-")
    target = folder / "datasets" / phase
    target.mkdir(parents=True, exist_ok=True)
    (target / f"tsar2022_{lang}_{phase}_gold.tsv").write_bytes(
        ("\n".join(gold) + "\n").encode("utf-8"))
    (target / f"tsar2022_{lang}_{phase}_none.tsv").write_bytes(
        ("\n".join("\t".join(line.split("\t")[:2]) for line in gold) + "\n").encode("utf-8"))
    if results is not None:
        (folder / "results" / "official").mkdir(parents=True, exist_ok=True)
        (folder / "results" / "official" / f"TSAR2022_test_results_{lang}.csv").write_text(
            results.replace(",en,", f",{lang},"), encoding="utf-8")
    return folder


def script() -> Path:
    """The official scorer in ../shared, or skip saying why."""
    path = shared_dir() / "data" / "tsar2022" / "tsar_eval.py"
    if not path.is_file():
        pytest.skip(f"tsar_eval.py not found at {path} (set LEADERBOARD_SHARED_DIR)")
    return path


def run_script(gold: Path, predictions: Path, workdir: Path) -> dict[str, float]:
    """``tsar_eval.py``'s ten printed values, by our metric keys (run in a subprocess)."""
    out = workdir / "tsar_eval.out"
    subprocess.run([sys.executable, str(script()), "--gold_file", str(gold),
                    "--predictions_file", str(predictions), "--output_file", str(out)],
                   cwd=workdir, check=True, capture_output=True, timeout=120)
    text = out.read_text(encoding="utf-8")
    values = {}
    for key, label in zip(KEYS, _LABELS, strict=True):
        found = re.search(re.escape(label) + r" = ([0-9.e-]+)", text)
        assert found, f"{label} not in the script's output:\n{text}"
        values[key] = float(found.group(1))
    return values
