"""Timeouts: nothing waits on the database without a bound, and the health check answers within 2 s."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import text

from api import create_app
from api.store.ports import Unavailable
from api.store.sql import SERVICE_TIMEOUTS, SqlStore, Timeouts
from conftest import TEST_SETTINGS


@pytest.fixture
def black_hole() -> Iterator[int]:
    """A port that accepts connections and never says a word (like a frozen PostgreSQL)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for connection in accepted:
        connection.close()
    server.close()


def test_the_health_check_answers_within_2_seconds_when_the_database_never_answers(black_hole: int) -> None:
    store = SqlStore(f"postgresql+psycopg://postgres@127.0.0.1:{black_hole}/copas", pool_pre_ping=False)
    try:
        client = create_app(TEST_SETTINGS, store=store).test_client()
        for _ in range(3):  # a stuck probe is waited on, not multiplied
            started = time.monotonic()
            response = client.get("/v1/health")
            assert time.monotonic() - started < 2.0
            assert response.status_code == 503
            assert response.headers["Retry-After"] == "1"
            assert response.get_json()["database"] is False
        assert client.get("/v1/health/live").get_json() == {"status": "ok"}
    finally:
        store.dispose()


def test_a_request_to_a_database_that_never_answers_gets_503_after_the_connect_timeout(black_hole: int) -> None:
    store = SqlStore(f"postgresql+psycopg://postgres@127.0.0.1:{black_hole}/copas", pool_pre_ping=False, timeouts=Timeouts(connect=1))
    try:
        client = create_app(TEST_SETTINGS, store=store).test_client()
        started = time.monotonic()
        response = client.post("/v1/tables", json={"name": "Ana"})
        assert response.status_code == 503 and response.get_json()["code"] == "unavailable"
        assert time.monotonic() - started < 1.0 + 2.0
    finally:
        store.dispose()


@pytest.mark.postgres
def test_postgresql_sessions_carry_the_chosen_timeouts(database_urls: object, tmp_path: object) -> None:
    url = database_urls.fresh("postgresql", tmp_path)  # type: ignore[attr-defined]
    store = SqlStore(url)
    try:
        with store.engine.connect() as conn:
            shown = {name: conn.execute(text(f"SHOW {name}")).scalar_one() for name in ("statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout")}
        assert shown == {
            "statement_timeout": f"{SERVICE_TIMEOUTS.statement:g}s",
            "lock_timeout": f"{SERVICE_TIMEOUTS.lock:g}s",
            "idle_in_transaction_session_timeout": f"{SERVICE_TIMEOUTS.idle_in_transaction:g}s",
        }
    finally:
        store.dispose()


@pytest.mark.postgres
def test_a_query_with_no_answer_in_time_is_unavailable_and_its_connection_dropped(database_urls: object, tmp_path: object) -> None:
    url = database_urls.fresh("postgresql", tmp_path)  # type: ignore[attr-defined]
    store = SqlStore(url, timeouts=Timeouts(statement=0, answer=0.3))
    try:
        started = time.monotonic()
        with pytest.raises(Unavailable, match="no answer from the database within 0.3 s"):
            with store.unit_of_work(readonly=True) as uow:
                uow._conn.execute(text("SELECT pg_sleep(3)"))  # type: ignore[attr-defined]
        assert time.monotonic() - started < 2.0
        with store.unit_of_work(readonly=True) as uow:  # the pool hands out a sound connection next
            assert uow.table_row("none") is None
    finally:
        store.dispose()


@pytest.mark.postgres
def test_a_move_waiting_on_a_held_row_lock_gives_up_with_503(database_urls: object, tmp_path: object) -> None:
    url = database_urls.fresh("postgresql", tmp_path)  # type: ignore[attr-defined]
    store = SqlStore(url, timeouts=Timeouts(lock=0.3))
    try:
        client = create_app(TEST_SETTINGS, store=store).test_client()
        created = client.post("/v1/tables", json={"name": "Ana"}).get_json()
        with store.engine.connect() as holder:
            holder.execute(text("SELECT 1 FROM tables WHERE table_id = :t FOR UPDATE"), {"t": created["table_id"]})
            response = client.post(f"/v1/invites/{created['invite_code']}/join", json={"name": "Bruno"})
            holder.rollback()
        assert response.status_code == 503 and "lock timeout" in response.get_json()["detail"]
        assert client.post(f"/v1/invites/{created['invite_code']}/join", json={"name": "Bruno"}).status_code == 201
    finally:
        store.dispose()


def test_a_sqlite_write_lock_held_past_the_busy_timeout_is_unavailable(tmp_path: object, database_urls: object) -> None:
    url = database_urls.fresh("sqlite", tmp_path)  # type: ignore[attr-defined]
    holder, waiter = SqlStore(url), SqlStore(url, timeouts=Timeouts(sqlite_busy=0.2))
    try:
        with holder.unit_of_work() as held:  # BEGIN IMMEDIATE: the database-wide write lock
            held.table_row("none")
            with pytest.raises(Unavailable, match="database is locked") as raised:
                with waiter.unit_of_work():
                    pass
        assert raised.value.kind == "busy" and not raised.value.outcome_unknown
        with waiter.unit_of_work() as free:  # the lock released: writes go on
            assert free.table_row("none") is None
    finally:
        holder.dispose()
        waiter.dispose()
