"""The ``leaderboard`` console script: every host and participant command lives under it.

Host commands are registered on ``app.cli`` (so tests drive them with ``runner.invoke``);
the full group finds them through the app. The app-free commands (``score``, ``wordnet``,
``submit``, ``worker``, ``verify``) are dispatched without building the web app: a one-off
``leaderboard score`` never imports Flask, SQLAlchemy, SQLModel or RQ, and a worker loads
its database and queue modules but no web ones.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing's: a one-off `leaderboard score` should not pay for importing it
if TYPE_CHECKING:
    import click

HELP = "SWORDS leaderboard: scoring, hosting and submission commands."


def app_free_commands() -> list[click.Command]:
    """The commands that need no app, imported without the web stack."""
    from leaderboard.commands import score, submit, verify, wordnet, worker

    return [score.score_command, wordnet.wordnet_group, submit.submit_command,
            worker.worker_command, verify.verify_command]


def app_free_group(only: str | None = None) -> click.Group:
    """A plain click group holding only the app-free commands; ``only="score"``: that one
    alone (a one-off ``leaderboard score`` does not import the others' modules)."""
    import click

    group = click.Group("leaderboard", help=HELP)
    if only == "score":
        from leaderboard.commands.score import score_command

        group.add_command(score_command)
        return group
    for command in app_free_commands():
        group.add_command(command)
    return group


def full_group() -> click.Group:
    """Every command of ours in a plain click group (Flask's own group would list ``--app``,
    ``routes``, ``shell`` and its plugins' commands, which are not this tool's); host
    commands find the app through the :class:`flask.cli.ScriptInfo` that :func:`main`
    passes as the context object."""
    import click

    from leaderboard.commands import all_commands

    group = click.Group("leaderboard", help=HELP)
    for command in all_commands():
        group.add_command(command)
    return group


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: app-free commands skip the web stack entirely. A reader
    that stops reading (``leaderboard score ... | head``) ends the command quietly, as a
    Unix tool does, not with a traceback."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["serve"]:
        # Ctrl-C stops a serve still importing, even one whose parent (a script's background
        # job, a test runner) started it with SIGINT ignored: Python then installs no
        # handler, and the signal would be dropped until serve installs its own.
        import signal

        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _main(args)
    except KeyboardInterrupt:
        sys.exit(130)  # interrupted before the command ran: nothing was started
    except BrokenPipeError:
        # Python's advice: point stdout at devnull, so that the flush at exit fails no more
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


def _main(args: list[str]) -> None:
    from leaderboard.commands import APP_FREE

    first = next((a for a in args if not a.startswith("-")), None)
    if first in APP_FREE:
        app_free_group(first)(args=args, prog_name="leaderboard")
        return
    from flask.cli import ScriptInfo

    full_group()(args=args, prog_name="leaderboard",
                 obj=ScriptInfo(create_app=_create_app, set_debug_flag=False))


def _create_app():
    """The app for a host command; settings that are refused give one line, not a traceback
    (which setting is missing, and why)."""
    import click

    from leaderboard import create_app
    from leaderboard.config import InsecureConfiguration

    try:
        app = create_app()
    except InsecureConfiguration as exc:
        raise click.ClickException(str(exc)) from exc
    _say_database(app.config["LEADERBOARD"])
    return app


def _say_database(settings: dict) -> None:
    """Say on standard error which database a host command uses, and when it followed a
    running ``serve`` to it (:func:`leaderboard.config.load_settings`), which one."""
    import os
    from pathlib import Path

    import click
    from sqlalchemy.engine import make_url

    from leaderboard.config import DEFAULTS, ENV_PREFIX
    from leaderboard.infra.serve_pointer import running_instance

    where = ""
    if ENV_PREFIX + "DATABASE_URL" not in os.environ:
        base = os.environ.get(ENV_PREFIX + "INSTANCE_PATH") or DEFAULTS["INSTANCE_PATH"]
        running = running_instance(Path(base))
        if running is not None and Path(settings["INSTANCE_PATH"]) == running[0]:
            where = (f", that of the `leaderboard serve` running in {running[0]} "
                     f"(pid {running[1]})")
    shown = make_url(settings["DATABASE_URL"]).render_as_string(hide_password=True)
    click.echo(f"Database: {shown}{where}", err=True)
