"""Statistics stored before TSAR-2022's columns were appended still load: those columns are
0 for every other benchmark, so nothing they gave changes."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from leaderboard.scoring.swords.stats import COLUMN_INDEX, COLUMNS, TargetStats
from leaderboard.scoring.tsar.metrics import COLUMNS as TSAR_COLUMNS


def _old_bytes(rows: np.ndarray, columns: list[str]) -> bytes:
    meta = {"columns": columns, "split_checksum": "c", "seed": 0, "bootstrap": 10,
            "scorer_version": "1.2.0"}
    buf = io.BytesIO()
    np.savez_compressed(buf, rows=rows, pos=np.array(["NOUN", "VERB"]),
                        meta=np.array(json.dumps(meta)))
    return buf.getvalue()


def test_statistics_without_the_tsar_columns_load_with_them_at_zero():
    old_columns = list(COLUMNS[:-len(TSAR_COLUMNS)])
    rows = np.zeros((2, len(old_columns)))
    rows[:, COLUMN_INDEX["jb_item"]] = 1
    rows[:, COLUMN_INDEX["jb_best1"]] = (1.0, 0.5)
    stats = TargetStats.from_bytes(_old_bytes(rows, old_columns))
    assert stats.rows.shape == (2, len(COLUMNS))
    assert not stats.rows[:, len(old_columns):].any()
    metrics = stats.metrics()
    assert metrics["best1"] == pytest.approx(75.0) and metrics["acc@1"] == 0.0


def test_statistics_with_other_columns_are_still_refused():
    columns = ["something_else"] + list(COLUMNS[1:])
    with pytest.raises(ValueError, match="other columns"):
        TargetStats.from_bytes(_old_bytes(np.zeros((2, len(columns))), columns))
