"""The ``leaderboard`` console script: every host and participant command lives under it.

Host commands are registered on ``app.cli`` (so tests drive them with ``runner.invoke``);
the full group finds them through the app. The app-free commands (``score``, ``wordnet``,
``submit``, ``worker``) are dispatched without building the web app: a one-off
``leaderboard score`` never imports Flask, SQLAlchemy, SQLModel or RQ, and a worker loads
its database and queue modules but no web ones.
"""

from __future__ import annotations

import sys

import click

from leaderboard.commands import APP_FREE

HELP = "SWORDS leaderboard: scoring, hosting and submission commands."


def app_free_commands() -> list[click.Command]:
    """The commands that need no app, imported without the web stack."""
    from leaderboard.commands import score, submit, wordnet, worker

    return [score.score_command, wordnet.wordnet_group, submit.submit_command,
            worker.worker_command]


def app_free_group() -> click.Group:
    """A plain click group holding only the app-free commands."""
    group = click.Group("leaderboard", help=HELP)
    for command in app_free_commands():
        group.add_command(command)
    return group


def full_group() -> click.Group:
    """Flask's group: host commands come from the app, app-free ones are added directly."""
    from flask.cli import FlaskGroup

    from leaderboard import create_app
    from leaderboard.commands import all_commands

    group = FlaskGroup(create_app=lambda: create_app(), help=HELP)
    for command in all_commands():
        if command.name in APP_FREE:
            group.add_command(command)
    return group


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: app-free commands skip the web stack entirely."""
    args = sys.argv[1:] if argv is None else argv
    first = next((a for a in args if not a.startswith("-")), None)
    group = app_free_group() if first in APP_FREE else full_group()
    group(args=args, prog_name="leaderboard")
