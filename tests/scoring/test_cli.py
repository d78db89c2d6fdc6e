"""``leaderboard score`` and ``leaderboard wordnet`` through click's CliRunner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from leaderboard.commands.score import score_command
from leaderboard.commands.wordnet import wordnet_group
from leaderboard.scoring.swords.stats import SWORDS_METRIC_KEYS as METRIC_KEYS

DEMO = Path(__file__).resolve().parents[2] / "leaderboard" / "demo"


@pytest.fixture
def split_file(tmp_path, tiny_split) -> Path:
    path = tmp_path / "split.json"
    path.write_text(json.dumps(tiny_split))
    return path


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch) -> Path:
    """Each test gets its own prepared-split cache."""
    path = tmp_path / "cache"
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(path))
    return path


def _run(*args: str):
    return CliRunner().invoke(score_command, list(args))


def test_json_output_shape(wordnet):
    res = _run("--split", str(DEMO / "demo_split.json"),
               "--submission", str(DEMO / "submissions" / "demo_weak.json"),
               "--bootstrap", "100", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert set(doc) == {"submission", "metrics", "intervals", "by_pos", "warnings", "counts",
                        "signature"}
    assert doc["signature"]["bootstrap"] == 100 and doc["signature"]["seed"] == 0
    assert len(doc["signature"]["split_checksum"]) == 64
    assert doc["submission"].endswith("demo_weak.json")
    assert list(doc["metrics"]) == list(METRIC_KEYS)   # TSAR-2022's ten are not SWORDS'
    assert "acc@1" not in doc["metrics"] and "potential@10" not in doc["by_pos"]["NOUN"]["metrics"]
    assert all(len(doc["intervals"][k]) == 2 for k in METRIC_KEYS)
    assert set(doc["by_pos"]) == {"NOUN", "VERB", "ADJ", "ADV"}
    assert set(doc["by_pos"]["ADV"]) == {"metrics", "intervals"}
    assert doc["warnings"] and "4 of 13" in doc["warnings"][0]


def test_table_output(wordnet):
    res = _run("--split", str(DEMO / "demo_split.json"),
               "--submission", str(DEMO / "submissions" / "demo_strong.json"),
               "--bootstrap", "50")
    assert res.exit_code == 0, res.output
    assert "lenient_a_f@10" in res.stdout and "Per part of speech" in res.stdout
    assert "13 of 13 targets answered" in res.stdout


def test_same_seed_same_numbers(wordnet):
    args = ("--split", str(DEMO / "demo_split.json"), "--submission",
            str(DEMO / "submissions" / "demo_baseline.json"), "--json", "--seed", "7")
    assert _run(*args).stdout == _run(*args).stdout


def test_invalid_submission_exits_2_with_errors(wordnet, split_file, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"substitutes": {"t:nope": [["x", NaN]]}}')
    res = _run("--split", str(split_file), "--submission", str(bad), "--json")
    assert res.exit_code == 2
    doc = json.loads(res.stdout)
    assert [e["code"] for e in doc["errors"]] == ["unknown_target"]
    assert doc["submission"] == str(bad)
    res = _run("--split", str(split_file), "--submission", str(bad))
    assert res.exit_code == 2 and "unknown_target" in res.output


def test_not_json_exits_2(wordnet, split_file, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("hello")
    res = _run("--split", str(split_file), "--submission", str(bad), "--json")
    assert res.exit_code == 2 and json.loads(res.stdout)["errors"][0]["code"] == "not_json"


def test_wordnet_check(wordnet):
    res = CliRunner().invoke(wordnet_group, ["check"])
    assert res.exit_code == 0 and "WordNet 3.0 OK" in res.output


def test_wordnet_install_writes_the_table(wordnet, tmp_path, monkeypatch):
    table = tmp_path / "table.json.gz"
    res = CliRunner().invoke(wordnet_group, ["install", "--table", str(table)])
    assert res.exit_code == 0, res.output
    assert f"written to {table}" in res.output and table.stat().st_size > 100_000
    res = CliRunner().invoke(wordnet_group, ["install", "--source", str(tmp_path),
                                             "--table", str(tmp_path / "other.json.gz")])
    assert res.exit_code == 1 and "lacks index.noun" in res.output
    monkeypatch.setenv("LEADERBOARD_WORDNET_TABLE", str(tmp_path / "other.json.gz"))
    from leaderboard.scoring.swords.lemmatize import reset_wordnet

    reset_wordnet()
    try:
        res = CliRunner().invoke(wordnet_group, ["check"])
        assert res.exit_code == 1 and "leaderboard wordnet install" in res.output
    finally:
        monkeypatch.undo()
        reset_wordnet()


def test_several_submissions_in_one_process(wordnet):
    files = [DEMO / "submissions" / f"demo_{n}.json" for n in ("weak", "strong", "baseline")]
    res = _run("--split", str(DEMO / "demo_split.json"), "--submission", *map(str, files),
               "--bootstrap", "20", "--json")
    assert res.exit_code == 0, res.output
    docs = [json.loads(line) for line in res.stdout.splitlines()]
    assert [d["submission"] for d in docs] == [str(f) for f in files]
    single = json.loads(_run("--split", str(DEMO / "demo_split.json"), "--submission",
                             str(files[1]), "--bootstrap", "20", "--json").stdout)
    assert docs[1] == single
    res = _run("--split", str(DEMO / "demo_split.json"), "--submission", *map(str, files[:2]),
               "--bootstrap", "0")
    assert res.exit_code == 0
    assert f"== {files[0]} ==" in res.stdout and f"== {files[1]} ==" in res.stdout


def test_repeated_submission_option_scores_every_file(wordnet):
    """``--submission a --submission b c``: a, b and c, in that order (only the last
    ``--submission`` was scored before)."""
    files = [DEMO / "submissions" / f"demo_{n}.json" for n in ("weak", "strong", "baseline")]
    res = _run("--split", str(DEMO / "demo_split.json"), "--submission", str(files[0]),
               "--bootstrap", "0", "--submission", str(files[1]), str(files[2]), "--json")
    assert res.exit_code == 0, res.output
    docs = [json.loads(line) for line in res.stdout.splitlines()]
    assert [d["submission"] for d in docs] == [str(f) for f in files]
    assert len({json.dumps(d["metrics"]) for d in docs}) == 3


def test_one_invalid_file_among_several_exits_2_after_scoring_the_rest(wordnet, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("hello")
    good = DEMO / "submissions" / "demo_weak.json"
    res = _run("--split", str(DEMO / "demo_split.json"), "--submission", str(bad), str(good),
               "--bootstrap", "0", "--json")
    assert res.exit_code == 2
    first, second = (json.loads(line) for line in res.stdout.splitlines())
    assert first["errors"][0]["code"] == "not_json" and "metrics" in second


def test_prepared_split_is_cached_by_checksum(wordnet, split_file, cache_dir, monkeypatch):
    from leaderboard.scoring.swords import split_cache

    sub = DEMO / "submissions" / "demo_weak.json"
    first = _run("--split", str(split_file), "--submission", str(sub), "--json",
                 "--bootstrap", "10")
    assert first.exit_code == 2  # the demo submission's targets are not the tiny split's
    [entry] = cache_dir.iterdir()
    assert entry.name.startswith("prepared-") and entry.name.endswith(".json.gz")

    def refuse(*args, **kwargs):
        raise AssertionError("the gold was prepared again")

    monkeypatch.setattr(split_cache, "prepare_split", refuse)
    prepared, source = split_cache.prepared_split_cached(split_file, bootstrap=7, seed=3)
    assert source == "cache" and prepared.bootstrap == 7 and prepared.seed == 3
    assert [t.lemma for t in prepared.targets][:2] == ["car", "run"]
    monkeypatch.undo()
    entry.write_bytes(b"truncated")  # a broken entry is prepared again and replaced
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(cache_dir))
    _, source = split_cache.prepared_split_cached(split_file)
    assert source == "prepared" and entry.read_bytes()[:2] == b"\x1f\x8b"
    split_file.write_text(split_file.read_text() + " ")  # another file: another entry
    split_cache.prepared_split_cached(split_file)
    assert len(list(cache_dir.iterdir())) == 2
    _, source = split_cache.prepared_split_cached(split_file, use_cache=False)
    assert source == "prepared (cache disabled)"


def _score_in_fresh_process(args: list[str], cache_dir) -> str:
    """Run ``leaderboard score ARGS`` in a new interpreter; its output, whose last line lists
    the web-stack modules it imported."""
    code = (
        "import sys\n"
        "from leaderboard.cli import main\n"
        "try:\n"
        f"    main({args!r})\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "web = {'flask', 'werkzeug', 'sqlalchemy', 'sqlmodel', 'rq', 'redis', 'alembic',\n"
        "       'pandas', 'plotly', 'jinja2', 'nltk'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in web))\n"
    )
    env = {**os.environ, "LEADERBOARD_CACHE_DIR": str(cache_dir)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_score_command_imports_nothing_from_the_web_stack(wordnet, cache_dir):
    out = _score_in_fresh_process(
        ["score", "--split", str(DEMO / "demo_split.json"), "--submission",
         str(DEMO / "submissions" / "demo_weak.json"), "--json"], cache_dir)
    assert '"metrics"' in out
    assert out.strip().splitlines()[-1] == "[]"


@pytest.fixture
def random_ranking_file(tmp_path) -> Path:
    """The Random reference file of the demo split (every candidate, seed 0)."""
    from leaderboard.scoring.swords.ranking_track import random_ranking_submission

    path = tmp_path / "random.json"
    split = json.loads((DEMO / "demo_split.json").read_text())
    path.write_text(json.dumps(random_ranking_submission(split, seed=0)))
    return path


def test_ranking_track_prints_gap_gap_ratio_and_p1_only(wordnet, random_ranking_file):
    res = _run("--track", "ranking", "--split", str(DEMO / "demo_split.json"),
               "--submission", str(random_ranking_file), "--bootstrap", "50")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    # GAP 69.13 and GAP ratio 70.74: worked out by hand in tests/pipeline/test_ranking_track.py;
    # P@1: the random first candidate has a positive label on 11 of the 13 targets.
    assert [line.lstrip("* ").split()[:2] for line in lines[1:4]] == [
        ["gap", "69.13"], ["gap_rat", "70.74"], ["strict_c_p@1", "84.62"]]
    assert lines[1].startswith("* gap ")  # the headline, marked
    assert "f@10" not in res.stdout and "best_p" not in res.stdout
    assert "Per part of speech" in res.stdout
    assert "13 of 13 targets answered" in res.stdout


def test_ranking_track_json_has_the_ranking_metrics_per_pos(wordnet, random_ranking_file):
    res = _run("--track", "ranking", "--split", str(DEMO / "demo_split.json"),
               "--submission", str(random_ranking_file), "--bootstrap", "50", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["track"] == "ranking"
    assert list(doc["metrics"]) == ["gap", "gap_rat", "strict_c_p@1"]
    assert round(doc["metrics"]["gap"], 2) == 69.13
    assert list(doc["intervals"]) == ["gap", "gap_rat", "strict_c_p@1"]
    assert doc["intervals"]["gap"][0] < doc["metrics"]["gap"] < doc["intervals"]["gap"][1]
    assert set(doc["by_pos"]) == {"NOUN", "VERB", "ADJ", "ADV"}
    assert list(doc["by_pos"]["ADV"]["metrics"]) == ["gap", "gap_rat", "strict_c_p@1"]


def test_ranking_track_names_missing_and_foreign_candidates(wordnet, random_ranking_file,
                                                            tmp_path):
    doc = json.loads(random_ranking_file.read_text())
    first = next(iter(doc["substitutes"]))
    dropped = doc["substitutes"][first].pop()[0]
    doc["substitutes"][first].append(["speedily", 0.5])
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(doc))
    res = _run("--track", "ranking", "--split", str(DEMO / "demo_split.json"),
               "--submission", str(path), "--bootstrap", "0")
    assert res.exit_code == 2
    assert f"[missing_candidates] {first}: no score for 1 of 8 candidates: {dropped!r}" in (
        res.stderr)
    assert f"[unknown_candidates] {first}: not candidates of this target (1): 'speedily'" in (
        res.stderr)
    # The generative track (the default) takes the same file.
    res = _run("--split", str(DEMO / "demo_split.json"), "--submission", str(path),
               "--bootstrap", "0")
    assert res.exit_code == 0 and "lenient_a_f@10" in res.stdout


def test_ranking_score_imports_nothing_from_the_web_stack(wordnet, cache_dir,
                                                          random_ranking_file):
    out = _score_in_fresh_process(
        ["score", "--track", "ranking", "--split", str(DEMO / "demo_split.json"),
         "--submission", str(random_ranking_file), "--json"], cache_dir)
    assert '"track": "ranking"' in out
    assert out.strip().splitlines()[-1] == "[]"


def test_top_level_help_lists_our_commands_only():
    """No Flask options or commands (--app, routes, shell, limiter)."""
    import subprocess
    import sys
    from pathlib import Path

    binary = str(Path(sys.executable).with_name("leaderboard"))
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    for flask_only in ("--app", "Flask version", "routes", "shell", "limiter", "--env-file"):
        assert flask_only not in out.stdout, flask_only
    for ours in ("score", "submit", "serve", "board", "benchmark", "worker", "team", "token"):
        assert f"\n  {ours} " in out.stdout, ours
    sub = subprocess.run([binary, "submit", "--help"], capture_output=True, text=True,
                         timeout=60)
    assert "--paper-url" in sub.stdout and "--code-url" in sub.stdout
    assert "LEADERBOARD_URL" in sub.stdout and "LEADERBOARD_TOKEN" in sub.stdout


def test_wordnet_install_keeps_a_table_of_unchanged_sources(wordnet, tmp_path):
    """`make run` runs `wordnet install` each time; unchanged sources (by
    checksum) keep the table, changed ones or --force compile it again."""
    import shutil

    from leaderboard.scoring.swords.wordnet_table import source_dir

    source = tmp_path / "wn"
    shutil.copytree(source_dir(), source)
    table = tmp_path / "table.json.gz"
    args = ["install", "--source", str(source), "--table", str(table)]
    assert "written to" in CliRunner().invoke(wordnet_group, args).output
    kept = CliRunner().invoke(wordnet_group, args)
    assert kept.exit_code == 0 and "up to date" in kept.output and "kept" in kept.output
    assert "written to" in CliRunner().invoke(wordnet_group, [*args, "--force"]).output
    exc = next(source.glob("*.exc"))
    exc.write_text(exc.read_text() + "zzzs zzz\n")
    assert "written to" in CliRunner().invoke(wordnet_group, args).output
    assert "up to date" in CliRunner().invoke(wordnet_group, args).output
