"""The set-up checksum `leaderboard serve` compares before re-running its import steps."""

from __future__ import annotations

from leaderboard.infra import setup_stamp


def test_checksum_follows_contents_names_and_label(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.gold").write_text("one")
    split = tmp_path / "split.json.gz"
    split.write_bytes(b"split")
    first = setup_stamp.setup_checksum([data, split, tmp_path / "absent"], "label")
    assert first == setup_stamp.setup_checksum([data, split, tmp_path / "absent"], "label")
    assert first != setup_stamp.setup_checksum([data, split], "other label")
    (data / "a.gold").write_text("two")
    second = setup_stamp.setup_checksum([data, split, tmp_path / "absent"], "label")
    assert second != first
    (data / "b.gold").write_text("")
    assert setup_stamp.setup_checksum([data, split, tmp_path / "absent"], "label") != second


def test_unchanged_only_after_a_recorded_setup(tmp_path):
    assert not setup_stamp.unchanged(tmp_path, "abc")
    setup_stamp.record(tmp_path, "abc")
    assert setup_stamp.unchanged(tmp_path, "abc") and not setup_stamp.unchanged(tmp_path, "abd")
    setup_stamp.forget(tmp_path)
    assert not setup_stamp.unchanged(tmp_path, "abc")
