"""What only the SQL store does: migrations, dialect details, locking, LISTEN/NOTIFY."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from api.service.versions import TableVersions
from api.store import database_url, open_store
from api.store.migrate import current, head, upgrade
from api.store.models import PROJECT_TABLES, metadata
from api.store.ports import NewEvent, OutboxMessage
from api.store.sql import SqlStore
from tests.store.waiting import changed_within, version_of

ROOT = Path(__file__).resolve().parents[2]

T0 = datetime(2025, 1, 2, tzinfo=UTC)


def test_migrations_create_the_schema_on_a_fresh_sqlite_file(tmp_path):
    url = f"sqlite:///{tmp_path / 'nested' / 'fresh.db'}"
    assert not (tmp_path / "nested").exists()
    upgrade(url)
    assert current(url) == head()
    inspector = inspect(create_engine(url))
    assert set(inspector.get_table_names()) == {*PROJECT_TABLES, "alembic_version"}
    for table in metadata.sorted_tables:
        assert {c["name"] for c in inspector.get_columns(table.name)} == set(table.columns.keys())
    assert {i["name"] for i in inspector.get_indexes("outbox")} == {"ix_outbox_status_next_attempt_at"}
    upgrade(url)  # idempotent
    assert current(url) == head()


def test_the_webhook_count_migration_counts_the_webhooks_already_set(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    upgrade(url, "0003")
    engine = create_engine(url)
    with engine.begin() as conn:
        for table_id in ("hooked", "plain"):
            conn.execute(
                text("INSERT INTO tables (table_id, version, status, invite_hash, created_at, updated_at) VALUES (:t, 0, 'waiting', :t, :at, :at)"),
                {"t": table_id, "at": T0.replace(tzinfo=None)},
            )
        for seat in (1, 3):
            conn.execute(text("INSERT INTO webhooks VALUES ('hooked', :seat, 'https://a.test/h', 'whsec_A', false)"), {"seat": seat})
    upgrade(url)
    with engine.connect() as conn:
        counts = dict(conn.execute(text("SELECT table_id, webhook_count FROM tables")).all())
    engine.dispose()
    assert counts == {"hooked": 2, "plain": 0}


def test_alembic_upgrade_head_from_the_repository_root_uses_database_url(tmp_path):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}"}
    alembic = Path(sys.executable).with_name("alembic")
    result = subprocess.run([str(alembic), "upgrade", "head"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert current(env["DATABASE_URL"]) == head()
    check = subprocess.run([str(alembic), "check"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr  # models.py and the migration agree


def test_open_store_picks_the_implementation_from_the_url(tmp_path):
    from api.store.memory import MemoryStore

    assert isinstance(open_store(None), MemoryStore)
    assert isinstance(open_store("memory://"), MemoryStore)
    store = open_store(f"sqlite:///{tmp_path / 'x.db'}")
    try:
        assert isinstance(store, SqlStore)
    finally:
        store.dispose()


def test_database_url_defaults_to_sqlite_under_var(monkeypatch, tmp_path):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    assert database_url() == "sqlite:///var/copas.db"
    assert (tmp_path / "var").is_dir()
    monkeypatch.setenv("DATABASE_URL", "postgresql+psycopg://u@h/db")
    assert database_url() == "postgresql+psycopg://u@h/db"


def test_ping_is_false_when_the_database_is_unreachable():
    store = SqlStore("postgresql+psycopg://nobody@127.0.0.1:1/none", pool_pre_ping=False)
    try:
        assert store.ping() is False
    finally:
        store.dispose()


def test_json_event_data_keeps_unicode(sql_store):
    data = {"name": "Zoë 🂡 — 東京", "list": [1, 2.5, None, True], "empty": {}}
    with sql_store.unit_of_work() as uow:
        uow.create_table("t1", "inv", T0)
        uow.append("t1", 0, [NewEvent("named", 0, data)], status="waiting", now=T0)
        uow.commit()
    with sql_store.unit_of_work(readonly=True) as uow:
        assert uow.load_events("t1")[0].data == data


def test_a_stale_append_loses_even_without_lock_table(sql_store):
    with sql_store.unit_of_work() as uow:
        uow.create_table("t1", "inv", T0)
        uow.commit()
    from api.store import StaleVersion

    with sql_store.unit_of_work() as first, sql_store.unit_of_work(readonly=True) as reader:
        assert reader.table_row("t1").version == 0
        first.append("t1", 0, [NewEvent("x", None, {})], status="waiting", now=T0)
        first.commit()
    with sql_store.unit_of_work() as second:
        with pytest.raises(StaleVersion):
            second.append("t1", 0, [NewEvent("y", None, {})], status="waiting", now=T0)


def test_sqlite_readers_are_not_blocked_by_an_open_writer(database_urls, tmp_path):
    store = SqlStore(database_urls.fresh("sqlite", tmp_path))
    try:
        with store.unit_of_work() as uow:
            uow.create_table("t1", "inv", T0)
            uow.commit()
        with store.unit_of_work() as writer:
            writer.append("t1", 0, [NewEvent("x", None, {})], status="waiting", now=T0)
            started = time.monotonic()
            with store.unit_of_work(readonly=True) as reader:
                assert reader.table_row("t1").version == 0  # WAL: the committed snapshot
            assert changed_within(store, "t1", 0, timeout=0.3) is False
            assert time.monotonic() - started < 2
            writer.commit()
        assert changed_within(store, "t1", 0, timeout=1) is True
    finally:
        store.dispose()


# -- PostgreSQL only


@pytest.fixture
def pg_store(database_urls, tmp_path):
    store = SqlStore(database_urls.fresh("postgresql", tmp_path))
    yield store
    store.dispose()


@pytest.mark.postgres
def test_claim_due_skips_messages_locked_by_another_worker(pg_store):
    now = datetime.now(UTC)
    with pg_store.unit_of_work() as uow:
        for i in range(4):
            uow.enqueue(
                OutboxMessage(f"msg_{i}", "t1", 1, "your_turn", "{}", 0, now - timedelta(minutes=4 - i), "pending", None)
            )
        uow.commit()
    with pg_store.unit_of_work() as worker_a, pg_store.unit_of_work() as worker_b:
        a = [m.id for m in worker_a.claim_due(now, 2)]
        b = [m.id for m in worker_b.claim_due(now, 10)]
    assert a == ["msg_0", "msg_1"]
    assert b == ["msg_2", "msg_3"]


@pytest.mark.postgres
def test_lock_table_makes_a_second_command_wait_for_the_first(pg_store):
    with pg_store.unit_of_work() as uow:
        uow.create_table("t1", "inv", T0)
        uow.commit()
    order: list[str] = []
    locked = threading.Event()

    def first():
        with pg_store.unit_of_work() as uow:
            uow.lock_table("t1")
            locked.set()
            time.sleep(0.4)
            order.append("first")
            uow.append("t1", 0, [NewEvent("x", None, {})], status="waiting", now=T0)
            uow.commit()

    thread = threading.Thread(target=first)
    thread.start()
    locked.wait(5)
    with pg_store.unit_of_work() as uow:
        row = uow.lock_table("t1")  # blocks until `first` commits
        order.append("second")
        assert row.version == 1
    thread.join()
    assert order == ["first", "second"]


@pytest.mark.postgres
def test_a_waiter_survives_the_listener_connection_being_killed(pg_store):
    with pg_store.unit_of_work() as uow:
        uow.create_table("t1", "inv", T0)
        uow.commit()
    versions = TableVersions(pg_store)  # starts the listener
    read = lambda: version_of(pg_store, "t1")  # noqa: E731
    assert versions.wait("t1", 0, 0.2, read) == 0
    deadline = time.monotonic() + 5
    while not pg_store._listener.healthy and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pg_store._listener.healthy
    with pg_store.engine.connect() as conn:
        killed = conn.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND query ILIKE 'LISTEN copas_tables%'"
            )
        ).all()
    assert killed

    def writer():
        time.sleep(0.3)
        with pg_store.unit_of_work() as uow:
            uow.append("t1", 0, [NewEvent("x", None, {})], status="waiting", now=T0)
            uow.commit()

    thread = threading.Thread(target=writer)
    thread.start()
    started = time.monotonic()
    assert versions.wait("t1", 0, 10, read) == 1
    thread.join()
    assert time.monotonic() - started < 5
    deadline = time.monotonic() + 10
    while not pg_store._listener.healthy and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pg_store._listener.healthy  # reconnected


@pytest.mark.postgres
def test_many_long_polls_wake_promptly_through_notify(pg_store):
    with pg_store.unit_of_work() as uow:
        for n in range(5):
            uow.create_table(f"t{n}", f"inv{n}", T0)
        uow.commit()
    results: dict[int, tuple[bool, float]] = {}
    versions = TableVersions(pg_store)
    deadline = time.monotonic() + 5
    while not versions.live and time.monotonic() < deadline:
        time.sleep(0.05)
    assert versions.live  # woken by NOTIFY, not by the fallback poll

    def waiter(n: int) -> None:
        started = time.monotonic()
        table_id = f"t{n % 5}"
        woke = versions.wait(table_id, 0, 10, lambda: version_of(pg_store, table_id)) == 1
        results[n] = (woke, time.monotonic() - started)

    threads = [threading.Thread(target=waiter, args=(n,)) for n in range(20)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    with pg_store.unit_of_work() as uow:
        for n in range(5):
            uow.append(f"t{n}", 0, [NewEvent("x", None, {})], status="waiting", now=T0)
        uow.commit()
    for t in threads:
        t.join()
    assert all(woke for woke, _ in results.values())
    assert max(elapsed for _, elapsed in results.values()) < 2
