"""API tokens: random secrets shown once and stored hashed."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from sqlmodel import Session, select

from leaderboard.models import ApiToken, Team, utcnow

TOKEN_PREFIX = "swl_"
#: What a token may do: ``read`` its team's submissions (status, list, diagnostics) and
#: ``submit`` (upload, dry run). A CI token needs both; a dashboard needs only ``read``.
SCOPES = ("read", "submit")
ALL_SCOPES = "submit read"


def has_scope(token: ApiToken, scope: str) -> bool:
    """Whether ``token`` was issued with ``scope``."""
    return scope in token.scopes.split()


def _hash(secret: str) -> str:
    # The secret is 256 random bits, so a fast hash is enough (no dictionary to guess from).
    return hashlib.sha256(secret.encode()).hexdigest()


def issue_token(*, session: Session, team: Team, name: str, created_by_id: int | None = None,
                scopes: str = "submit read") -> tuple[ApiToken, str]:
    """Create a token for ``team``; returns the row and the plaintext (shown once)."""
    plaintext = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken(team_id=team.id, name=name.strip() or "token", prefix=plaintext[:12],
                   secret_hash=_hash(plaintext), scopes=scopes, created_by_id=created_by_id)
    session.add(row)
    session.flush()
    return row, plaintext


def authenticate_token(*, session: Session, plaintext: str) -> ApiToken | None:
    """The live token matching ``plaintext`` (last use recorded), or None."""
    if not plaintext.startswith(TOKEN_PREFIX):
        return None
    candidates = session.exec(select(ApiToken).where(ApiToken.prefix == plaintext[:12])).all()
    digest = _hash(plaintext)
    for row in candidates:
        if row.revoked_at is None and hmac.compare_digest(row.secret_hash, digest):
            team = session.get(Team, row.team_id)
            if team is None or team.disabled:
                return None
            row.last_used_at = utcnow()
            session.add(row)
            return row
    return None


def revoke_token(*, session: Session, token: ApiToken) -> None:
    """Revoke ``token`` (kept for the record)."""
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        session.add(token)


def list_tokens(*, session: Session, team_id: int) -> list[ApiToken]:
    """A team's tokens, newest first, revoked ones included (for the record)."""
    query = select(ApiToken).where(ApiToken.team_id == team_id).order_by(ApiToken.id.desc())
    return list(session.exec(query).all())


def get_team_token(*, session: Session, team_id: int, token_id: int) -> ApiToken | None:
    """Token ``token_id`` if it belongs to the team, else None."""
    token = session.get(ApiToken, token_id)
    return token if token is not None and token.team_id == team_id else None


def live_tokens_named(*, session: Session, team_id: int, name: str) -> list[ApiToken]:
    """The team's unrevoked tokens called ``name``."""
    query = select(ApiToken).where(ApiToken.team_id == team_id, ApiToken.name == name.strip(),
                                   ApiToken.revoked_at.is_(None))
    return list(session.exec(query).all())
