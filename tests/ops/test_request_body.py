"""A large request body does not stall the web process it reaches: refused from its headers
past the limit and the connection closed (not drained), a chunked one stopped at the limit,
and an upload read in turns with the other connections. Real gunicorn, one gevent worker
process, raw sockets."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterable, Iterator

import pytest

from leaderboard import create_app
from leaderboard.config import DEFAULTS, PROJECT_ROOT
from leaderboard.db import create_all
from leaderboard.infra.processes import stop_processes

LIMIT = DEFAULTS["MAX_UPLOAD_BYTES"]
BOUNDARY = "b0undary"
CHUNK = b"x" * (64 * 1024)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory, embedded_redis) -> Iterator[str]:
    """gunicorn with the project's config, one worker process, on a fresh SQLite file."""
    tmp = tmp_path_factory.mktemp("body")
    settings = {"INSTANCE_PATH": str(tmp / "instance"),
                "DATABASE_URL": f"sqlite:///{tmp / 'site.db'}",
                "REDIS_URL": f"unix://{embedded_redis.socket_file}?db=0",
                "SECRET_KEY": "body-test", "QUEUE_NAME": f"body-{os.getpid()}"}
    app = create_app(settings)
    create_all(app.extensions["db_engine"])
    app.extensions["db_engine"].dispose()
    port = _free_port()
    env = dict(os.environ, WEB_CONCURRENCY="1", GUNICORN_BIND=f"127.0.0.1:{port}",
               LEADERBOARD_LOG_REQUESTS="0",
               **{f"LEADERBOARD_{key}": value for key, value in settings.items()})
    gunicorn = str(os.path.join(os.path.dirname(sys.executable), "gunicorn"))
    with open(tmp / "gunicorn.log", "wb") as log:
        proc = subprocess.Popen([gunicorn, "-c", "gunicorn.conf.py", "wsgi:app"],
                                cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/about", timeout=5).read()
            break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                stop_processes([proc])
                pytest.fail("gunicorn did not answer")
            time.sleep(0.3)
    yield url
    stop_processes([proc])


def _head(url: str, path: str, headers: dict[str, str]) -> bytes:
    host = url.removeprefix("http://")
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}",
             f"Content-Type: multipart/form-data; boundary={BOUNDARY}",
             *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _send(url: str, head: bytes, body: Iterable[bytes]) -> tuple[bytes, int, bool, float]:
    """Send ``head`` then ``body`` as fast as the server takes it; returns (what the server
    answered, body bytes sent, whether the server closed the connection, when the answer
    came)."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    sent, closed = 0, False
    try:
        sock.sendall(head)
        for piece in body:
            sock.sendall(piece)
            sent += len(piece)
    except (BrokenPipeError, ConnectionResetError):
        closed = True
    answer, answered_at = b"", time.monotonic()
    sock.settimeout(3)
    try:
        while data := sock.recv(65536):
            if not answer:
                answered_at = time.monotonic()
            answer += data
        closed = True  # the server's FIN: nothing more comes on this connection
    except ConnectionResetError:
        closed = True
    except TimeoutError:
        pass  # kept open, waiting for another request
    finally:
        sock.close()
    return answer, sent, closed, answered_at


def _time_about(url: str, stop: threading.Event, times: list[tuple[float, float]]) -> None:
    while not stop.is_set():
        start = time.monotonic()
        urllib.request.urlopen(url + "/about", timeout=30).read()
        times.append((start, time.monotonic()))


def _while_sending(url: str, head: bytes, body: Iterable[bytes]):
    """:func:`_send`, with /about asked again and again beside it; returns (_send's answer,
    the /about (start, end) times, when the send began)."""
    stop, times = threading.Event(), []
    timer = threading.Thread(target=_time_about, args=(url, stop, times))
    timer.start()
    time.sleep(0.2)
    began = time.monotonic()
    try:
        result = _send(url, head, body)
    finally:
        stop.set()
        timer.join(timeout=30)
    return result, times, began


def test_a_body_over_the_limit_is_refused_from_its_headers_and_not_drained(site):
    """Content-Length over the limit: 413 at once, and the connection closed while the
    client is still sending (gunicorn would read all 100 MB to reuse the connection)."""
    size = 100 * 1024 * 1024
    head = _head(site, "/api/v1/submissions", {"Content-Length": str(size)})
    (answer, sent, closed, _at), times, _began = _while_sending(
        site, head, (CHUNK for _ in range(size // len(CHUNK))))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"connection: close" in answer.lower()
    assert closed and sent < size / 2
    assert times and max(end - start for start, end in times) < 1.0


def _chunked(total: int) -> Iterator[bytes]:
    yield b"%x\r\n%s\r\n" % (len(_PART_HEAD), _PART_HEAD)
    for _ in range(total // len(CHUNK)):
        yield b"%x\r\n%s\r\n" % (len(CHUNK), CHUNK)
    yield b"0\r\n\r\n"


_PART_HEAD = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; "
              "filename=\"r.json\"\r\n\r\n").encode()


def test_a_chunked_body_is_read_up_to_the_limit_then_the_connection_closed(site):
    """No Content-Length: reading stops at the limit with a 413, and the rest is not read."""
    total = 3 * LIMIT
    head = _head(site, "/api/v1/validate", {"Transfer-Encoding": "chunked"})
    (answer, sent, closed, _at), times, _began = _while_sending(site, head, _chunked(total))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert closed and LIMIT <= sent < 2 * LIMIT
    assert times and max(end - start for start, end in times) < 1.0


def test_about_answers_while_a_large_upload_is_read(site):
    """An upload within the limit is read in turns with the process's other connections:
    /about answers while its bytes still arrive."""
    payload = b"".join([_PART_HEAD, b"x" * (LIMIT - 1024 * 1024),
                        f"\r\n--{BOUNDARY}--\r\n".encode()])
    head = _head(site, "/api/v1/validate", {"Content-Length": str(len(payload))})
    pieces = (payload[i:i + len(CHUNK)] for i in range(0, len(payload), len(CHUNK)))
    (answer, sent, _closed, answered_at), times, began = _while_sending(site, head, pieces)
    assert answer.startswith(b"HTTP/1.1 401"), answer[:200]   # read whole, then no token
    assert sent == len(payload)
    during = [end - start for start, end in times if start >= began and end <= answered_at]
    assert len(during) >= 2, (f"/about answered {len(during)} times in the "
                              f"{answered_at - began:.2f} s the upload took")
    assert max(during) < 0.5


def test_the_documented_proxy_limit_is_the_sites_own(app):
    """docs/hosts/deploy.md's nginx recipe refuses bodies at the size the site itself does."""
    recipe = (PROJECT_ROOT / "docs" / "hosts" / "deploy.md").read_text()
    size = recipe.split("client_max_body_size", 1)[1].split(";", 1)[0].strip()
    assert int(size) == app.config["MAX_CONTENT_LENGTH"]
