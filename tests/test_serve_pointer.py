"""Host commands follow ``instance/current`` to the folder of the ``serve`` that runs."""

from __future__ import annotations

import os

import pytest

from leaderboard import config
from leaderboard.config import load_settings
from leaderboard.infra import serve_pointer


@pytest.fixture
def base(tmp_path, monkeypatch):
    """The default instance folder is tmp/instance; this test process plays the serve."""
    folder = tmp_path / "instance"
    monkeypatch.setitem(config.DEFAULTS, "INSTANCE_PATH", str(folder))
    monkeypatch.setattr(serve_pointer, "is_serve", lambda pid: pid == os.getpid())
    return folder


def _claim(base, stem="swords-v1.1_test", pid=None):
    instance = base / stem
    instance.mkdir(parents=True)
    (instance / "serve.pid").write_text(f"{pid or os.getpid()}\n")
    serve_pointer.write_pointer(base, instance, pid or os.getpid())
    return instance.resolve()


def test_settings_follow_a_live_serve(base):
    instance = _claim(base)
    settings = load_settings(environ={})
    assert settings["INSTANCE_PATH"] == str(instance)
    assert settings["DATABASE_URL"] == f"sqlite:///{instance / 'leaderboard.db'}"


def test_explicit_folder_or_database_wins(base, tmp_path):
    _claim(base)
    other = str(tmp_path / "other")
    assert load_settings(environ={"LEADERBOARD_INSTANCE_PATH": other})["INSTANCE_PATH"] == other
    url = "postgresql://db/leaderboard"
    explicit = load_settings(environ={"LEADERBOARD_DATABASE_URL": url})
    assert explicit["INSTANCE_PATH"] == str(base) and explicit["DATABASE_URL"] == url
    assert load_settings({"INSTANCE_PATH": other}, environ={})["INSTANCE_PATH"] == other


def test_a_pointer_of_a_gone_serve_is_ignored(base):
    instance = _claim(base)
    (instance / "serve.pid").write_text("999999999\n")   # another serve claimed it since
    assert load_settings(environ={})["INSTANCE_PATH"] == str(base)
    serve_pointer.write_pointer(base, instance, 999999999)  # a killed serve's pointer
    assert load_settings(environ={})["INSTANCE_PATH"] == str(base)


def test_remove_pointer_only_removes_its_own(base):
    _claim(base)
    serve_pointer.remove_pointer(base, os.getpid() + 1)
    assert (base / "current").exists()
    serve_pointer.remove_pointer(base, os.getpid())
    assert not (base / "current").exists()


def test_an_explicit_folder_follows_the_serve_running_in_it(base):
    """``LEADERBOARD_INSTANCE_PATH=X`` given to ``serve --benchmark F`` (data in X/<F's stem>)
    and to a host command: the command follows X's pointer; an explicit database does not."""
    instance = _claim(base)
    followed = load_settings(environ={"LEADERBOARD_INSTANCE_PATH": str(base)})
    assert followed["INSTANCE_PATH"] == str(instance)
    assert followed["DATABASE_URL"] == f"sqlite:///{instance / 'leaderboard.db'}"
    assert load_settings(environ={"LEADERBOARD_INSTANCE_PATH": str(base)},
                         follow_serve=False)["INSTANCE_PATH"] == str(base)


def test_links_use_the_running_servers_url_when_the_database_is_explicit(base):
    """A command with its own database URL keeps it, and its printed links still name the
    address the running serve recorded, not port 8000."""
    instance = _claim(base)
    (instance / config.SERVE_URL_FILE).write_text("http://127.0.0.1:8765/\n")
    settings = load_settings(environ={"LEADERBOARD_INSTANCE_PATH": str(base),
                                      "LEADERBOARD_DATABASE_URL": "postgresql://db/x"})
    assert settings["INSTANCE_PATH"] == str(base)
    assert config.public_url(settings) == "http://127.0.0.1:8765"
