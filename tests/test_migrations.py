"""Migrations build the same schema on SQLite and PostgreSQL, equal to the models."""

from sqlalchemy import inspect
from sqlmodel import SQLModel

from leaderboard import create_app, migrate
from leaderboard.db import make_engine
from tests.backends import ALL_DATABASES


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
