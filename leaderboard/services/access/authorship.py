"""A team's authorship secret: made on request, shown to the team once, never stored; the
site keeps only K (:func:`leaderboard.scoring.certificates.authorship_key`), to which every
certificate of the team's results commits."""

from __future__ import annotations

import secrets

from sqlmodel import Session

from leaderboard.models import Team
from leaderboard.scoring.certificates import authorship_key


def new_authorship_secret(*, session: Session, team: Team) -> str:
    """Make the team a new secret and keep its K (the caller commits); returns the secret.
    A previous secret's K is replaced: certificates issued before keep its commitment, which
    only that old secret proves."""
    # hex: no leading dash for a command line to take for an option, nothing to mistype
    secret = secrets.token_hex(32)
    team.authorship_key = authorship_key(team.id, secret)  # type: ignore[arg-type]
    session.add(team)
    return secret
