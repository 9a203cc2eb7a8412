"""Through the real server (`copas serve`: gunicorn's gevent worker): the stream and waiting at scale.

The stream is read with an SSE client library (sseclient-py), the way a
frontend's EventSource would read it.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests
import sseclient

from served import RemoteTable, Served

pytestmark = pytest.mark.xdist_group("served")


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def node(request: pytest.FixtureRequest, database_urls: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    directory = tmp_path_factory.mktemp(f"served-{request.param}")
    served = Served(database_urls.fresh(request.param, directory), log=directory / "serve.log")
    yield served
    served.stop()


def open_stream(node: Served, table: RemoteTable, seat: int, **headers: str) -> requests.Response:
    response = requests.get(node.url(table.path + "/stream"), headers=table.auth(seat, Accept="text/event-stream", **headers), stream=True, timeout=20)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("text/event-stream")
    return response


def wait_until(condition: Callable[[], bool], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)


def test_the_stream_sends_the_view_at_once_then_each_change(node: Served) -> None:
    table = RemoteTable(node)
    view = table.get(node, 1).json()
    events = sseclient.SSEClient(open_stream(node, table, 1)).events()
    first = next(events)
    assert (first.event, first.id) == ("view", str(view["version"]))
    assert "\n" not in first.data
    assert json.loads(first.data) == view
    table.pass_three(node, 2)
    second = next(events)
    assert second.event == "view" and int(second.id) > view["version"]
    assert json.loads(second.data)["seats"][2]["has_passed"] is True
    assert json.loads(second.data) == table.get(node, 1).json()


def test_each_stream_shows_its_viewers_view_and_no_other_hand(node: Served) -> None:
    table = RemoteTable(node)
    for seat in range(4):
        message = next(sseclient.SSEClient(open_stream(node, table, seat)).events())
        view = json.loads(message.data)
        assert view == table.get(node, seat).json()
        assert view["you"]["seat"] == seat


def test_a_stream_resumed_at_the_current_version_waits_for_the_next_change(node: Served) -> None:
    table = RemoteTable(node)
    version = table.get(node, 0).json()["version"]
    response = open_stream(node, table, 0, **{"Last-Event-ID": str(version)})
    lines = response.iter_lines()
    assert next(lines) == b": keep-alive"  # nothing new: no view, a comment within the keep-alive interval
    table.pass_three(node, 3)
    events = sseclient.SSEClient(response).events()
    message = next(events)
    assert int(message.id) > version
    assert json.loads(message.data)["seats"][3]["has_passed"] is True


def test_a_stream_resumed_from_an_older_version_sends_the_view_at_once(node: Served) -> None:
    table = RemoteTable(node)
    version = table.get(node, 0).json()["version"]
    table.pass_three(node, 1)
    message = next(sseclient.SSEClient(open_stream(node, table, 0, **{"Last-Event-ID": str(version)})).events())
    assert int(message.id) > version
    message = next(sseclient.SSEClient(requests.get(node.url(f"{table.path}/stream?after_version={version}"), headers=table.auth(0), stream=True, timeout=20)).events())
    assert int(message.id) > version


def test_a_stream_keeps_alive_and_ends_after_its_time(node: Served) -> None:
    table = RemoteTable(node)
    started = time.monotonic()
    lines = [line for line in open_stream(node, table, 2).iter_lines() if line]
    elapsed = time.monotonic() - started
    assert lines[0] == b"event: view"
    assert lines.count(b": keep-alive") >= 3  # every 0.5 s here (COPAS_STREAM_KEEPALIVE_SECONDS)
    assert 5 < elapsed < 20  # COPAS_STREAM_SECONDS=6: the server ends it


def test_a_stream_or_long_poll_of_another_tables_token_is_refused_before_it_starts(node: Served) -> None:
    table, other = RemoteTable(node), RemoteTable(node)
    response = requests.get(node.url(table.path + "/stream"), headers=other.auth(0), timeout=10)
    assert response.status_code == 404
    assert response.headers["Content-Type"] == "application/problem+json"
    response = requests.get(node.url(table.path + "/stream"), timeout=10)
    assert response.status_code == 401


def hold_long_polls(node: Served, table: RemoteTable, count: int) -> list[socket.socket]:
    """`count` clients long-polling the table (raw sockets: the test holds no thread for them)."""
    etag = table.get(node, 0).headers["ETag"]
    request = (
        f"GET {table.path}?wait=30 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {table.tokens[0]}\r\nIf-None-Match: {etag}\r\n\r\n"
    ).encode()
    clients = []
    for _ in range(count):
        client = socket.create_connection(("127.0.0.1", node.port))
        client.sendall(request)
        clients.append(client)
    return clients


def test_hundreds_of_waiting_clients_hold_no_thread_and_others_are_answered_at_once(node: Served) -> None:
    table, other = RemoteTable(node), RemoteTable(node)
    count = 300 if node.database_url.startswith("postgresql") else 60  # SQLite has no feed: its waiters poll
    clients = hold_long_polls(node, table, count)
    try:
        wait_until(lambda: node.health()["waiters"] == count)
        started = time.monotonic()
        assert other.get(node, 1).status_code == 200  # one worker, hundreds waiting: answered
        assert time.monotonic() - started < 5
        table.pass_three(node, 1)  # every waiter wakes with the new view
        for client in clients:
            client.settimeout(10)
            assert client.recv(12) == b"HTTP/1.1 200"
    finally:
        for client in clients:
            client.close()
    wait_until(lambda: node.health()["waiters"] == 0)


def test_a_waiter_whose_client_goes_away_is_dropped_at_once(node: Served) -> None:
    table = RemoteTable(node)
    clients = hold_long_polls(node, table, 50)
    wait_until(lambda: node.health()["waiters"] == 50)
    for client in clients:
        client.close()
    wait_until(lambda: node.health()["waiters"] == 0, timeout=3)  # long before their 30 s
    stream = open_stream(node, table, 0)
    lines = stream.iter_lines()
    assert next(lines) == b"event: view"
    wait_until(lambda: node.health()["waiters"] == 1, timeout=3)
    stream.close()
    wait_until(lambda: node.health()["waiters"] == 0, timeout=3)
