"""The rate limit: per issued token or per address, stricter for admissions, shared by a node's workers."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from api import create_app
from api.config import Settings
from api.store import open_store
from api.web.ratelimit import Limit, SharedBuckets, TokenBuckets


def test_a_client_past_its_rate_gets_429_problem_with_retry_after():
    app = create_app(Settings(rate_limit=5), store=open_store("memory://"))
    client = app.test_client()
    codes = [client.get("/v1/health").status_code for _ in range(10)]
    assert codes == [200] * 10  # a burst of twice the rate
    refused = client.get("/v1/health")
    assert refused.status_code == 429
    assert refused.content_type == "application/problem+json"
    assert refused.json["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) >= 1
    assert refused.headers["RateLimit-Policy"] == '"default";q=10;w=2'
    assert refused.headers["RateLimit"].startswith('"default";r=0;')


def test_every_answer_says_what_is_left_of_the_limit():
    client = create_app(Settings(rate_limit=5), store=open_store("memory://")).test_client()
    assert client.get("/v1/health").headers["RateLimit"] == '"default";r=9;t=1'
    assert client.get("/v1/health").headers["RateLimit"].startswith('"default";r=8;')


def test_invented_tokens_share_their_address_bucket():
    client = create_app(Settings(rate_limit=2), store=open_store("memory://")).test_client()
    codes = [client.get("/v1/tables/x", headers={"Authorization": f"Bearer invented-{n}"}).status_code for n in range(5)]
    assert codes == [401, 401, 401, 401, 429]


def test_an_issued_token_has_its_own_bucket_apart_from_its_address():
    client = create_app(Settings(rate_limit=2, admission_rate_limit=0), store=open_store("memory://")).test_client()
    created = client.post("/v1/tables", json={"name": "Ana"}).json
    for _ in range(3):
        client.get("/v1/health")
    assert client.get("/v1/health").status_code == 429  # the address is spent
    mine = {"Authorization": f"Bearer {created['token']}"}
    assert [client.get(f"/v1/tables/{created['table_id']}", headers=mine).status_code for _ in range(4)] == [200] * 4


def test_creating_and_joining_have_a_stricter_limit_per_address():
    client = create_app(Settings(rate_limit=100, admission_rate_limit=6), store=open_store("memory://")).test_client()
    created = [client.post("/v1/tables", json={"name": "Ana"}).status_code for _ in range(3)]
    joined = client.post(f"/v1/invites/{client.post('/v1/tables', json={'name': 'B'}).json.get('invite_code', 'x')}/join", json={"name": "C"})
    assert created == [201, 201, 201]
    assert joined.status_code == 429 and joined.json["code"] == "rate_limited"
    assert client.get("/v1/health").status_code == 200  # other requests keep their own limit


def test_a_rate_of_zero_turns_the_limits_off():
    client = create_app(Settings(rate_limit=0, admission_rate_limit=1), store=open_store("memory://")).test_client()
    assert all(client.get("/v1/health").status_code == 200 for _ in range(50))
    assert all(client.post("/v1/tables", json={"name": "Ana"}).status_code == 201 for _ in range(5))


@pytest.mark.parametrize("kind", ["process", "shared"])
def test_a_bucket_refills_with_time_and_keys_are_apart(kind: str, tmp_path: Path):
    buckets = TokenBuckets() if kind == "process" else SharedBuckets(str(tmp_path / "b.sqlite"))
    limit = Limit("default", rate=2, burst=2)
    assert buckets.take("a", limit, 0.0)[1] == 0 and buckets.take("a", limit, 0.0)[1] == 0
    assert buckets.take("a", limit, 0.0)[1] > 0
    assert buckets.take("b", limit, 0.0)[1] == 0
    assert buckets.take("a", limit, 0.6)[1] == 0


def test_two_processes_opening_the_same_file_share_one_bucket(tmp_path: Path):
    path = str(tmp_path / "b.sqlite")
    limit = Limit("default", rate=0.001, burst=3)
    assert SharedBuckets(path).take("a", limit, 0.0)[1] == 0
    script = f"from api.web.ratelimit import Limit, SharedBuckets; b = SharedBuckets({path!r}); l = Limit('default', 0.001, 3); print([b.take('a', l, 0.0)[1] == 0 for _ in range(3)])"
    other = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True, cwd=Path(__file__).parents[2])
    assert other.stdout.strip() == "[True, True, False]"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_the_workers_of_copas_serve_share_the_limit(tmp_path: Path):
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'copas.db'}", "COPAS_RATE_LIMIT": "1"}
    env.pop("COPAS_RATE_LIMIT_FILE", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "serve", "--port", str(port), "--workers", "3", "--threads", "2", "--no-dispatcher"],
        env=env,
        cwd=Path(__file__).parents[2],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, "copas serve did not start"
                time.sleep(0.2)
        time.sleep(2)  # let every worker boot, and the bucket refill from the probe above
        started = time.monotonic()
        codes = []
        for _ in range(24):  # a new connection each time: the workers take turns accepting them
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("GET", "/v1/health")
            codes.append(connection.getresponse().status)
            connection.close()
        elapsed = time.monotonic() - started
        # One node, one bucket: a burst of 2 plus 1 a second, not 3 workers x 2.
        assert codes.count(200) <= 2 + elapsed * 1 + 1, (codes, elapsed)
        assert 429 in codes
    finally:
        server.terminate()
        server.wait(timeout=30)
