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
