"""Redis connections: the embedded server is real and shared; URLs fail fast when down."""

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from leaderboard.infra.redis_conn import CONNECT_TIMEOUT_SECONDS, connect_redis, redis_url_of


def test_embedded_server_is_shared_by_url(tmp_path):
    embedded = connect_redis("", str(tmp_path))
    try:
        embedded.set("greeting", "hello")
        other = connect_redis(redis_url_of(embedded), str(tmp_path / "unused"))
        assert other.get("greeting") == b"hello"
        other.connection_pool.disconnect()
    finally:
        embedded.shutdown(nosave=True)


def test_url_connection_has_a_connect_timeout(tmp_path):
    conn = connect_redis("redis://127.0.0.1:1/0", str(tmp_path))
    assert conn.connection_pool.connection_kwargs["socket_connect_timeout"] == (
        CONNECT_TIMEOUT_SECONDS)
    with pytest.raises(RedisConnectionError):
        conn.ping()
