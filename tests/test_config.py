"""Settings precedence and secret key handling."""

import pytest

from leaderboard import create_app
from leaderboard.config import (
    SERVE_URL_FILE,
    InsecureConfiguration,
    load_settings,
    public_url,
    resolve_secret_key,
)


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


def test_port_variable_is_read_and_the_prefixed_one_wins():
    assert load_settings(environ={"PORT": "9123"})["PORT"] == 9123
    assert load_settings(environ={"PORT": "9123", "LEADERBOARD_PORT": "9200"})["PORT"] == 9200
    assert load_settings(environ={})["PORT"] == 8000


def test_public_url_configured_then_recorded_by_serve_then_host_and_port(tmp_path):
    env = {"LEADERBOARD_INSTANCE_PATH": str(tmp_path), "PORT": "9123"}
    assert public_url(load_settings(environ=env)) == "http://127.0.0.1:9123"
    (tmp_path / SERVE_URL_FILE).write_text("http://127.0.0.1:8765/\n")
    assert public_url(load_settings(environ=env)) == "http://127.0.0.1:8765"
    env["LEADERBOARD_PUBLIC_URL"] = "https://swords.example.org/"
    assert public_url(load_settings(environ=env)) == "https://swords.example.org"
