"""Result certificates, the pure part: a certificate signed by a key verifies with it, and
changing any field (nested ones too), the signature, or the key refuses it, saying why; the
identity commitment proves authorship with the right secret only and links no two
certificates of one team."""

from __future__ import annotations

import copy
import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from leaderboard.scoring import certificates as c
from tests.factories import leaves

KEY, OTHER = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
SECRET = "s3cret-of-north-lab"


def body(result_id: str = "0123456789abcdef", team_id: int = 7) -> dict:
    """The body of a certificate as the site builds it (services.ranking.certificates)."""
    return {
        "result": result_id, "permalink": f"https://lb.example.org/results/{result_id}",
        "board": {"slug": "swords-v1.1-test-generative", "title": "SWORDS 1.1 test, generative"},
        "benchmark": {"name": "swords", "version": "1.1", "split": "test"},
        "split_checksum": "ab" * 32, "scorer_version": "1.4.0", "file_sha256": "cd" * 32,
        "metrics": {"strict_a_f@10": 33.43, "lenient_a_f@10": 49.1, "coverage_f": None},
        "intervals": {"strict_a_f@10": [31.02, 35.9], "lenient_a_f@10": [47.0, 51.25]},
        "bootstrap": {"seed": 0, "samples": 1000}, "scored_at": "2026-12-01T10:00:00+00:00",
        "identity_commitment": c.commitment(c.authorship_key(team_id, SECRET), result_id),
    }


def changed(value, path: tuple):
    """Another value the field may hold: of the same JSON type, or for a null a number (a
    metric) or a hex string (the commitment)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 0.01 if isinstance(value, float) else value + 1
    if value is None:
        return 50.0 if path[0] == "metrics" else "00" * 32
    return value[:-1] + ("x" if value[-1:] != "x" else "y")


def with_leaf(certificate: dict, path: tuple, value) -> dict:
    copied = copy.deepcopy(certificate)
    target = copied
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return copied


def test_a_signed_certificate_verifies_with_its_key():
    certificate = c.sign(body(), KEY)
    assert certificate["key_id"] == c.key_id(KEY.public_key()) and len(certificate["key_id"]) == 16
    verdict = c.verify(certificate, KEY.public_key())
    assert verdict.valid and verdict.authorship is None
    assert verdict.reason == (f"signed by key {certificate['key_id']}: result 0123456789abcdef "
                              "on swords-v1.1-test-generative, scored 2026-12-01T10:00:00+00:00")
    # the text a reviewer saves, indented or not, verifies alike: the signature is over the
    # canonical form, not over the file's bytes
    assert c.verify_text(json.dumps(certificate, indent=2), KEY.public_key()).valid


def test_the_signature_covers_the_canonical_serialisation():
    certificate = c.sign(body(), KEY)
    unsigned = {k: v for k, v in certificate.items() if k != "signature"}
    data = json.dumps(unsigned, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")
    assert c.canonical(unsigned) == data
    assert data.startswith(b'{"benchmark":{"name":"swords","split":"test","version":"1.1"},')
    import base64
    KEY.public_key().verify(base64.b64decode(certificate["signature"]), data)  # raises if not


def test_every_field_changed_is_refused_naming_why():
    certificate = c.sign(body(), KEY)
    paths = [p for p, _v in leaves(certificate)]
    # every field of the layout is reached, nested metric values and interval ends included
    assert ("metrics", "strict_a_f@10") in paths and ("intervals", "lenient_a_f@10", 1) in paths
    assert {p[0] for p in paths} == set(c.FIELDS)
    for path, value in leaves(certificate):
        verdict = c.verify(with_leaf(certificate, path, changed(value, path)), KEY.public_key())
        assert not verdict.valid, path
        if path == ("signature",):
            assert verdict.reason.startswith("malformed: field 'signature'"), verdict.reason
        elif path == ("key_id",):
            assert verdict.reason.startswith("signed with another site's key"), verdict.reason
        elif path == ("certificate",):
            assert verdict.reason == f"malformed: field 'certificate' is not {c.FORMAT!r}"
        else:
            assert verdict.reason.startswith("the signature does not match"), (path, verdict)


def test_a_changed_signature_is_refused():
    certificate = c.sign(body(), KEY)
    other = c.sign({**body(), "file_sha256": "ef" * 32}, KEY)["signature"]
    verdict = c.verify({**certificate, "signature": other}, KEY.public_key())
    assert (verdict.valid, verdict.reason) == (False, "the signature does not match: the "
                                               "certificate was changed after the site signed it")
    short = c.verify({**certificate, "signature": "AAAA"}, KEY.public_key())
    assert not short.valid and "signature" in short.reason


def test_another_sites_key_is_refused_naming_both_ids():
    theirs = c.sign(body(), OTHER)
    verdict = c.verify(theirs, KEY.public_key())
    assert not verdict.valid
    assert verdict.reason == (f"signed with another site's key: the certificate names key "
                              f"{c.key_id(OTHER)}, the key given is {c.key_id(KEY)}")
    # another site's signature passed off under this site's key id
    forged = c.verify({**theirs, "key_id": c.key_id(KEY)}, KEY.public_key())
    assert not forged.valid and forged.reason.startswith("the signature does not match")


@pytest.mark.parametrize(("mutate", "reason"), [
    (lambda d: d.pop("scored_at"), "malformed: missing field 'scored_at'"),
    (lambda d: d["board"].pop("slug"), "malformed: missing field 'board.slug'"),
    (lambda d: d.update(team="North Lab"), "malformed: unexpected field 'team'"),
    (lambda d: d["benchmark"].update(team_id=3), "malformed: unexpected field 'benchmark.team_id'"),
    (lambda d: d.update(metrics=[1]), "malformed: field 'metrics' is not an object"),
    (lambda d: d["metrics"].update(x="9"), "malformed: field 'metrics.x' is not a number"),
    (lambda d: d["intervals"].update(x=[1]), "malformed: field 'intervals.x' is not two numbers"),
    (lambda d: d["bootstrap"].update(seed=True),
     "malformed: field 'bootstrap.seed' has the wrong type"),
    (lambda d: d.update(identity_commitment=5),
     "malformed: field 'identity_commitment' has the wrong type"),
])
def test_a_malformed_certificate_is_refused_naming_the_field(mutate, reason):
    certificate = c.sign(body(), KEY)
    mutate(certificate)
    assert c.verify(certificate, KEY.public_key()) == c.Verdict(False, reason)


def test_text_that_is_not_a_certificate_is_refused():
    assert c.verify_text(b"{not json", KEY.public_key()).reason.startswith("malformed: not JSON")
    assert c.verify_text(b"[]", KEY.public_key()).reason == (
        "malformed: the certificate is not an object")
    # a bracket bomb inside /verify's 64 KiB: refused, not an error of the site
    deep = b"[" * 30_000 + b"]" * 30_000
    assert c.verify_text(deep, KEY.public_key()).reason == (
        "malformed: nested far deeper than a certificate")


def test_authorship_is_proven_by_the_right_secret_only():
    certificate = c.sign(body(team_id=7), KEY)
    mine = c.verify(certificate, KEY.public_key(), team_id=7, secret=SECRET)
    assert (mine.valid, mine.authorship) == (True, True)
    assert mine.reason.endswith("authorship proven: team 7 holds its secret")
    for team_id, secret in ((7, SECRET + "x"), (8, SECRET)):
        verdict = c.verify(certificate, KEY.public_key(), team_id=team_id, secret=secret)
        assert (verdict.valid, verdict.authorship) == (False, False)
        assert "authorship is not proven" in verdict.reason
    unsigned = c.sign({**body(), "identity_commitment": None}, KEY)
    none = c.verify(unsigned, KEY.public_key(), team_id=7, secret=SECRET)
    assert not none.valid and "carries no identity commitment" in none.reason
    half = c.verify(certificate, KEY.public_key(), secret=SECRET)
    assert not half.valid and half.reason == "authorship needs both the team id and the secret"


def test_commitments_of_one_team_are_unlinkable_and_name_no_team():
    k = c.authorship_key(7, SECRET)
    first, second = c.commitment(k, "aaaaaaaaaaaaaaaa"), c.commitment(k, "bbbbbbbbbbbbbbbb")
    assert first != second and k not in (first, second)
    assert len(first) == 64 and int(first, 16) >= 0
    assert c.commitment(None, "aaaaaaaaaaaaaaaa") is None


def test_public_keys_load_from_pem_and_nothing_else():
    pem = c.public_pem(KEY).encode()
    assert pem.startswith(b"-----BEGIN PUBLIC KEY-----")
    assert c.key_id(c.load_public_key(pem)) == c.key_id(KEY)
    with pytest.raises(ValueError, match="not a PEM public key"):
        c.load_public_key(b"hello")
