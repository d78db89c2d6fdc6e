"""Migrations build the same schema on SQLite and PostgreSQL, equal to the models."""

import pytest
from sqlalchemy import inspect
from sqlmodel import SQLModel

from leaderboard import create_app
from leaderboard.db import make_engine
from leaderboard.infra import migrate
from tests.backends import ALL_DATABASES

pytestmark = pytest.mark.empty_database


def _head(engine) -> str:
    # The newest migration file (branches' migrations are re-chained when merged).
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(migrate.alembic_config(engine)).get_current_head()


def _schema(engine) -> dict[str, set[str]]:
    inspector = inspect(engine)
    return {table: {column["name"] for column in inspector.get_columns(table)}
            for table in inspector.get_table_names() if table != "alembic_version"}


@ALL_DATABASES
def test_upgrade_empty_database_matches_models(database_url):
    engine = make_engine(database_url)
    migrate.upgrade(engine)
    expected = {table.name: {column.name for column in table.columns}
                for table in SQLModel.metadata.sorted_tables}
    assert _schema(engine) == expected
    assert migrate.current_revision(engine) == _head(engine)
    engine.dispose()


def test_db_upgrade_command_on_empty_database(app_overrides):
    app = create_app(app_overrides)
    result = app.test_cli_runner().invoke(args=["db", "upgrade"])
    assert result.exit_code == 0, result.output
    head = _head(app.extensions["db_engine"])
    assert f"Database at revision {head}." in result.output
    again = app.test_cli_runner().invoke(args=["db", "upgrade"])
    assert again.exit_code == 0, again.output  # idempotent
    app.extensions["db_engine"].dispose()


@ALL_DATABASES
def test_accounts_migration_counts_existing_users_as_verified(database_url):
    from sqlalchemy import text

    engine = make_engine(database_url)
    migrate.upgrade(engine, "0001_initial")
    with engine.begin() as conn:
        conn.execute(text('INSERT INTO "user" (email, password_hash, is_admin, created_at, '
                          "password_changed_at) VALUES ('old@example.org', 'x', false, "
                          "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"))
    migrate.upgrade(engine)
    from sqlmodel import Session, select

    from leaderboard.models import User

    with Session(engine) as session:
        user = session.exec(select(User)).one()
        assert user.email_verified_at is not None and user.email_verified_at.tzinfo
        assert user.notify_on_finish is False
    engine.dispose()


@ALL_DATABASES
def test_boards_migration_gives_each_split_its_generative_board(database_url):
    """Existing splits, submissions and snapshots move onto one board per split; the default
    split's board becomes the default; a public split's board is a dev board."""
    from sqlalchemy import text
    from sqlmodel import Session, select

    from leaderboard.models import Board, LeaderboardSnapshot, Submission

    engine = make_engine(database_url)
    migrate.upgrade(engine, "0003_accounts")
    with engine.begin() as conn:
        for name, split, hidden, default in (("swords", "test", True, True),
                                             ("swords", "dev", False, False)):
            conn.execute(text(
                "INSERT INTO benchmark (name, version, split, checksum, hidden, is_default, "
                "n_targets, source_bytes, prepared_bytes, scorer_version, created_at) VALUES "
                "(:name, '1.1', :split, 'c', :hidden, :default, 1, :blob, :blob, '1.1.0', "
                "CURRENT_TIMESTAMP)"),
                {"name": name, "split": split, "hidden": hidden, "default": default,
                 "blob": b"-"})
        conn.execute(text("INSERT INTO team (name, disabled, created_at) "
                          "VALUES ('Lab', false, CURRENT_TIMESTAMP)"))
        dev_id = conn.execute(text("SELECT id FROM benchmark WHERE split = 'dev'")).scalar_one()
        conn.execute(text(
            "INSERT INTO submission (team_id, benchmark_id, system_name, description, paper_url, "
            "code_url, filename, file_bytes, file_sha256, file_size, status, progress, errors, "
            "warnings, failure_reason, attempts, is_public, hidden, hidden_reason, "
            "scorer_version, created_at) VALUES ((SELECT id FROM team), :bench, 's', '', '', '', "
            "'', :blob, 'x', 0, 'scored', '', '[]', '[]', '', 1, true, false, '', '', "
            "CURRENT_TIMESTAMP)"), {"bench": dev_id, "blob": b"{}"})
        # A result points at the submission, so the submission table cannot simply be copied.
        conn.execute(text(
            "INSERT INTO result (submission_id, is_current, scorer_version, split_checksum, "
            "bootstrap_seed, bootstrap_samples, metrics, intervals, by_pos, counts, "
            "target_stats, created_at) VALUES ((SELECT id FROM submission), true, '1.1.0', 'c', "
            "0, 1000, '{}', '{}', '{}', '{}', :blob, CURRENT_TIMESTAMP)"), {"blob": b"-"})
        conn.execute(text("INSERT INTO leaderboardsnapshot (benchmark_id, data, created_at) "
                          "VALUES (:bench, '{}', CURRENT_TIMESTAMP)"), {"bench": dev_id})
    migrate.upgrade(engine)
    with Session(engine) as session:
        boards = {b.slug: b for b in session.exec(select(Board)).all()}
        assert sorted(boards) == ["swords-v1.1-dev-generative", "swords-v1.1-test-generative"]
        test, dev = boards["swords-v1.1-test-generative"], boards["swords-v1.1-dev-generative"]
        assert (test.track, test.phase, test.is_default) == ("generative", "test", True)
        assert (dev.track, dev.phase, dev.is_default) == ("generative", "dev", False)
        assert session.exec(select(Submission.board_id)).one() == dev.id
        assert session.exec(select(LeaderboardSnapshot.board_id)).one() == dev.id
    engine.dispose()


@ALL_DATABASES
def test_team_name_key_migration_renames_case_duplicates_and_enforces_them(database_url,
                                                                           caplog):
    """Teams whose names differ only by case (possible before 0006): the oldest keeps its
    name, later ones get a free ``(n)`` suffix, each rename is logged; the index then refuses
    a name that differs from another only by case, on either database."""
    import logging

    import pytest
    from sqlalchemy import text
    from sqlalchemy.exc import IntegrityError

    engine = make_engine(database_url)
    migrate.upgrade(engine, "0005_submission_failure_detail")
    with engine.begin() as conn:
        for name in ("Lab", "LAB", "lab (2)x", "Other", "lab"):
            conn.execute(text("INSERT INTO team (name, disabled, created_at) "
                              "VALUES (:name, false, CURRENT_TIMESTAMP)"), {"name": name})
    with caplog.at_level(logging.WARNING):
        migrate.upgrade(engine)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT name, name_key FROM team ORDER BY id")).all()
    assert [tuple(row) for row in rows] == [
        ("Lab", "lab"), ("LAB (2)", "lab (2)"), ("lab (2)x", "lab (2)x"), ("Other", "other"),
        ("lab (3)", "lab (3)")]
    assert "renamed from 'LAB' to 'LAB (2)'" in caplog.text
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text("INSERT INTO team (name, name_key, disabled, created_at) "
                          "VALUES ('OTHER', 'other', false, CURRENT_TIMESTAMP)"))
    engine.dispose()


@ALL_DATABASES
def test_mailbox_migration_keys_every_user_and_names_shared_mailboxes(database_url, caplog):
    """0009: each account gets its mailbox; accounts made before the one-per-mailbox rule
    that share one keep working, and the hosts are told which."""
    import logging

    from sqlalchemy import text

    engine = make_engine(database_url)
    migrate.upgrade(engine, "0008_ranking_state")
    emails = ["me+1@x.org", "Me+2@x.org", "j.doe@gmail.com", "jdoe+x@googlemail.com",
              "other@x.org"]
    with engine.begin() as conn:
        for email in emails:
            conn.execute(text('INSERT INTO "user" (email, password_hash, is_admin, created_at, '
                              "password_changed_at, notify_on_finish) VALUES (:email, 'x', "
                              "false, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, false)"),
                         {"email": email})
    with caplog.at_level(logging.WARNING, logger="alembic.runtime.migration"):
        migrate.upgrade(engine)
    with engine.connect() as conn:
        rows = conn.execute(text('SELECT email, mailbox FROM "user" ORDER BY id')).all()
    assert [tuple(row) for row in rows] == [
        ("me+1@x.org", "me@x.org"), ("Me+2@x.org", "me@x.org"),
        ("j.doe@gmail.com", "jdoe@gmail.com"), ("jdoe+x@googlemail.com", "jdoe@gmail.com"),
        ("other@x.org", "other@x.org")]
    shared = sorted(r.getMessage() for r in caplog.records if "share the mailbox" in r.getMessage())
    assert [m.split(" share")[0] for m in shared] == [
        "accounts j.doe@gmail.com, jdoe+x@googlemail.com", "accounts me+1@x.org, Me+2@x.org"]
    assert migrate.current_revision(engine) == _head(engine)
    engine.dispose()


@ALL_DATABASES
def test_team_name_skeleton_migration_renames_look_alikes_and_enforces_them(database_url,
                                                                           caplog):
    """Teams whose names look alike (possible before 0010): the oldest keeps its name, later
    ones get a free ``(n)`` suffix, each rename is logged; the index then refuses a look-alike
    of a stored name, on either database."""
    import logging

    import pytest
    from sqlalchemy import text
    from sqlalchemy.exc import IntegrityError

    engine = make_engine(database_url)
    migrate.upgrade(engine, "0009_user_mailbox")
    with engine.begin() as conn:
        for name in ("Team 1", "Pax", "Team l", "\u0420\u0430\u0445", "Other"):
            conn.execute(text("INSERT INTO team (name, name_key, disabled, created_at) "
                              "VALUES (:name, :key, false, CURRENT_TIMESTAMP)"),
                         {"name": name, "key": name.casefold()})
    with caplog.at_level(logging.WARNING):
        migrate.upgrade(engine)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT name, name_skeleton FROM team ORDER BY id")).all()
    assert [tuple(row) for row in rows] == [
        ("Team 1", "tearn l"), ("Pax", "pax"), ("Team l (2)", "tearn l (2)"),
        ("\u0420\u0430\u0445 (2)", "pax (2)"), ("Other", "other")]
    assert "renamed from 'Team l' to 'Team l (2)'" in caplog.text
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text("INSERT INTO team (name, name_key, name_skeleton, disabled, "
                          "created_at) VALUES ('Team I', 'team i', 'tearn l', false, "
                          "CURRENT_TIMESTAMP)"))
    engine.dispose()


@ALL_DATABASES
def test_result_public_id_migration_gives_each_result_its_own_random_id(database_url):
    """0017: every result existing before it gets a random 16-hex id of its own; the unique
    index then refuses a second result with the same id, on either database."""
    import re

    import pytest
    from alembic import command
    from alembic.script import ScriptDirectory
    from sqlalchemy import text
    from sqlalchemy.exc import IntegrityError
    from sqlmodel import Session

    from leaderboard.models import Board, Result, Split, Submission, Team

    engine = make_engine(database_url)
    migrate.upgrade(engine)
    with Session(engine) as session:
        team, split = Team(name="Lab"), Split(name="swords", version="1.1", split="test",
                                              checksum="c", source_bytes=b"-",
                                              prepared_bytes=b"-", scorer_version="1.1.0")
        session.add_all([team, split])
        session.flush()
        board = Board(slug="b", split_id=split.id)
        session.add(board)
        session.flush()
        sub = Submission(team_id=team.id, split_id=split.id, board_id=board.id,
                         system_name="s", file_bytes=b"{}", file_sha256="x")
        session.add(sub)
        session.flush()
        session.add_all([Result(submission_id=sub.id, scorer_version="1.1.0",
                                split_checksum="c", target_stats=b"-") for _ in range(3)])
        session.commit()
    config = migrate.alembic_config(engine)
    before = ScriptDirectory.from_config(config).get_revision("0017_result_public_id")
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, before.down_revision)  # the rows, without their ids
    migrate.upgrade(engine)
    with engine.connect() as conn:
        ids = [row[0] for row in conn.execute(text("SELECT public_id FROM result ORDER BY id"))]
    assert len(set(ids)) == 3 and all(re.fullmatch(r"[0-9a-f]{16}", i) for i in ids)
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text("UPDATE result SET public_id = :first WHERE public_id = :second"),
                     {"first": ids[0], "second": ids[1]})


def test_systems_migration_makes_one_system_per_team_and_name(database_url):
    """Each distinct (team, system name) becomes one System holding the newest upload's
    texts, and every submission points to its system."""
    from sqlalchemy import text
    from sqlmodel import Session, select

    from leaderboard.models import Submission, System

    engine = make_engine(database_url)
    migrate.upgrade(engine, "0003_accounts")
    with engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO benchmark (name, version, split, checksum, hidden, is_default, "
            "n_targets, source_bytes, prepared_bytes, scorer_version, created_at) VALUES "
            "('swords', '1.1', 'test', 'c', true, true, 1, :blob, :blob, '1.1.0', "
            "CURRENT_TIMESTAMP)"), {"blob": b"-"})
        conn.execute(text("INSERT INTO team (name, disabled, created_at) "
                          "VALUES ('Lab', false, CURRENT_TIMESTAMP)"))
        for name, description, url, day in (("Ranker", "first try", "", "2026-01-01"),
                                             ("Ranker", "better", "https://a.org/p", "2026-01-02"),
                                             ("Ranker", "", "", "2026-01-03"),
                                             ("Baseline", "", "", "2026-01-04")):
            conn.execute(text(
                "INSERT INTO submission (team_id, benchmark_id, system_name, description, "
                "paper_url, code_url, filename, file_bytes, file_sha256, file_size, status, "
                "progress, errors, warnings, failure_reason, attempts, is_public, hidden, "
                "hidden_reason, scorer_version, created_at) VALUES ((SELECT id FROM team), "
                "(SELECT id FROM benchmark), :name, :description, :url, '', '', :blob, 'x', 0, "
                "'scored', '', '[]', '[]', '', 1, true, false, '', '', :day)"),
                {"name": name, "description": description, "url": url, "day": day,
                 "blob": b"{}"})
    migrate.upgrade(engine)
    with Session(engine) as session:
        systems = {s.name: s for s in session.exec(select(System)).all()}
        assert sorted(systems) == ["Baseline", "Ranker"]
        ranker = systems["Ranker"]
        assert (ranker.description, ranker.paper_url, ranker.code_url) == (
            "better", "https://a.org/p", "")
        assert len(ranker.slug) == 10 and ranker.slug != systems["Baseline"].slug
        pointed = [(s.system_name, s.system_id) for s in session.exec(
            select(Submission).order_by(Submission.id)).all()]
        assert pointed == [("Ranker", ranker.id)] * 3 + [("Baseline", systems["Baseline"].id)]
    engine.dispose()
