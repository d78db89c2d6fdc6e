"""Signed result certificates: the download (``/results/<id>/certificate.json``), the
site's public key at a stable URL (``/.well-known/leaderboard-signing-key.pem`` and
``.json``), and ``/verify``, which checks a pasted or uploaded certificate against it."""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Response, abort, current_app, render_template, request

from leaderboard.db import get_session
from leaderboard.infra.signing_key import signing_key
from leaderboard.scoring import certificates
from leaderboard.services.ranking.certificates import result_certificate
from leaderboard.web.extensions import csrf
from leaderboard.web.public.blueprint import bp
from leaderboard.web.public.results import permalink

#: A certificate is about 2 kB; a larger paste or upload is not one.
MAX_CERTIFICATE_BYTES = 64 * 1024
KEY_PEM_URL = "/.well-known/leaderboard-signing-key.pem"


def site_key():
    """This site's signing key (:mod:`leaderboard.infra.signing_key`)."""
    return signing_key(current_app.config["LEADERBOARD"])


def certificate_for(public_id: str) -> dict[str, Any] | None:
    """The signed certificate of a public result, or None (answered 404 like its record)."""
    return result_certificate(get_session(), public_id, permalink=permalink(public_id),
                              key=site_key())


@bp.get("/results/<public_id>/certificate.json")
def result_certificate_file(public_id: str):
    """The result's certificate as a file to keep beside a paper."""
    certificate = certificate_for(public_id)
    if certificate is None:
        abort(404, description="No such result, or it is not public.")
    body = json.dumps(certificate, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return Response(body, mimetype="application/json", headers={
        "Content-Disposition": f'attachment; filename="result-{public_id}-certificate.json"',
        # a team that makes an authorship secret changes its next certificates' commitment
        "Cache-Control": "no-cache"})


@bp.get(KEY_PEM_URL)
def signing_key_pem():
    """The public key that signs this site's certificates, PEM."""
    return Response(certificates.public_pem(site_key()), mimetype="application/x-pem-file",
                    headers={"Cache-Control": "public, max-age=3600"})


@bp.get("/.well-known/leaderboard-signing-key.json")
def signing_key_json():
    """The same key as JSON: its id (as certificates name it), algorithm and PEM."""
    key = site_key()
    return {"key_id": certificates.key_id(key), "algorithm": "Ed25519",
            "public_key_pem": certificates.public_pem(key), "pem_url": KEY_PEM_URL}


@bp.route("/verify", methods=["GET", "POST"])
@csrf.exempt  # reads what it is sent and changes nothing: no session to protect
def verify_page():
    """Check a certificate (pasted or uploaded) against this site's key; with a team id and
    its secret, whether the entry is that team's."""
    key = site_key()
    verdict, form = None, {"certificate": "", "team_id": ""}
    if request.method == "POST":
        if (request.content_length or 0) > MAX_CERTIFICATE_BYTES + 4096:
            abort(413, description="A certificate is a few kilobytes; this is not one.")
        verdict, form = _verdict_of_form(key.public_key())
    html = render_template("public/verify.html", verdict=verdict, form=form,
                           key_id=certificates.key_id(key), key_url=KEY_PEM_URL)
    # the secret may be on this page's request: no cache keeps the answer
    return html, {"Cache-Control": "no-store"}


def _verdict_of_form(public_key) -> tuple[certificates.Verdict, dict[str, str]]:
    upload = request.files.get("file")
    text = upload.read(MAX_CERTIFICATE_BYTES + 1) if upload and upload.filename else b""
    text = text or request.form.get("certificate", "").encode()
    form = {"certificate": text.decode("utf-8", "replace")[:MAX_CERTIFICATE_BYTES],
            "team_id": request.form.get("team_id", "").strip()}
    secret = request.form.get("secret", "").strip() or None
    if not text.strip():
        return certificates.Verdict(False, "no certificate: paste one or choose its file"), form
    if len(text) > MAX_CERTIFICATE_BYTES:
        return certificates.Verdict(False, "malformed: far too long for a certificate"), form
    team_id = None
    if form["team_id"]:
        if not re.fullmatch(r"[0-9]{1,18}", form["team_id"]):
            return certificates.Verdict(False, "the team id is a whole number"), form
        team_id = int(form["team_id"])
    return certificates.verify_text(text, public_key, team_id=team_id, secret=secret), form
