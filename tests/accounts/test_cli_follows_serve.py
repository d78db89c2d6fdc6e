"""Host commands given the folder a ``serve --benchmark`` was given reach that server's
database, print links to its address and say which database they used (real processes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from leaderboard import create_app
from leaderboard.db import create_all
from leaderboard.infra.serve_pointer import write_pointer

LEADERBOARD = str(Path(sys.executable).with_name("leaderboard"))


def _host_command(env: dict, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([LEADERBOARD, *args], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def test_team_and_token_create_follow_the_server_in_the_folder_they_are_given(
        tmp_path, embedded_redis):
    base = tmp_path / "X"
    instance = base / "swords-v1.1_test"
    instance.mkdir(parents=True)
    server_settings = {"INSTANCE_PATH": str(instance), "SECRET_KEY": "follow-test",
                       "DATABASE_URL": f"sqlite:///{instance / 'leaderboard.db'}",
                       "REDIS_URL": f"unix://{embedded_redis.socket_file}?db=0"}
    server = create_app(server_settings)
    create_all(server.extensions["db_engine"])
    # A process that looks like `leaderboard serve` claims the folder, as serve does.
    serve = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)",
                              "leaderboard", "serve"])
    try:
        (instance / "serve.pid").write_text(f"{serve.pid}\n")
        (instance / "serve-url").write_text("http://127.0.0.1:8765/\n")
        write_pointer(base, instance, serve.pid)
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEADERBOARD_")}
        env.update(LEADERBOARD_INSTANCE_PATH=str(base), LEADERBOARD_SECRET_KEY="follow-test",
                   LEADERBOARD_REDIS_URL=server_settings["REDIS_URL"])
        team = _host_command(env, "team", "create", "Lab", "--email", "lab@example.org")
        assert "works once): http://127.0.0.1:8765/account/set-password/" in team.stdout
        assert (f"Database: sqlite:///{instance / 'leaderboard.db'}, that of the "
                f"`leaderboard serve` running in {instance.resolve()} (pid {serve.pid})"
                in team.stderr)
        token = _host_command(env, "token", "create", "--team", "Lab", "--name", "ci")
        secret = token.stdout.strip().splitlines()[-1]
    finally:
        serve.kill()
        serve.wait()
    answer = server.test_client().get("/api/v1/submissions",
                                      headers={"Authorization": f"Bearer {secret}"})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert not (base / "leaderboard.db").exists()
    server.extensions["db_engine"].dispose()
