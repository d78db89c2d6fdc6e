"""Result certificates: a result's frozen numbers, signed by the site with Ed25519, that a
reviewer checks offline against the site's public key; and the identity commitment by which
the authors of an anonymous entry prove, after acceptance, that it was theirs.

The signed bytes are the **canonical serialisation** of the certificate without its
``signature`` field: JSON with keys sorted, no spaces (``","`` and ``":"``), non-ASCII
written as itself, encoded as UTF-8 (Python's ``json.dumps(c, sort_keys=True,
separators=(",", ":"), ensure_ascii=False).encode()``). The signature is the standard
base64 of the 64 bytes. A key's id is the first 16 hex digits of the SHA-256 of its 32 raw
public bytes.

The commitment names no team: the site keeps ``K = sha256("swords-leaderboard-authorship:"
+ team_id + ":" + secret)`` (hex), never the secret, and a certificate carries
``sha256(K + ":" + result_id)`` (hex), so two certificates of one team look unrelated to
whoever lacks K, and only the holder of the secret can show that both are the team's.

Pure: no web, database or file access; the caller reads the key and the certificate.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

#: The value of a certificate's ``certificate`` field: what it is and the layout's version.
FORMAT = "swords-leaderboard-result-certificate/1"
AUTHORSHIP_PREFIX = "swords-leaderboard-authorship"

_STR, _NUM = (str,), (int, float)
#: Every field of a certificate and what its JSON value must be; nested objects list theirs.
FIELDS: dict[str, Any] = {
    "certificate": _STR, "result": _STR, "permalink": _STR,
    "board": {"slug": _STR, "title": _STR},
    "benchmark": {"name": _STR, "version": _STR, "split": _STR},
    "split_checksum": _STR, "scorer_version": _STR, "file_sha256": _STR,
    "metrics": "numbers", "intervals": "pairs",
    "bootstrap": {"seed": (int,), "samples": (int,)},
    "scored_at": _STR, "identity_commitment": (str, type(None)),
    "key_id": _STR, "signature": _STR,
}


class MalformedCertificate(ValueError):
    """The certificate is not JSON of the expected shape: a field missing, unexpected, or
    of the wrong type. Its message names the field."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of :func:`verify`: ``valid``, and ``reason`` in words (why it was
    refused, or what was checked); ``authorship`` is None when it was not asked."""

    valid: bool
    reason: str
    authorship: bool | None = None


def canonical(value: Any) -> bytes:
    """The bytes a certificate's signature covers (see the module's docstring)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def key_id(key: Ed25519PublicKey | Ed25519PrivateKey) -> str:
    """The id of a key: 16 hex digits of the SHA-256 of its raw public bytes."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def public_pem(key: Ed25519PrivateKey) -> str:
    """The public half of ``key`` as a PEM (SubjectPublicKeyInfo) text."""
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def load_public_key(pem: bytes) -> Ed25519PublicKey:
    """An Ed25519 public key from its PEM (or the public half of a private key's PEM);
    ValueError, saying so, for anything else."""
    try:
        key = serialization.load_pem_public_key(pem)
    except ValueError:
        try:
            key = serialization.load_pem_private_key(pem, password=None).public_key()
        except (ValueError, TypeError) as exc:
            raise ValueError("not a PEM public key") from exc
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError("the key is not an Ed25519 key")
    return key


def authorship_key(team_id: int, secret: str) -> str:
    """K, what the site stores of a team's authorship secret (hex SHA-256)."""
    return hashlib.sha256(f"{AUTHORSHIP_PREFIX}:{team_id}:{secret}".encode()).hexdigest()


def commitment(authorship: str | None, result_id: str) -> str | None:
    """The identity commitment of the result ``result_id`` for a team whose K is
    ``authorship``; None when the team has no authorship secret."""
    if authorship is None:
        return None
    return hashlib.sha256(f"{authorship}:{result_id}".encode()).hexdigest()


def sign(body: dict[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    """``body`` (every field but ``key_id`` and ``signature``) as a signed certificate."""
    unsigned = {"certificate": FORMAT, **body, "key_id": key_id(key)}
    signature = base64.b64encode(key.sign(canonical(unsigned))).decode("ascii")
    return {**unsigned, "signature": signature}


def check_shape(value: Any) -> None:
    """Raise MalformedCertificate naming the first field missing, unexpected or of the
    wrong type."""
    _check_object(value, FIELDS, "")
    if value["certificate"] != FORMAT:
        raise MalformedCertificate(f"malformed: field 'certificate' is not {FORMAT!r}")


def _check_object(value: Any, fields: dict[str, Any], where: str) -> None:
    if not isinstance(value, dict):
        raise MalformedCertificate(f"malformed: {where or 'the certificate'} is not an object")
    for name in value:
        if name not in fields:
            raise MalformedCertificate(f"malformed: unexpected field '{where}{name}'")
    for name, kind in fields.items():
        if name not in value:
            raise MalformedCertificate(f"malformed: missing field '{where}{name}'")
        _check_value(value[name], kind, f"{where}{name}")


def _check_value(value: Any, kind: Any, name: str) -> None:
    if isinstance(kind, dict):
        _check_object(value, kind, f"{name}.")
        return
    if kind in ("numbers", "pairs"):
        if not isinstance(value, dict):
            raise MalformedCertificate(f"malformed: field '{name}' is not an object")
        for key, item in value.items():
            if kind == "pairs":
                good = isinstance(item, list) and len(item) == 2 and all(map(_number, item))
            else:
                good = item is None or _number(item)
            if not good:
                raise MalformedCertificate(f"malformed: field '{name}.{key}' is not "
                                           f"{'two numbers' if kind == 'pairs' else 'a number'}")
        return
    if not isinstance(value, kind) or (kind == (int,) and isinstance(value, bool)):
        raise MalformedCertificate(f"malformed: field '{name}' has the wrong type")


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def verify(certificate: Any, key: Ed25519PublicKey, *, team_id: int | None = None,
           secret: str | None = None) -> Verdict:
    """Whether ``certificate`` (a parsed JSON value) was signed by ``key`` unchanged, and,
    given ``team_id`` and ``secret``, whether its commitment is theirs. Refusals say why:
    malformed (which field), another site's key (which ids), the signature not matching."""
    try:
        check_shape(certificate)
        signature = base64.b64decode(certificate["signature"], validate=True)
    except MalformedCertificate as exc:
        return Verdict(False, str(exc))
    except (binascii.Error, ValueError):
        return Verdict(False, "malformed: field 'signature' is not base64")
    if certificate["key_id"] != key_id(key):
        return Verdict(False, f"signed with another site's key: the certificate names key "
                              f"{certificate['key_id']}, the key given is {key_id(key)}")
    unsigned = {k: v for k, v in certificate.items() if k != "signature"}
    try:
        key.verify(signature, canonical(unsigned))
    except InvalidSignature:
        return Verdict(False, "the signature does not match: the certificate was changed "
                              "after the site signed it")
    what = (f"signed by key {certificate['key_id']}: result {certificate['result']} on "
            f"{certificate['board']['slug']}, scored {certificate['scored_at']}")
    if team_id is None and secret is None:
        return Verdict(True, what)
    return _authorship(certificate, team_id, secret, what)


def _authorship(certificate: dict[str, Any], team_id: int | None, secret: str | None,
                what: str) -> Verdict:
    if team_id is None or not secret:
        return Verdict(False, "authorship needs both the team id and the secret", False)
    if certificate["identity_commitment"] is None:
        return Verdict(False, f"{what}; but it carries no identity commitment (its team had "
                              "no authorship secret when it was issued)", False)
    mine = commitment(authorship_key(team_id, secret), certificate["result"])
    if mine != certificate["identity_commitment"]:
        return Verdict(False, f"{what}; but authorship is not proven: team {team_id} with "
                              "this secret does not give its identity commitment", False)
    return Verdict(True, f"{what}; authorship proven: team {team_id} holds its secret", True)


def verify_text(text: str | bytes, key: Ed25519PublicKey, *, team_id: int | None = None,
                secret: str | None = None) -> Verdict:
    """:func:`verify` on a certificate's JSON text (a download, a paste)."""
    try:
        certificate = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        return Verdict(False, f"malformed: not JSON ({exc})")
    except RecursionError:  # brackets nested past the parser's depth: no certificate is
        return Verdict(False, "malformed: nested far deeper than a certificate")
    return verify(certificate, key, team_id=team_id, secret=secret)
