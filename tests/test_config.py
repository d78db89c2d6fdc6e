"""Settings precedence and secret key handling."""

import pytest

from leaderboard import create_app
from leaderboard.config import InsecureConfiguration, load_settings, resolve_secret_key


def test_environment_overrides_defaults_and_overrides_win():
    settings = load_settings({"DAILY_SCORED_QUOTA": 9},
                             environ={"LEADERBOARD_DAILY_SCORED_QUOTA": "7",
                                      "LEADERBOARD_JOB_TIMEOUT": "12"})
    assert settings["DAILY_SCORED_QUOTA"] == 9
    assert settings["JOB_TIMEOUT"] == 12


def test_default_database_is_sqlite_under_instance(tmp_path):
    settings = load_settings({"INSTANCE_PATH": str(tmp_path)}, environ={})
    assert settings["DATABASE_URL"] == f"sqlite:///{tmp_path / 'leaderboard.db'}"


def test_secret_key_generated_once_and_kept(tmp_path):
    settings = load_settings({"INSTANCE_PATH": str(tmp_path)}, environ={})
    first = resolve_secret_key(settings)
    assert len(first) == 64
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600
    assert resolve_secret_key(settings) == first


def test_production_refuses_missing_secret(tmp_path):
    with pytest.raises(InsecureConfiguration, match="LEADERBOARD_SECRET_KEY"):
        create_app({"INSTANCE_PATH": str(tmp_path), "ENV": "production", "SECRET_KEY": ""})


def test_production_sets_secure_cookies(tmp_path):
    app = create_app({"INSTANCE_PATH": str(tmp_path), "ENV": "production",
                      "SECRET_KEY": "x" * 40})
    assert app.config["SESSION_COOKIE_SECURE"] is True
    assert app.config["SECRET_KEY"] == "x" * 40
