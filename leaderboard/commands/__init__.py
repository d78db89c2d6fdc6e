"""Click commands of the ``leaderboard`` console script, one module per concern."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: a one-off `leaderboard score` should not pay for importing it
if TYPE_CHECKING:  # an annotation only: a one-off `leaderboard score` on LS07/CoInCo
    import click  # runs without importing click (leaderboard.cli.main)


def all_commands() -> list[click.Command]:
    """Every command, imported on demand so that importing the app stays light."""
    from leaderboard.commands import (
        admin,
        benchmark,
        board,
        db,
        deploy,
        queue,
        reference,
        reported,
        rescore,
        score,
        serve,
        submit,
        team,
        token,
        verify,
        wordnet,
        worker,
    )

    return [
        score.score_command, wordnet.wordnet_group, db.db_group, team.team_group,
        token.token_group, admin.admin_group, submit.submit_command, worker.worker_command,
        worker.ranker_command,
        queue.queue_group, serve.serve_command, benchmark.benchmark_group, board.board_group,
        reference.reference_group, reported.reported_group, rescore.rescore_command,
        deploy.deploy_group, verify.verify_command,
    ]


# Commands that need no web app (the worker reads its settings from the environment): the
# console script runs them without importing Flask, even where the app cannot be built.
# ``ranker`` takes its settings from the app, as the host commands do.
APP_FREE = {"score", "wordnet", "submit", "worker", "verify"}
