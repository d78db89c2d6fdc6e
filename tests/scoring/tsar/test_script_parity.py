"""Our metrics against ``tsar_eval.py`` run live, on files generated here with the cases that
matter (ties in the top gold set, repeats, the complex word among the substitutes and the
annotations, empty lists, Spanish and Portuguese accents, trailing white space and tabs) and,
when ../shared holds them, on the real test splits: every metric's floor to 4 decimals equals
what the script prints."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from leaderboard.scoring.families import FAMILIES
from leaderboard.scoring.printing import shown
from leaderboard.scoring.tsar.data import split_paths
from leaderboard.scoring.tsar.score import official_floors
from leaderboard.services.ranking.snapshots import SNAPSHOT_DECIMALS
from tests.scoring.conftest import shared_dir
from tests.scoring.tsar.files import run_script, script, write_tsar

FAMILY = FAMILIES["tsar2022"]
WORDS = ["fácil", "simple", "claro", "ação", "rápido", "rapido", "coração", "niño", "big",
         "large", "huge", "más", "señal", "pão", "über", "café", "Simple", "simple "]


def _gold(rng: random.Random, n: int) -> list[str]:
    lines = []
    for i in range(n):
        word = rng.choice(WORDS).strip()
        pool = rng.sample(WORDS, 6)
        annotations = [rng.choice(pool[:3] if rng.random() < 0.6 else pool).strip()
                       for _ in range(rng.randint(1, 12))]
        if rng.random() < 0.2:
            annotations.append(word)          # the complex word among the annotations
        if rng.random() < 0.1:
            annotations = [word]              # nothing left once it is dropped
        lines.append("\t".join([f"Sentença número {i} com {word} e acentuação.", word,
                                *annotations]))
    return lines


def _predictions(rng: random.Random, gold: list[str]) -> str:
    out = []
    for line in gold:
        sentence, word, *annotations = line.split("\t")
        roll = rng.random()
        # an instance whose only annotation is the complex word has no top gold set: the
        # script stops with an IndexError there unless the list is empty
        if roll < 0.1 or all(a.strip() == word for a in annotations):
            out.append(f"{sentence}\t{word}")                  # an empty list
            continue
        if roll < 0.15:
            out.append(f"{sentence}\t{word}\t\t")              # empty after the line strip
            continue
        pool = list(dict.fromkeys(annotations + rng.sample(WORDS, 5)))
        subs = [rng.choice(pool) for _ in range(rng.randint(1, 14))]   # repeats
        if rng.random() < 0.3:
            subs.insert(rng.randint(0, len(subs)), word)       # the complex word
        subs = [s + " " if rng.random() < 0.1 else s for s in subs]   # trailing spaces
        out.append("\t".join([sentence, word, *subs]) + (" " if rng.random() < 0.2 else ""))
    rng.shuffle(out)
    return "\n".join(out) + "\n"


def _compare(split, predictions: Path, gold: Path, workdir: Path) -> None:
    official = run_script(gold, predictions, workdir)
    report = FAMILY.validate(predictions.read_bytes(), split, track="generative")
    assert report.ok, report.errors
    result = FAMILY.score(split, report, track="generative", bootstrap=0)
    assert official_floors(split, report) == official
    for key, value in official.items():   # the full value, in percent, above the floor
        assert value * 100 - 1e-9 <= result.metrics[key] <= value * 100 + 0.01 + 1e-9
        # and printed, from the result and from a snapshot's copy, as the script prints it
        script_text = f"{value * 100:.2f}"
        assert shown(result.metrics[key], "tsar2022") == script_text, key
        assert shown(round(result.metrics[key], SNAPSHOT_DECIMALS), "tsar2022") == script_text


@pytest.mark.parametrize("seed", range(6))
def test_generated_files_equal_the_script(tmp_path, seed):
    script()
    rng = random.Random(seed)
    gold_lines = _gold(rng, rng.randint(5, 60))
    folder = write_tsar(tmp_path, gold_lines, split="pt-test", results=None)
    split = FAMILY.prepare_files("pt-test", folder, name="gen", bootstrap=0)
    predictions = tmp_path / "run.tsv"
    predictions.write_bytes(_predictions(rng, gold_lines).encode("utf-8"))
    _compare(split, predictions, split_paths("pt-test", folder)[0], tmp_path)


@pytest.mark.parametrize("split_name", ["en-test", "es-test", "pt-test"])
def test_real_test_splits_equal_the_script(tmp_path, split_name):
    script()
    root = shared_dir() / "data" / "tsar2022"
    gold = split_paths(split_name, root)[0]
    if not gold.is_file():
        pytest.skip(f"TSAR-2022 data not found at {root}")
    split = FAMILY.prepare_files(split_name, root, name=split_name, bootstrap=0)
    rng = random.Random(split_name)
    lines = []
    for target in split.targets:
        pool = list(target.counts) + ["zzz", target.word]
        subs = [rng.choice(pool) for _ in range(rng.randint(0, 12))]
        lines.append("\t".join([target.sentence, target.word, *subs]))
    predictions = tmp_path / "run.tsv"
    predictions.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    _compare(split, predictions, gold, tmp_path)


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
def test_every_published_value_prints_as_the_official_results_give_it(lang):
    """Each of the official runs' values (reported rows) prints with the CSV's digits: 0.8096
    as 80.96, 0.571 as 57.10, never a digit up."""
    import csv

    from leaderboard.services.catalog.tsar import CSV_COLUMNS, published_rows, results_file

    root = shared_dir() / "data" / "tsar2022"
    if not results_file(lang, root).is_file():
        pytest.skip(f"TSAR-2022 results not found at {root}")
    records = list(csv.DictReader(results_file(lang, root).open(encoding="utf-8")))
    rows = published_rows(lang, root)
    checked = 0
    for record, row in zip(records, rows, strict=True):
        for column, key in CSV_COLUMNS.items():
            fraction = record[column].strip()
            whole, _, decimals = fraction.partition(".")
            expected = f"{int(whole) * 100 + int((decimals + '0000')[:2])}." \
                       f"{(decimals + '0000')[2:4]}"
            assert shown(row.metrics[key], "tsar2022") == expected, (row.name, key, fraction)
            checked += 1
    assert checked == len(records) * 10 >= 100
