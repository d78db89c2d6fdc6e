"""A result's certificate: its frozen record (:mod:`leaderboard.services.ranking.records`)
less everything that names who made it, with the team's identity commitment, signed with
the site's key (:mod:`leaderboard.scoring.certificates` says how)."""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlmodel import Session, select

from leaderboard.models import Result, Submission, Team
from leaderboard.scoring import certificates
from leaderboard.services.ranking.records import result_record


def result_certificate(session: Session, public_id: str, *, permalink: str,
                       key: Ed25519PrivateKey) -> dict[str, Any] | None:
    """The signed certificate of the public result ``public_id`` (None, as for its record,
    when there is none or it is not public). It holds no team, system or member name and
    no row id, so it is safe to hand out for an anonymous entry."""
    record = result_record(session, public_id)
    if record is None:
        return None
    team_key = session.exec(
        select(Team.authorship_key).join(Submission, Submission.team_id == Team.id)
        .join(Result, Result.submission_id == Submission.id)
        .where(Result.public_id == public_id)).one()
    body = {
        "result": record["public_id"], "permalink": permalink,
        "board": {"slug": record["board"]["slug"], "title": record["board"]["title"]},
        "benchmark": {k: record["benchmark"][k] for k in ("name", "version", "split")},
        "split_checksum": record["split_checksum"], "scorer_version": record["scorer_version"],
        "file_sha256": record["file_sha256"],
        "metrics": record["metrics"], "intervals": record["intervals"],
        "bootstrap": {"seed": record["bootstrap"]["seed"],
                      "samples": record["bootstrap"]["samples"]},
        "scored_at": record["scored_at"],
        "identity_commitment": certificates.commitment(team_key, record["public_id"]),
    }
    return certificates.sign(body, key)
