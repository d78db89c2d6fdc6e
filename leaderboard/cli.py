"""The ``leaderboard`` console script: every host and participant command lives under it.

Host commands are registered on ``app.cli`` (so tests drive them with ``runner.invoke``);
this group finds them through the app, and offers the app-free ones directly.
"""

from __future__ import annotations

from flask.cli import FlaskGroup

from leaderboard import create_app
from leaderboard.commands import APP_FREE, all_commands

cli = FlaskGroup(create_app=lambda: create_app(),
                 help="SWORDS leaderboard: scoring, hosting and submission commands.")
for _command in all_commands():
    if _command.name in APP_FREE:
        cli.add_command(_command)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="leaderboard")
