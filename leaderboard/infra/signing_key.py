"""The site's Ed25519 signing key for result certificates: a PEM file, either the one the
hosts name (``SIGNING_KEY_FILE``, shared by every machine of a deployment) or one made once in
the instance folder (``signing_key.pem``) on first use.

Several web processes may ask for it at the same moment on a fresh folder: each writes a
new key to a temporary file of its own and links it to the final name, which only one link
can take; the others read the winner's. So no process ever reads a half-written key, and
all of them sign with the same one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

FILENAME = "signing_key.pem"

#: Keys read by this process, by path: a certificate request does not read the file again.
#: A host who rotates the key restarts the web processes (docs/hosts/certificates.md).
_loaded: dict[str, Ed25519PrivateKey] = {}


class SigningKeyError(RuntimeError):
    """The configured key file is missing or is not an Ed25519 private key."""


def key_path(settings: dict[str, Any]) -> Path:
    """Where the key is: ``SIGNING_KEY_FILE``, else the instance folder's ``signing_key.pem``."""
    return Path(settings["SIGNING_KEY_FILE"] or Path(settings["INSTANCE_PATH"]) / FILENAME)


def signing_key(settings: dict[str, Any]) -> Ed25519PrivateKey:
    """The site's private key. A configured file must exist (a key made on one machine would
    differ from the next's); the instance folder's is created the first time."""
    path = key_path(settings)
    if str(path) not in _loaded:
        if not path.exists():
            if settings["SIGNING_KEY_FILE"]:
                raise SigningKeyError(f"SIGNING_KEY_FILE {path} does not exist; make it once "
                                      "with `openssl genpkey -algorithm ed25519 -out FILE`")
            create_key_file(path)
        _loaded[str(path)] = read_key_file(path)
    return _loaded[str(path)]


def read_key_file(path: Path) -> Ed25519PrivateKey:
    """The Ed25519 private key of the PEM file ``path``."""
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (ValueError, TypeError) as exc:
        raise SigningKeyError(f"{path} is not an unencrypted PEM private key") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(f"{path} holds a key that is not Ed25519")
    return key


def create_key_file(path: Path) -> bool:
    """Write a new key to ``path`` (mode 0600) unless one is there; True when this call made
    it. Safe against other processes doing the same at once (see the module's docstring)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pem = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption())
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".signing_key-")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(pem)
            handle.flush()
            os.fsync(handle.fileno())
        os.link(temporary, path)
        return True
    except FileExistsError:
        return False
    finally:
        os.unlink(temporary)
