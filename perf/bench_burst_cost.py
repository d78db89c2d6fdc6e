"""What a burst costs: one refresh after ``--changes`` new results on a board of
``--systems``, updating the kept rank state against rebuilding it.

One process, as a ranker: a fresh SQLite database seeded in bulk (``bulk_seed``: 762 targets,
B = 1000), the first snapshot computed with the state kept in memory, then the new results
added (as the scoring job adds them, without cached resamples) and the board refreshed on
the same data: rebuilt once unreported (it reads the new results' values into the process),
then updated (forced whatever the share of changes) from the first snapshot's kept state,
then rebuilt again. Each is rolled back. Wall and CPU seconds of this process (``*_cpu_s``:
every thread, BLAS's included) are printed with the load average.

    .venv/bin/python perf/bench_burst_cost.py --systems 200 --changes 60
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    import numpy as np
    from bulk_seed import BOOTSTRAP, N_TARGETS, seed
    from sqlmodel import Session

    from leaderboard.db import create_all, make_engine
    from leaderboard.demo.synthetic import add_result
    from leaderboard.models import Team
    from leaderboard.services.ranking import blocks, board_state
    from leaderboard.services.ranking.snapshots import refresh_snapshot

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=200)
    parser.add_argument("--changes", type=int, default=60)
    args = parser.parse_args()
    out: dict = {"date": time.strftime("%Y-%m-%d %H:%M"), "cores": os.cpu_count(),
                 "load": os.getloadavg()[0], "systems": args.systems, "changes": args.changes}
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{tmp}/burst.db")
        create_all(engine)
        board_state.keep_states()
        with Session(engine) as session:
            board = seed(session, args.systems, max(1, args.systems // 10),
                         np.random.default_rng(1))
            refresh_snapshot(session=session, board_id=board.id)
            session.commit()
            team, rng = session.get(Team, 1), np.random.default_rng(2)
            for i in range(args.changes):
                add_result(session, board, team_id=team.id, name=f"New {i}",
                           skill=rng.uniform(0.2, 0.9), rng=rng, n_targets=N_TARGETS,
                           bootstrap=BOOTSTRAP)
            session.commit()
            blocks.FULL_REBUILD_SHARE = float("inf")  # measure the update whatever the share
            kept = dict(board_state._LAST_WRITTEN)

            def rebuilt(name: str) -> None:
                start, cpu = time.perf_counter(), time.process_time()
                refresh_snapshot(session=session, board_id=board.id, full=True)
                out[f"{name}_s"] = round(time.perf_counter() - start, 2)
                out[f"{name}_cpu_s"] = round(time.process_time() - cpu, 2)
                session.rollback()
                board_state._LAST_WRITTEN.clear()  # the first snapshot's state, kept
                board_state._LAST_WRITTEN.update(kept)

            # First a rebuild, whose time is not reported: it reads the new results' values
            # into this process, as the update would have to (the order must not favour one).
            rebuilt("first_rebuild")
            out["load_before_update"] = os.getloadavg()[0]
            start, cpu = time.perf_counter(), time.process_time()
            refresh_snapshot(session=session, board_id=board.id)
            out["updated_s"] = round(time.perf_counter() - start, 2)
            out["updated_cpu_s"] = round(time.process_time() - cpu, 2)
            written = board_state.last_written(board.id)
            assert written is not None and written.incremental and written.origin == "memory"
            session.rollback()
            rebuilt("rebuilt")
        engine.dispose()
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
