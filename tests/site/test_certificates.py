"""Result certificates on the site: the download and its API twin, the site's public key at
its stable URLs, the team's authorship secret made on the account page, the /verify page, and
`leaderboard verify` run as a reviewer runs it; a certificate names no team, system or member,
and two of one team's are not linkable."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sqlmodel import col, select

from leaderboard.infra.signing_key import SigningKeyError
from leaderboard.models import Result, Submission, Team, User
from leaderboard.scoring import certificates as c
from tests.factories import csrf_token_from, leaves, login, make_token

LEADERBOARD = str(Path(sys.executable).with_name("leaderboard"))


def _public_id(session, submission_id: int) -> str:
    return session.exec(select(Result.public_id).where(
        Result.submission_id == submission_id, col(Result.is_current).is_(True))).one()


def _certificate(client, public_id: str) -> dict:
    response = client.get(f"/results/{public_id}/certificate.json")
    assert response.status_code == 200, response.status_code
    return json.loads(response.get_data())


def _make_secret(client, session, team_name: str) -> tuple[int, str]:
    """Log in as the team's member and make its authorship secret on the account page."""
    team = session.exec(select(Team).where(Team.name == team_name)).one()
    email = session.exec(select(User.email).where(User.team_id == team.id)).first()
    login(client, email)
    home = client.get("/account/").get_data(as_text=True)
    assert "Your team has no secret yet" in home
    made = client.post("/account/authorship", data={"csrf_token": csrf_token_from(home)})
    assert made.status_code == 201 and made.headers["Cache-Control"] == "no-store"
    html = made.get_data(as_text=True)
    secret = html.split('id="new-secret" class="token-value" type="text" readonly value="')[1]
    secret = secret.split('"')[0]
    assert len(secret) >= 40
    return team.id, secret  # type: ignore[return-value]


def test_the_certificate_download_holds_the_records_numbers_signed(client, session, seeded):
    sid = seeded.public["Contextual ranker"]
    public_id = _public_id(session, sid)
    response = client.get(f"/results/{public_id}/certificate.json")
    assert response.headers["Content-Disposition"] == (
        f'attachment; filename="result-{public_id}-certificate.json"')
    assert response.mimetype == "application/json"
    certificate = json.loads(response.get_data())
    record = client.get(f"/api/v1/results/{public_id}").get_json()
    assert certificate["result"] == public_id
    assert certificate["permalink"] == record["permalink"] == f"http://localhost/results/{public_id}"
    for field in ("metrics", "intervals", "split_checksum", "scorer_version", "file_sha256",
                  "scored_at", "bootstrap"):
        assert certificate[field] == record[field], field
    assert certificate["board"] == record["board"]
    assert certificate["benchmark"] == {"name": "swords-demo", "version": "1", "split": "test"}
    assert certificate["identity_commitment"] is None  # the team has no secret yet
    key = c.load_public_key(client.get("/.well-known/leaderboard-signing-key.pem").get_data())
    assert c.verify(certificate, key).valid
    assert client.get(f"/api/v1/results/{public_id}/certificate").get_json() == certificate
    result_page = client.get(f"/results/{public_id}").get_data(as_text=True)
    assert f'href="/results/{public_id}/certificate.json" download' in result_page


def test_a_certificate_names_no_team_system_member_or_row_id(client, session, seeded):
    sid = seeded.public["Thesaurus baseline"]
    team_id, _secret = _make_secret(client, session, "South Lab")
    certificate = _certificate(client, _public_id(session, sid))
    assert certificate["identity_commitment"] is not None
    text = json.dumps(certificate)
    names = [s.system_name for s in session.exec(select(Submission)).all()]
    emails = [u.email for u in session.exec(select(User)).all()]
    for secret_word in ["South Lab", "North Lab", "East Lab", *names, *emails]:
        assert secret_word not in text, secret_word
    team = session.get(Team, team_id)
    assert team.authorship_key not in text
    # no integer anywhere but the bootstrap's seed and B: no team, submission or result id
    ints = [v for _p, v in leaves(certificate) if isinstance(v, int) and not isinstance(v, bool)]
    assert sorted(ints) == sorted(certificate["bootstrap"].values())



def test_two_certificates_of_one_team_have_different_commitments(client, session, seeded):
    team_id, secret = _make_secret(client, session, "North Lab")
    first = _certificate(client, _public_id(session, seeded.public["Contextual ranker"]))
    second = _certificate(client, _public_id(session, seeded.public["Ranker top-3"]))
    assert first["identity_commitment"] != second["identity_commitment"]
    assert None not in (first["identity_commitment"], second["identity_commitment"])
    key = c.load_public_key(client.get("/.well-known/leaderboard-signing-key.pem").get_data())
    for certificate in (first, second):
        assert c.verify(certificate, key, team_id=team_id, secret=secret).authorship is True
    # only K is kept, never the secret
    team = session.get(Team, team_id)
    session.refresh(team)
    assert team.authorship_key == c.authorship_key(team_id, secret)
    assert secret not in json.dumps([t.model_dump(mode="json")
                                     for t in session.exec(select(Team)).all()])
    # the account page now says there is one, and shows it no more
    home = client.get("/account/").get_data(as_text=True)
    assert "Your team has a secret." in home and secret not in home


def test_a_result_that_is_not_public_has_no_certificate(client, session, seeded):
    for public_id in ("0123456789abcdef", _public_id(session, seeded.private_id),
                      _public_id(session, seeded.hidden_id)):
        page = client.get(f"/results/{public_id}/certificate.json")
        assert page.status_code == 404
        api = client.get(f"/api/v1/results/{public_id}/certificate")
        assert api.status_code == 404 and api.get_json()["error"]["code"] == "unknown_result"


def test_the_public_key_is_published_at_stable_urls(app, client):
    pem = client.get("/.well-known/leaderboard-signing-key.pem")
    assert pem.status_code == 200 and pem.mimetype == "application/x-pem-file"
    key = c.load_public_key(pem.get_data())
    info = client.get("/.well-known/leaderboard-signing-key.json").get_json()
    assert info == {"key_id": c.key_id(key), "algorithm": "Ed25519",
                    "public_key_pem": pem.get_data(as_text=True),
                    "pem_url": "/.well-known/leaderboard-signing-key.pem"}
    about = client.get("/about").get_data(as_text=True)
    assert f'<code id="about-key-id">{info["key_id"]}</code>' in about
    key_file = Path(app.config["LEADERBOARD"]["INSTANCE_PATH"]) / "signing_key.pem"
    assert key_file.stat().st_mode & 0o777 == 0o600


def _verify_page(client, **form) -> str:
    page = client.post("/verify", data=form, content_type="multipart/form-data")
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    return page.get_data(as_text=True)


def test_the_verify_page_gives_the_verdict_in_words(client, session, seeded):
    team_id, secret = _make_secret(client, session, "East Lab")
    certificate = _certificate(client, _public_id(session, seeded.public["Frequency baseline"]))
    text = json.dumps(certificate, indent=2)
    assert "<h2 id=\"verdict-h\">Valid</h2>" in _verify_page(client, certificate=text)
    from io import BytesIO
    upload = _verify_page(client, file=(BytesIO(text.encode()), "cert.json"))
    assert "<h2 id=\"verdict-h\">Valid</h2>" in upload
    proven = _verify_page(client, certificate=text, team_id=str(team_id), secret=secret)
    assert 'id="verdict-authorship"' in proven and "authorship proven" in proven
    wrong = _verify_page(client, certificate=text, team_id=str(team_id), secret=secret + "x")
    assert "Refused" in wrong and "authorship is not proven" in wrong
    assert secret not in wrong  # the secret is not written back into the page
    tampered = json.dumps({**certificate, "file_sha256": "0" * 64})
    refused = _verify_page(client, certificate=tampered)
    assert "<h2 id=\"verdict-h\">Refused</h2>" in refused
    assert ('<p id="verdict-reason">The signature does not match: the certificate was changed '
            'after the site signed it.</p>') in refused
    assert "No certificate: paste one" in _verify_page(client, certificate="")
    assert "Malformed: missing field &#39;key_id&#39;" in _verify_page(
        client, certificate=json.dumps({k: v for k, v in certificate.items() if k != "key_id"}))
    bomb = _verify_page(client, certificate="[" * 30_000 + "]" * 30_000)
    assert "Malformed: nested far deeper than a certificate" in bomb
    form = client.get("/verify").get_data(as_text=True)
    key = c.load_public_key(client.get("/.well-known/leaderboard-signing-key.pem").get_data())
    assert 'name="certificate"' in form and f"<code>{c.key_id(key)}</code>" in form


def _run_verify(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([LEADERBOARD, "verify", *args], capture_output=True, text=True,
                          timeout=60)


def test_leaderboard_verify_offline_as_a_reviewer_runs_it(client, session, seeded, tmp_path):
    team_id, secret = _make_secret(client, session, "North Lab")
    certificate = _certificate(client, _public_id(session, seeded.public["Contextual ranker"]))
    key = tmp_path / "site.pem"
    key.write_bytes(client.get("/.well-known/leaderboard-signing-key.pem").get_data())
    cert = tmp_path / "cert.json"
    cert.write_text(json.dumps(certificate, indent=2))
    ok = _run_verify(str(cert), "--key", str(key))
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith(f"valid: signed by key {certificate['key_id']}: result "
                                f"{certificate['result']}")
    mine = _run_verify(str(cert), "--key", str(key), "--team-id", str(team_id), "--secret", secret)
    assert mine.returncode == 0 and "authorship proven" in mine.stdout
    notmine = _run_verify(str(cert), "--key", str(key), "--team-id", str(team_id),
                          "--secret", "guess")
    assert notmine.returncode == 1 and "authorship is not proven" in notmine.stdout
    cert.write_text(json.dumps({**certificate, "metrics": {
        **certificate["metrics"], "strict_a_f@10": certificate["metrics"]["strict_a_f@10"] + 1}}))
    changed = _run_verify(str(cert), "--key", str(key))
    assert changed.returncode == 1
    assert changed.stdout.startswith("refused: the signature does not match")
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    other = tmp_path / "other.pem"
    other.write_text(c.public_pem(Ed25519PrivateKey.generate()))
    cert.write_text(json.dumps(certificate))
    theirs = _run_verify(str(cert), "--key", str(other))
    assert theirs.returncode == 1 and theirs.stdout.startswith("refused: signed with another site")


def test_a_missing_configured_key_breaks_certificates_not_the_about_page(app, client, tmp_path):
    app.config["LEADERBOARD"]["SIGNING_KEY_FILE"] = str(tmp_path / "gone.pem")
    about = client.get("/about")
    assert about.status_code == 200
    assert '<span id="about-key-id">not set up on this site yet</span>' in about.get_data(
        as_text=True)
    with pytest.raises(SigningKeyError, match="does not exist"):  # a 500, outside tests
        client.get("/.well-known/leaderboard-signing-key.pem")
    assert not (tmp_path / "gone.pem").exists()


def test_the_api_makes_an_authorship_secret_for_the_tokens_team(client, session, seeded):
    team = session.get(Team, seeded.teams["East Lab"])
    headers = {"Authorization": f"Bearer {make_token(session, team)}"}
    first = client.post("/api/v1/authorship-secret", headers=headers)
    assert first.status_code == 201 and first.headers["Cache-Control"] == "no-store"
    body = first.get_json()
    assert (body["team_id"], body["replaced"]) == (team.id, False)
    certificate = _certificate(client, _public_id(session, seeded.public["Frequency baseline"]))
    key = c.load_public_key(client.get("/.well-known/leaderboard-signing-key.pem").get_data())
    assert c.verify(certificate, key, team_id=team.id, secret=body["secret"]).authorship
    again = client.post("/api/v1/authorship-secret", headers=headers).get_json()
    assert again["replaced"] is True and again["secret"] != body["secret"]
    # the certificate downloaded before keeps the old commitment, which the old secret proves
    assert c.verify(certificate, key, team_id=team.id, secret=body["secret"]).authorship
    assert not c.verify(certificate, key, team_id=team.id, secret=again["secret"]).valid
    assert client.post("/api/v1/authorship-secret").status_code == 401
