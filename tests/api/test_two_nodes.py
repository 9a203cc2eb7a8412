"""Two `copas serve` nodes on one PostgreSQL database, as behind a load balancer.

Each node keeps its own version map, rendered views and listener; the
database is the only thing they share, and LISTEN/NOTIFY carries each node's
commits to the other.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import sseclient

from api.service.versions import STALE_BOUND_SECONDS
from served import RemoteTable, Served

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("served")]


@pytest.fixture(scope="module")
def nodes(database_urls: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, Served]]:
    directory = tmp_path_factory.mktemp("two-nodes")
    url = database_urls.fresh("postgresql", directory)
    a = Served(url, log=directory / "a.log")
    try:
        b = Served(url, log=directory / "b.log")
    except Exception:
        a.stop()
        raise
    yield a, b
    a.stop()
    b.stop()


def test_a_move_on_one_node_wakes_a_long_poll_on_the_other(nodes: tuple[Served, Served]) -> None:
    a, b = nodes
    table = RemoteTable(a)
    etag = table.get(b, 0).headers["ETag"]
    answers: list[requests.Response] = []
    started = time.monotonic()
    poll = threading.Thread(target=lambda: answers.append(requests.get(b.url(table.path + "?wait=20"), headers=table.auth(0, **{"If-None-Match": etag}), timeout=30)))
    poll.start()
    time.sleep(0.5)
    table.pass_three(a, 2)
    poll.join(timeout=25)
    assert answers and answers[0].status_code == 200
    assert answers[0].json()["seats"][2]["has_passed"] is True
    assert time.monotonic() - started < 10


def test_a_move_on_one_node_reaches_a_stream_on_the_other(nodes: tuple[Served, Served]) -> None:
    a, b = nodes
    table = RemoteTable(a)
    response = requests.get(b.url(table.path + "/stream"), headers=table.auth(1), stream=True, timeout=20)
    events = sseclient.SSEClient(response).events()
    first = next(events)
    table.pass_three(a, 3)
    second = next(events)
    assert int(second.id) > int(first.id)
    assert json.loads(second.data)["seats"][3]["has_passed"] is True
    response.close()


def test_the_other_nodes_304_turns_into_a_200_within_the_stated_bound(nodes: tuple[Served, Served]) -> None:
    a, b = nodes
    table = RemoteTable(a)
    etag = table.get(b, 0).headers["ETag"]
    assert table.get(b, 0, **{"If-None-Match": etag}).status_code == 304
    assert b.health()["listener"] == "connected"  # b answers from its version map
    table.pass_three(a, 1)
    moved = time.monotonic()
    while table.get(b, 0, **{"If-None-Match": etag}).status_code == 304:
        assert time.monotonic() - moved < STALE_BOUND_SECONDS, "a 304 staler than the stated bound"
        time.sleep(0.005)


def test_an_idempotency_key_retried_on_the_other_node_returns_the_first_response(nodes: tuple[Served, Served]) -> None:
    a, b = nodes
    table = RemoteTable(a)
    first = table.pass_three(a, 0, **{"Idempotency-Key": "pass-once"})
    headers = table.auth(0, **{"Idempotency-Key": "pass-once", "Content-Type": "application/json"})
    retried = requests.post(b.url(table.path + "/passes"), data=first.request.body, headers=headers, timeout=10)
    assert retried.status_code == first.status_code
    assert retried.json() == first.json()
    assert table.get(b, 0).json()["version"] == first.json()["version"]  # nothing written twice
