"""Settings that split a deployment are refused, and ``leaderboard deploy check`` compares a
machine with the shared deployment. Real PostgreSQL, Redis, worker and
ranker processes; nothing mocked."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from rq import Queue, Worker

from leaderboard import create_app
from leaderboard.config import PROJECT_ROOT, SplitDeployment, load_settings
from leaderboard.infra.redis_conn import connect_redis
from leaderboard.ranker.placement import live_rankers
from tests.backends import POSTGRES_URL
from tests.jobs import LEADERBOARD_BIN

POSTGRES = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)


def test_app_factory_refuses_a_shared_database_without_secret_key(tmp_path):
    with pytest.raises(SplitDeployment, match="LEADERBOARD_SECRET_KEY must be set.*own key"):
        create_app({"INSTANCE_PATH": str(tmp_path), "DATABASE_URL": POSTGRES_URL,
                    "REDIS_URL": "redis://127.0.0.1:6379/9", "SECRET_KEY": ""})
    assert not (tmp_path / "secret_key").exists()  # no key of its own was made


def test_app_factory_refuses_a_shared_database_without_redis_url(tmp_path):
    with pytest.raises(SplitDeployment, match="LEADERBOARD_REDIS_URL must be set.*private"):
        create_app({"INSTANCE_PATH": str(tmp_path), "DATABASE_URL": POSTGRES_URL,
                    "REDIS_URL": "", "SECRET_KEY": "shared"})


def test_sqlite_keeps_a_generated_key_and_the_embedded_redis(tmp_path):
    app = create_app({"INSTANCE_PATH": str(tmp_path), "DATABASE_URL": "",
                      "REDIS_URL": "", "SECRET_KEY": ""})
    assert app.config["SECRET_KEY"] == (tmp_path / "secret_key").read_text().strip()
    app.extensions["db_engine"].dispose()


def _env(**settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEADERBOARD_")}
    env.update({f"LEADERBOARD_{key}": value for key, value in settings.items()})
    return env


@pytest.mark.parametrize("argv, settings, missing", [
    (["worker", "--burst"], {"SECRET_KEY": "shared"}, "LEADERBOARD_REDIS_URL"),
    (["worker", "--burst"], {"REDIS_URL": "redis://127.0.0.1:6379/9"}, "LEADERBOARD_SECRET_KEY"),
    (["ranker", "--burst"], {"SECRET_KEY": "shared"}, "LEADERBOARD_REDIS_URL"),
    (["team", "list"], {"REDIS_URL": "redis://127.0.0.1:6379/9"}, "LEADERBOARD_SECRET_KEY"),
])
def test_entry_points_refuse_in_one_line(tmp_path, argv, settings, missing):
    done = subprocess.run([LEADERBOARD_BIN, *argv], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, timeout=60,
                          env=_env(INSTANCE_PATH=str(tmp_path), DATABASE_URL=POSTGRES_URL,
                                   **settings))
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {missing} must be set"), done.stderr
    assert not (tmp_path / "redis.db").exists() and not (tmp_path / "secret_key").exists()


def test_run_worker_refuses_without_redis_url(tmp_path):
    from leaderboard.worker.main import run_worker

    settings = load_settings({"INSTANCE_PATH": str(tmp_path), "DATABASE_URL": POSTGRES_URL,
                              "SECRET_KEY": "shared", "REDIS_URL": ""}, environ={})
    with pytest.raises(SplitDeployment, match="LEADERBOARD_REDIS_URL"):
        run_worker(settings, burst=True)


def _wait_registered(redis_url: str, instance: str, queue_name: str) -> None:
    conn = connect_redis(redis_url, instance)
    deadline = time.monotonic() + 60
    while not (Worker.all(queue=Queue(queue_name, connection=conn))
               and live_rankers(conn, queue_name)):
        assert time.monotonic() < deadline, "worker and ranker never registered"
        time.sleep(0.2)


def _check(overrides: dict, *args: str):
    app = create_app(overrides)
    try:
        return app.test_cli_runner().invoke(args=["deploy", "check", *args])
    finally:
        app.extensions["db_engine"].dispose()


@POSTGRES
@pytest.mark.empty_database  # `db upgrade` and its check start from no tables
def test_check_passes_on_a_consistent_machine_and_fails_on_another_key_and_on_skew(
        app_overrides, start_worker):
    app = create_app(app_overrides)
    upgraded = app.test_cli_runner().invoke(args=["db", "upgrade"])
    assert upgraded.exit_code == 0, upgraded.output
    assert "Stored the secret key's fingerprint" in upgraded.output
    app.extensions["db_engine"].dispose()
    start_worker()
    start_worker("ranker")
    _wait_registered(app_overrides["REDIS_URL"], app_overrides["INSTANCE_PATH"],
                     app_overrides["QUEUE_NAME"])

    ok = _check(app_overrides)
    assert ok.exit_code == 0, ok.output
    names = [line.split(":")[0].split(None, 1)[1] for line in ok.output.splitlines()[:-1]]
    assert names == ["settings", "database", "secret key", "signing key", "redis", "workers",
                     "rankers", "wordnet", "clock"]
    assert all(line.startswith("ok") for line in ok.output.splitlines()[:-1]), ok.output
    assert "test-secret-key" not in ok.output

    other_key = _check({**app_overrides, "SECRET_KEY": "another machine's key"})
    assert other_key.exit_code == 1, other_key.output
    assert "FAIL  secret key: differs from the deployment's" in other_key.output
    assert "1 check(s) failed: secret key" in other_key.output

    # another machine's signing key: its certificates would name another key id
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    theirs = Path(app_overrides["INSTANCE_PATH"]).parent / "other-site.pem"
    theirs.write_bytes(Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    other_signer = _check({**app_overrides, "SIGNING_KEY_FILE": str(theirs)}, "--role", "web")
    assert other_signer.exit_code == 1, other_signer.output
    assert "FAIL  signing key: key " in other_signer.output
    assert "1 check(s) failed: signing key" in other_signer.output
    missing = _check({**app_overrides, "SIGNING_KEY_FILE": str(theirs) + ".gone"}, "--role", "web")
    assert "FAIL  signing key: SIGNING_KEY_FILE" in missing.output

    other_queue = _check({**app_overrides, "QUEUE_NAME": app_overrides["QUEUE_NAME"] + "-x"})
    assert other_queue.exit_code == 1
    assert "FAIL  workers: no worker listens" in other_queue.output
    assert "FAIL  rankers: no live ranker" in other_queue.output

    # The tolerance is an option: at 0 s the measured offset (microseconds here) is a skew.
    skew = _check(app_overrides, "--max-skew", "0")
    assert skew.exit_code == 1, skew.output
    assert "FAIL  clock: database clock" in skew.output
    assert "1 check(s) failed: clock" in skew.output


@POSTGRES
@pytest.mark.empty_database  # `db upgrade` and its check start from no tables
def test_check_fails_on_an_unmigrated_database(app_overrides):
    result = _check(app_overrides, "--role", "web")
    assert result.exit_code == 1
    assert "FAIL  database:" in result.output and "leaderboard db upgrade" in result.output
    assert "wordnet" not in result.output
