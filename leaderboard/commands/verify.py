"""leaderboard verify: check a result certificate offline against the site's public key."""

from __future__ import annotations

import sys
from pathlib import Path

import click

EXIT_REFUSED = 1


@click.command("verify")
@click.argument("certificate", type=click.Path(exists=True, dir_okay=False, allow_dash=True,
                                               path_type=Path))
@click.option("--key", "key_path", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The site's public key, a PEM file (from the site's "
              "/.well-known/leaderboard-signing-key.pem). Nothing is fetched: get it once, "
              "keep it, and compare its id with the one the site's docs publish.")
@click.option("--team-id", type=click.IntRange(min=0), default=None,
              help="With --secret: also check that the entry is this team's.")
@click.option("--secret", default=None, help="The team's authorship secret.")
def verify_command(certificate: Path, key_path: Path, team_id: int | None,
                   secret: str | None) -> None:
    """Check a result CERTIFICATE (JSON; - reads standard input): valid when unchanged since
    the site whose --key is given signed it; with --team-id and --secret, only when the
    entry is also that team's. Prints `valid: …` and exits 0, or `refused: <why>` and 1."""
    from leaderboard.scoring.certificates import load_public_key, verify_text

    try:
        key = load_public_key(key_path.read_bytes())
    except ValueError as exc:
        raise click.ClickException(f"{key_path}: {exc}") from exc
    text = sys.stdin.buffer.read() if str(certificate) == "-" else certificate.read_bytes()
    verdict = verify_text(text, key, team_id=team_id, secret=secret)
    if verdict.valid:
        click.echo(f"valid: {verdict.reason}")
        return
    click.echo(f"refused: {verdict.reason}")
    sys.exit(EXIT_REFUSED)
