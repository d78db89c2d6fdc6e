"""Benchmark import: every bad structure refused with its message, conflicts, idempotence."""

from __future__ import annotations

import gzip

import pytest
from sqlmodel import select

from leaderboard.models import Board, Split
from leaderboard.scoring import PreparedSplit
from leaderboard.services.catalog import benchmarks
from leaderboard.services.catalog.benchmarks import BenchmarkConflict, BenchmarkInvalid
from leaderboard.services.catalog.boards import default_board
from tests.backends import ALL_DATABASES
from tests.ops.splits import TEST_SPLIT, hid, mini_split, to_bytes, variant


def _import(session, split_or_raw, **kw):
    raw = split_or_raw if isinstance(split_or_raw, bytes) else to_bytes(split_or_raw)
    args = {"name": "mini", "version": "1", "split": "test"} | kw
    return benchmarks.import_benchmark(session=session, raw=raw, **args)


def _first(section: dict) -> str:
    return next(iter(section))


def _break_context_ref(s):
    s["targets"][_first(s["targets"])]["context_id"] = hid("c", "nowhere")


def _break_target_ref(s):
    s["substitutes"][_first(s["substitutes"])]["target_id"] = hid("t", "nowhere")


def _break_label(s):
    s["substitute_labels"][_first(s["substitute_labels"])] = ["TRUE", "MAYBE"]


def _break_pos(s):
    s["targets"][_first(s["targets"])]["pos"] = "PRON"


def _break_context_id(s):
    cid = _first(s["contexts"])
    s["contexts"]["c:1234"] = s["contexts"].pop(cid)


def _break_target_id(s):
    tid = _first(s["targets"])
    s["targets"]["t:" + "G" * 40] = s["targets"].pop(tid)


def _break_substitute_id(s):
    sid = _first(s["substitutes"])
    s["substitutes"]["x:" + sid[2:]] = s["substitutes"].pop(sid)


def _break_label_ref(s):
    s["substitute_labels"][hid("s", "ghost")] = ["TRUE"]


def _drop_targets(s):
    del s["targets"]


def _labels_not_list(s):
    s["substitute_labels"][_first(s["substitute_labels"])] = "TRUE"


def _missing_word(s):
    s["targets"][_first(s["targets"])]["target"] = ""


def _empty_targets(s):
    s["targets"], s["substitutes"], s["substitute_labels"] = {}, {}, {}


_T1, _C1 = hid("t", "tgt1"), hid("c", "ctx1")
_S1 = hid("s", _T1 + "rapidly")
BAD = [
    (_break_context_ref, f"target {_T1} points to unknown context '{hid('c', 'nowhere')}'"),
    (_break_target_ref, f"substitute {_S1} points to unknown target '{hid('t', 'nowhere')}'"),
    (_break_label, f"substitute_labels: {_S1} has unknown label 'MAYBE'"),
    (_break_pos, f"target {_T1} has POS 'PRON' (expected one of ADJ, ADV, NOUN, VERB)"),
    (_break_context_id, "contexts: bad id 'c:1234' (expected 'c:' + 40 hex)"),
    (_break_target_id, f"targets: bad id 't:{'G' * 40}' (expected 't:' + 40 hex)"),
    (_break_substitute_id, f"substitutes: bad id 'x:{_S1[2:]}' (expected 's:' + 40 hex)"),
    (_break_label_ref, f"substitute_labels: unknown substitute '{hid('s', 'ghost')}'"),
    (_drop_targets, "'targets' must be an object"),
    (_labels_not_list, f"substitute_labels: {_S1} must be a list"),
    (_missing_word, f"target {_T1} has no 'target' word"),
    (_empty_targets, "the split has no targets"),
]


@pytest.mark.parametrize(("breaker", "message"), BAD, ids=[b.__name__ for b, _ in BAD])
def test_bad_structure_is_refused_with_its_problem(session, breaker, message):
    split = variant(mini_split())
    breaker(split)
    with pytest.raises(BenchmarkInvalid) as excinfo:
        _import(session, split)
    assert message in excinfo.value.problems
    assert session.exec(select(Split)).all() == []


@pytest.mark.parametrize(("raw", "message"), [
    (b"not json", "not a JSON or gzipped JSON file"),
    (gzip.compress(b"[1, 2]", mtime=0), "top level must be a JSON object"),
    (b"\x1f\x8b broken gzip", "not a JSON or gzipped JSON file"),
])
def test_unreadable_files_are_refused(session, raw, message):
    with pytest.raises(BenchmarkInvalid) as excinfo:
        _import(session, raw)
    assert str(excinfo.value).startswith(message)


def test_many_problems_are_capped_in_the_message(session):
    split = mini_split()
    for sid in split["substitute_labels"]:
        split["substitute_labels"][sid] = ["NOPE"] * 5
    with pytest.raises(BenchmarkInvalid) as excinfo:
        _import(session, split)
    assert len(excinfo.value.problems) == 30
    assert str(excinfo.value).endswith("; ... and 10 more")


@ALL_DATABASES
def test_import_stores_source_and_prepared_gold(session):
    benchmark = _import(session, mini_split(), hidden=True)
    assert benchmark.id is not None and benchmark.n_targets == 2
    assert benchmark.hidden
    # The first split gets the default board: generative, test phase (hidden labels).
    board = default_board(session)
    assert (board.split_id, board.track, board.phase, board.slug) == (
        benchmark.id, "generative", "test", "mini-v1-test-generative")
    assert len(benchmark.checksum) == 64
    assert gzip.decompress(benchmark.source_bytes) == to_bytes(mini_split())
    prepared = PreparedSplit.from_bytes(benchmark.prepared_bytes)
    assert prepared.checksum == benchmark.checksum
    quickly = prepared.target_index[hid("t", "tgt1")]
    assert dict(zip(quickly.candidates, quickly.positives, strict=True)) == {
        "rapidly": 2, "fast": 1, "slowly": 0}
    assert benchmarks.get_prepared(benchmark) is benchmarks.get_prepared(benchmark)


@ALL_DATABASES
def test_same_content_returns_existing_row_and_other_content_conflicts(session):
    first = _import(session, mini_split())
    # Same content, gzipped and with reordered keys: still the same split.
    again = _import(session, gzip.compress(to_bytes(dict(reversed(mini_split().items())))))
    assert again.id == first.id
    assert len(session.exec(select(Split)).all()) == 1
    changed = mini_split()
    changed["substitute_labels"][_S1] = ["FALSE", "FALSE"]
    with pytest.raises(BenchmarkConflict) as excinfo:
        _import(session, changed)
    assert "mini 1 test already exists with different content" in str(excinfo.value)
    # Under a new version the changed content is welcome.
    assert _import(session, changed, version="2").id != first.id


def test_default_moves_only_when_asked(session):
    first = _import(session, mini_split())
    _import(session, mini_split(), version="2")
    assert benchmarks.default_benchmark(session).id == first.id
    third = _import(session, mini_split(), version="3", make_default=True)
    assert benchmarks.default_benchmark(session).id == third.id
    defaults = session.exec(select(Board).where(Board.is_default)).all()
    assert [b.split_id for b in defaults] == [third.id]
    assert len(session.exec(select(Board)).all()) == 3


@pytest.mark.slow
@pytest.mark.skipif(not TEST_SPLIT.exists(), reason=f"{TEST_SPLIT} is absent")
def test_real_test_split_imports(session):
    benchmark = _import(session, TEST_SPLIT.read_bytes(), name="swords", version="1.1")
    assert benchmark.n_targets == 762
    prepared = benchmarks.get_prepared(benchmark)
    assert len(prepared.targets) == 762
