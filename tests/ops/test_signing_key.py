"""The site's signing key: made once in the instance folder (0600), the same for processes
that ask for it at the same moment on a fresh folder; or read from the file the hosts name,
which must then exist."""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from leaderboard.config import load_settings
from leaderboard.infra import signing_key as sk
from leaderboard.scoring.certificates import key_id


def _settings(folder: Path, key_file: str = "") -> dict:
    return load_settings({"INSTANCE_PATH": str(folder), "SIGNING_KEY_FILE": key_file},
                         environ={}, follow_serve=False)


def _race(folder: str, start: float) -> tuple[bool, str]:
    """One process of the race: wait for the common start, make the key unless there, read."""
    time.sleep(max(0.0, start - time.time()))
    path = Path(folder) / sk.FILENAME
    made = sk.create_key_file(path)
    return made, key_id(sk.read_key_file(path))


def test_processes_racing_on_a_fresh_folder_share_one_key(tmp_path):
    start = time.time() + 2.0  # every process started and importing done by then
    with ProcessPoolExecutor(6, mp_context=multiprocessing.get_context("spawn")) as pool:
        outcomes = list(pool.map(_race, [str(tmp_path)] * 6, [start] * 6))
    assert sum(made for made, _id in outcomes) == 1
    assert len({kid for _made, kid in outcomes}) == 1
    key_file = tmp_path / sk.FILENAME
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [sk.FILENAME]  # no temporary file left
    assert key_id(sk.signing_key(_settings(tmp_path))) == outcomes[0][1]


def test_a_configured_key_file_is_used_and_must_exist(tmp_path):
    key = Ed25519PrivateKey.generate()
    path = tmp_path / "shared" / "site-key.pem"
    with pytest.raises(sk.SigningKeyError, match="does not exist"):
        sk.signing_key(_settings(tmp_path / "instance", str(path)))
    assert not path.exists()  # not made: each machine would make its own
    path.parent.mkdir()
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                       serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    assert key_id(sk.signing_key(_settings(tmp_path / "instance", str(path)))) == key_id(key)
    assert not (tmp_path / "instance" / sk.FILENAME).exists()


def test_a_key_file_that_is_not_ed25519_is_refused(tmp_path):
    path = tmp_path / "bad.pem"
    path.write_text("not a key")
    with pytest.raises(sk.SigningKeyError, match="not an unencrypted PEM private key"):
        sk.read_key_file(path)
