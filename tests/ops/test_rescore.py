"""leaderboard rescore --all: stale results re-queued, history kept, latest shown."""

from __future__ import annotations

from rq import Queue
from sqlmodel import select

from leaderboard.infra.queue import job_id_for
from leaderboard.infra.redis_conn import connect_redis
from leaderboard.models import ReferenceSystem, Result, Split, Submission, SubmissionStatus
from leaderboard.scoring import SCORER_VERSION
from leaderboard.services.intake.results import score_submission_now


def _demo_scored(runner, app, session) -> list[Submission]:
    assert runner.invoke(args=["benchmark", "load-demo", "--no-enqueue"]).exit_code == 0
    engine = app.extensions["db_engine"]
    for row in session.exec(select(Submission)).all():
        assert score_submission_now(engine_or_session=engine, submission_id=row.id,
                                    settings=app.config["LEADERBOARD"]) == "scored"
    session.expire_all()
    return list(session.exec(select(Submission).order_by(Submission.id)).all())


def _age(session, submission: Submission) -> None:
    """Pretend ``submission`` was scored by an older scorer."""
    submission.scorer_version = "0.9.0"
    session.add(submission)
    for result in session.exec(select(Result).where(Result.submission_id == submission.id)):
        result.scorer_version = "0.9.0"
        session.add(result)
    session.commit()


def _queue(app) -> Queue:
    settings = app.config["LEADERBOARD"]
    return Queue(settings["QUEUE_NAME"],
                 connection=connect_redis(settings["REDIS_URL"], settings["INSTANCE_PATH"]))


def test_rescore_requeues_stale_and_keeps_history(runner, app, session):
    old, current, _ = _demo_scored(runner, app, session)
    _age(session, old)
    old_metrics = session.exec(select(Result).where(Result.submission_id == old.id)).one().metrics

    result = runner.invoke(args=["rescore", "--all"])
    assert result.exit_code == 0, result.output
    assert result.output == ("1 submission(s) re-queued, 0 reference row(s) re-scored, "
                             f"0 split(s) prepared again (scorer {SCORER_VERSION})\n")
    session.expire_all()
    assert session.get(Submission, old.id).status == SubmissionStatus.QUEUED
    assert session.get(Submission, current.id).status == SubmissionStatus.SCORED
    assert _queue(app).job_ids == [job_id_for(old.id, 2, _queue(app).name)]

    engine = app.extensions["db_engine"]
    assert score_submission_now(engine_or_session=engine, submission_id=old.id,
                                settings=app.config["LEADERBOARD"]) == "scored"
    session.expire_all()
    results = session.exec(select(Result).where(Result.submission_id == old.id)
                           .order_by(Result.id)).all()
    assert [(r.scorer_version, r.is_current) for r in results] == [
        ("0.9.0", False), (SCORER_VERSION, True)]
    assert results[1].metrics == old_metrics  # same rules here, so the same numbers
    assert session.get(Submission, old.id).scorer_version == SCORER_VERSION

    # Nothing stale any more: a second pass re-queues nothing.
    again = runner.invoke(args=["rescore", "--all"])
    assert again.output.startswith("0 submission(s) re-queued")


def test_rescore_force_requeues_every_scored_submission(runner, app, session):
    rows = _demo_scored(runner, app, session)
    result = runner.invoke(args=["rescore", "--all", "--force"])
    assert result.output.startswith("3 submission(s) re-queued")
    name = _queue(app).name
    assert sorted(_queue(app).job_ids) == sorted(job_id_for(r.id, 2, name) for r in rows)


def test_rescore_needs_all(runner):
    result = runner.invoke(args=["rescore"])
    assert result.exit_code == 2
    assert "pass --all (with --force to include current results)" in result.output


def test_rescore_prepares_stale_splits_and_rescores_references(runner, app, session, tmp_path):
    from tests.ops.splits import mini_split, to_bytes
    from tests.ops.test_references import _oracle_file

    split = tmp_path / "mini.json"
    split.write_bytes(to_bytes(mini_split()))
    runner.invoke(args=["benchmark", "import", str(split), "--name", "mini", "--version", "1",
                        "--split", "test"])
    runner.invoke(args=["reference", "add", "--name", "Oracle", "--kind", "oracle",
                        "--file", str(_oracle_file(tmp_path))])
    benchmark = session.exec(select(Split)).one()
    reference = session.exec(select(ReferenceSystem)).one()
    benchmark.scorer_version = reference.scorer_version = "0.9.0"
    reference.metrics = {"gap": 1.0}
    session.add_all([benchmark, reference])
    session.commit()

    result = runner.invoke(args=["rescore", "--all"])
    assert result.output == ("0 submission(s) re-queued, 1 reference row(s) re-scored, "
                             f"1 split(s) prepared again (scorer {SCORER_VERSION})\n")
    session.expire_all()
    assert session.get(Split, benchmark.id).scorer_version == SCORER_VERSION
    reference = session.get(ReferenceSystem, reference.id)
    assert reference.scorer_version == SCORER_VERSION
    assert reference.metrics["gap"] == 100.0
