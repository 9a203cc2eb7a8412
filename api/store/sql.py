"""The SQLAlchemy store: PostgreSQL in production, SQLite for `make serve`.

One `UnitOfWork` is one Connection and one transaction. Commands for a table
serialize on its row: `SELECT ... FOR UPDATE` on PostgreSQL; on SQLite every
writing unit of work starts with `BEGIN IMMEDIATE` (the database-wide write
lock, taken up front so two writers never deadlock on a lock upgrade), and
read-only units start a plain deferred `BEGIN`. `append` is a compare-and-set
on `tables.version` as well, so a stale writer fails even without the lock.
`append_if_current` is that compare-and-set alone, for a move whose state the
node already holds: on PostgreSQL one autocommitted statement (on a pool of
its own, opened in autocommit mode), on SQLite a short unit of work.

On PostgreSQL every commit of a table sends `NOTIFY copas_tables` with
`table_id:version`, and one listener thread per store hears every node's
commits: the store's `ChangeFeed`, which the service's version map and its
waiters follow. SQLite has no feed (several processes share the file).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from datetime import UTC, datetime
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from sqlalchemy import Connection, Engine, Text, bindparam, create_engine, delete, event, func, insert, select, tuple_, update
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import NullPool

from . import models as m
from .ports import (
    IDEMPOTENCY_TTL,
    STALE_BOUND_SECONDS,
    ChangeListener,
    Credential,
    DuplicateTable,
    IdempotentResponse,
    NewEvent,
    OutboxMessage,
    ReadOnlyUnit,
    StaleVersion,
    StoredEvent,
    TableRow,
    Unavailable,
    Webhook,
    append_in_unit_if_current,
    in_utc,
)

log = logging.getLogger(__name__)

NOTIFY_CHANNEL = "copas_tables"
PING_SECONDS = 1.5  # the health check's wait for the database: it answers within 2 s
_READONLY = "copas_readonly"  # a Connection execution option, read by the SQLite "begin" hook


def read_snapshot(conn: Connection) -> None:
    """Make `conn`'s next transaction one consistent, lock-free read of many tables."""
    if conn.dialect.name == "postgresql":
        conn.execution_options(isolation_level="REPEATABLE READ")
    else:
        conn.execution_options(**{_READONLY: True})  # a deferred BEGIN: no write lock


# --------------------------------------------------------------------------- transient errors

# PostgreSQL SQLSTATEs of failures that pass (https://www.postgresql.org/docs/15/errcodes-appendix.html).
RETRY_SAFE_SQLSTATES = {"40001": "serialization failure", "40P01": "deadlock detected"}
TRANSIENT_SQLSTATES = {  # reason, kind
    "57014": ("statement timeout", "timeout"),
    "55P03": ("lock timeout", "timeout"),
    "25P03": ("idle-in-transaction timeout", "timeout"),
    "57P01": ("the database is shutting down", "shutdown"),
    "57P02": ("the database crashed", "shutdown"),
    "57P03": ("the database is starting up", "shutdown"),
}
TRANSIENT_SQLSTATE_CLASSES = {"08": ("connection failure", "connection"), "53": ("the database is out of resources", "resources")}
CONNECTION_LOST = ("08", "57P")  # an error of these classes may have cut a COMMIT off
SQLITE_BUSY = ("database is locked", "database is busy")


def unavailable(error: BaseException, *, committing: bool = False) -> Unavailable | None:
    """The `Unavailable` that a database error stands for; None when it is not transient
    (a bug, a constraint violation: those must surface as they are).

    `committing`: the error came from a PostgreSQL COMMIT, so a lost connection leaves
    its outcome unknown.
    """
    if isinstance(error, Unavailable):
        return error
    if isinstance(error, sa_exc.TimeoutError):
        return Unavailable("no database connection was free in time", kind="resources")
    if not isinstance(error, sa_exc.DBAPIError):
        return None
    sqlstate = getattr(error.orig, "sqlstate", None) or ""
    if sqlstate in RETRY_SAFE_SQLSTATES:
        return Unavailable(RETRY_SAFE_SQLSTATES[sqlstate], kind="conflict", retry_safe=True)
    known = TRANSIENT_SQLSTATES.get(sqlstate) or TRANSIENT_SQLSTATE_CLASSES.get(sqlstate[:2])
    if known is None and isinstance(error, sa_exc.OperationalError):
        first_line = (str(error.orig).strip().splitlines() or ["connection lost"])[0]
        if error.orig.__class__.__module__.startswith("sqlite3"):
            if not first_line.startswith(SQLITE_BUSY):
                return None  # e.g. "no such table": not something a retry mends
            return Unavailable(f"SQLite: {first_line}", kind="busy")
        if not sqlstate:  # psycopg: refused, closed, timed out before any answer
            return Unavailable(first_line, outcome_unknown=committing)
    if known is None:
        return None
    reason, kind = known
    return Unavailable(reason, kind=kind, outcome_unknown=committing and sqlstate.startswith(CONNECTION_LOST))


@contextmanager
def _translated(*, committing: bool = False) -> Iterator[None]:
    """Raise a transient database error as `Unavailable` (the port's one name for it)."""
    try:
        yield
    except (sa_exc.DBAPIError, sa_exc.TimeoutError) as error:
        translated = unavailable(error, committing=committing)
        if translated is None:
            raise
        raise translated from error


# --------------------------------------------------------------------------- engines


def normalize_url(url: str | URL) -> URL:
    """The URL with the driver we ship: plain `postgresql://` (or `postgres://`)
    means psycopg 3, not SQLAlchemy's default psycopg2."""
    u = make_url(url) if isinstance(url, str) else url
    if u.drivername in ("postgresql", "postgres"):
        u = u.set(drivername="postgresql+psycopg")
    return u


@dataclass(frozen=True)
class Timeouts:
    """How long the store waits on the database, in seconds (0: no limit).

    Chosen so that a request never hangs on a database that is away: each bound
    is a few times what a healthy move needs (milliseconds), and the longest
    (`answer`) stays under a client's usual 10 s timeout, so a client hears
    503 (and retries) instead of timing out. `answer` is the client side's own
    deadline: a frozen server (SIGSTOP, a stalled VM) enforces nothing itself.
    """

    connect: float = 3.0  # open a connection: TCP and the startup exchange (libpq connect_timeout)
    statement: float = 5.0  # PostgreSQL statement_timeout: the longest statement
    lock: float = 3.0  # PostgreSQL lock_timeout: the longest wait for a table's row lock
    idle_in_transaction: float = 15.0  # PostgreSQL ends a transaction left idle this long (a stuck worker's locks)
    answer: float = 6.0  # the client's wait for any answer from PostgreSQL
    pool: float = 3.0  # wait for a free pooled connection
    sqlite_busy: float = 10.0  # SQLite busy_timeout: the wait for its database-wide write lock


SERVICE_TIMEOUTS = Timeouts()
BATCH_TIMEOUTS = Timeouts(statement=0, lock=30.0, idle_in_transaction=0, answer=0, pool=30.0, sqlite_busy=60.0)
"""For migrations and the audit: long statements and transactions are their job."""


def make_engine(url: str | URL, *, timeouts: Timeouts = SERVICE_TIMEOUTS, **kwargs: Any) -> Engine:
    """An Engine set up for this store (also used by the migrations' env.py and the audit)."""
    u = normalize_url(url)
    backend = u.get_backend_name()
    if backend == "sqlite":
        if u.database and u.database != ":memory:" and not u.database.startswith("file:"):
            Path(u.database).parent.mkdir(parents=True, exist_ok=True)
        connect_args = {"timeout": timeouts.sqlite_busy, "check_same_thread": False, **kwargs.pop("connect_args", {})}
        engine = create_engine(u, connect_args=connect_args, **kwargs)
        _install_sqlite_hooks(engine, timeouts)
        return engine
    if backend == "postgresql":
        if kwargs.get("poolclass") is not NullPool:
            kwargs.setdefault("pool_size", 10)
            kwargs.setdefault("max_overflow", 20)
            kwargs.setdefault("pool_pre_ping", True)
            kwargs.setdefault("pool_recycle", 1800)
            kwargs.setdefault("pool_timeout", timeouts.pool or None)
        connect_args = {**postgresql_connect_args(timeouts), **kwargs.pop("connect_args", {})}
        engine = create_engine(u, connect_args=connect_args, **kwargs)
        if timeouts.answer:
            _answer_within(engine, timeouts.answer)
        return engine
    return create_engine(u, **kwargs)


def postgresql_connect_args(timeouts: Timeouts) -> dict[str, Any]:
    """libpq parameters: the connect timeout, the server-side timeouts, and TCP keepalives
    (a server host that vanished is noticed in about 20 s even on an idle connection)."""
    settings = {
        "statement_timeout": timeouts.statement,
        "lock_timeout": timeouts.lock,
        "idle_in_transaction_session_timeout": timeouts.idle_in_transaction,
    }
    options = " ".join(f"-c {name}={int(seconds * 1000)}" for name, seconds in settings.items())
    return {
        "connect_timeout": max(1, round(timeouts.connect)),
        "options": options,
        "keepalives": 1,
        "keepalives_idle": 10,
        "keepalives_interval": 3,
        "keepalives_count": 3,
    }


def _answer_within(engine: Engine, seconds: float) -> None:
    """Connect with `DeadlineConnection`, so no query waits longer than `seconds` for an answer."""

    @event.listens_for(engine, "do_connect")
    def _connect(dialect: Any, record: Any, cargs: Any, cparams: dict[str, Any]) -> Any:
        connection = DeadlineConnection.connect(*cargs, **cparams)
        connection.answer_deadline = seconds
        return connection


class DeadlineConnection(psycopg.Connection[Any]):
    """A psycopg connection that gives up on a server that does not answer in time.

    psycopg waits for a query's answer in `wait()`; with no timeout it would wait
    as long as the server is frozen. Past the deadline the connection is closed
    (its state is unknown) and the query fails as a lost connection would, so the
    store answers `Unavailable`, and SQLAlchemy's pool drops the connection.
    """

    answer_deadline: float = 0.0

    def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
        if timeout is not None or not self.answer_deadline:
            return super().wait(gen, interval, timeout)
        try:
            return super().wait(gen, interval, self.answer_deadline)
        except psycopg.errors._WaitTimeout:  # noqa: SLF001 - psycopg's own signal for an expired wait
            self.pgconn.finish()
            raise psycopg.OperationalError(f"no answer from the database within {self.answer_deadline:g} s") from None


def _install_sqlite_hooks(engine: Engine, timeouts: Timeouts) -> None:
    """pysqlite's own transaction handling is off; we emit BEGIN ourselves.

    (The recipe from SQLAlchemy's SQLite docs, "Serializable isolation /
    Savepoints / Transactional DDL".)
    """

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # no implicit BEGIN from pysqlite
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={int(timeouts.sqlite_busy * 1000)}")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        if conn.get_execution_options().get(_READONLY):
            conn.exec_driver_sql("BEGIN")
        else:
            conn.exec_driver_sql("BEGIN IMMEDIATE")


# --------------------------------------------------------------------------- rows


def _table_row(r: Any) -> TableRow:
    return TableRow(
        table_id=r.table_id,
        version=r.version,
        status=r.status,
        invite_hash=r.invite_hash,
        created_at=r.created_at,
        updated_at=r.updated_at,
        bots_due=r.bots_due,
        webhook_count=r.webhook_count,
    )


def _numbered(expected_version: int, events: Sequence[NewEvent], now: datetime) -> list[StoredEvent]:
    """`events` as they are stored after `expected_version`: numbered on from it, at `now`."""
    return [
        StoredEvent(seq=expected_version + i, type=ev.type, schema_version=ev.schema_version, seat=ev.seat, at=now, data=ev.data)
        for i, ev in enumerate(events, start=1)
    ]


def _outbox_message(r: Any) -> OutboxMessage:
    return OutboxMessage(
        id=r.id,
        table_id=r.table_id,
        seat=r.seat,
        type=r.type,
        payload=r.payload,
        attempts=r.attempts,
        next_attempt_at=r.next_attempt_at,
        status=r.status,
        last_error=r.last_error,
    )


# --------------------------------------------------------------------------- unit of work


# The statements of every move, built once (building one costs more than sending it).
_LOCK_TABLE = select(m.tables).where(m.tables.c.table_id == bindparam("locked_id"))
_LOCK_TABLE_FOR_UPDATE = _LOCK_TABLE.with_for_update(of=m.tables)
# Compare-and-set: a writer that read an older version changes nothing. On PostgreSQL
# the same statement queues the notification (delivered to the listeners only when,
# and if, the transaction commits): one round trip less.
_ADVANCE_BASE = (
    update(m.tables)
    .where(m.tables.c.table_id == bindparam("advanced_id"), m.tables.c.version == bindparam("expected_version"))
    .values(version=bindparam("new_version"), status=bindparam("new_status"), updated_at=bindparam("now"), bots_due=bindparam("due"))
)
_ADVANCE = _ADVANCE_BASE.returning(m.tables.c.version)
_ADVANCE_AND_NOTIFY = _ADVANCE_BASE.returning(func.pg_notify(NOTIFY_CHANNEL, bindparam("payload", type_=Text())))
_INSERT_EVENTS = insert(m.events)
# `SqlStore.append_if_current` on PostgreSQL: the compare-and-set (which also checks that
# no seat has a webhook, on the row: a concurrent change of webhooks holds the row), the
# notification and the events in one autocommitted statement, so one round trip. The
# events arrive as one JSON array of rows, so one prepared statement fits any number
# (and one text parameter is cheaper to send than one per column).
_APPEND_IF_CURRENT = f"""
WITH advanced AS (
    UPDATE tables SET version = %(new_version)s, status = %(status)s, updated_at = %(now)s, bots_due = %(due)s
    WHERE table_id = %(table_id)s AND version = %(expected_version)s AND webhook_count = 0
    RETURNING pg_notify('{NOTIFY_CHANNEL}', %(payload)s)
)
INSERT INTO events (table_id, seq, type, schema_version, seat, at, data)
SELECT %(table_id)s, e.seq, e.type, e.schema_version, e.seat, %(now)s, e.data
FROM advanced, jsonb_to_recordset(%(events)s::jsonb) AS e(seq integer, type text, schema_version integer, seat integer, data jsonb)
"""


class SqlUnitOfWork:
    """One transaction on one Connection (see `SqlStore.unit_of_work`)."""

    def __init__(self, conn: Connection, *, readonly: bool) -> None:
        self._conn = conn
        self._readonly = readonly
        self._postgres = conn.dialect.name == "postgresql"
        self.committed = False
        self._hookless: set[str] = set()  # tables locked in this unit that have no webhook

    def _writing(self) -> None:
        if self._readonly:
            raise ReadOnlyUnit("this unit of work was opened with readonly=True")

    def _insert_ignoring_conflicts(self, table: Any, values: dict[str, Any]) -> bool:
        """INSERT ... ON CONFLICT DO NOTHING; True when the row went in."""
        dialect = pg_dialect if self._postgres else sqlite_dialect
        stmt = dialect.insert(table).values(**values).on_conflict_do_nothing()
        # rowcount is not reliable for INSERT (SQLAlchemy leaves it -1 on psycopg)
        stmt = stmt.returning(*table.primary_key.columns)
        return self._conn.execute(stmt).first() is not None

    # -- tables and streams

    def create_table(self, table_id: str, invite_hash: str, now: datetime) -> None:
        self._writing()
        inserted = self._insert_ignoring_conflicts(
            m.tables,
            dict(
                table_id=table_id,
                version=0,
                status="waiting",
                invite_hash=invite_hash,
                created_at=now,
                updated_at=now,
            ),
        )
        if not inserted:
            raise DuplicateTable(table_id)

    def lock_table(self, table_id: str) -> TableRow | None:
        # The row counts the table's webhooks: most tables have none, and then the
        # command's notifications need no lookup per seat (see `webhook`).
        stmt = _LOCK_TABLE_FOR_UPDATE if self._postgres else _LOCK_TABLE
        r = self._conn.execute(stmt, {"locked_id": table_id}).one_or_none()
        if r is None:
            return None
        if r.webhook_count == 0:
            self._hookless.add(table_id)
        return _table_row(r)

    def table_by_invite(self, invite_hash: str, *, lock: bool = False) -> TableRow | None:
        stmt = select(m.tables).where(m.tables.c.invite_hash == invite_hash)
        if lock and self._postgres:
            stmt = stmt.with_for_update()
        r = self._conn.execute(stmt).one_or_none()
        return _table_row(r) if r else None

    def table_row(self, table_id: str) -> TableRow | None:
        r = self._conn.execute(select(m.tables).where(m.tables.c.table_id == table_id)).one_or_none()
        return _table_row(r) if r else None

    def load_events(self, table_id: str, *, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        e = m.events
        stmt = select(e).where(e.c.table_id == table_id, e.c.seq > after).order_by(e.c.seq)
        if limit is not None:
            stmt = stmt.limit(limit)
        return [
            StoredEvent(
                seq=r.seq,
                type=r.type,
                schema_version=r.schema_version,
                seat=r.seat,
                at=r.at,
                data=r.data,
            )
            for r in self._conn.execute(stmt)
        ]

    def append(
        self,
        table_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        status: str,
        now: datetime,
        bots_due: bool = False,
    ) -> list[StoredEvent]:
        self._writing()
        new_version = expected_version + len(events)
        # Compare-and-set on the version, with the notification on PostgreSQL (`_ADVANCE`).
        changed = _ADVANCE_AND_NOTIFY if self._postgres and events else _ADVANCE
        values = {
            "advanced_id": table_id,
            "expected_version": expected_version,
            "new_version": new_version,
            "new_status": status,
            "now": now,
            "due": bots_due,
            "payload": f"{table_id}:{new_version}",
        }
        if self._conn.execute(changed, values).first() is None:
            current = self.table_row(table_id)
            raise StaleVersion(
                f"table {table_id}: expected version {expected_version}, "
                + ("no such table" if current is None else f"found {current.version}")
            )
        stored = _numbered(expected_version, events, now)
        if stored:
            self._conn.execute(
                _INSERT_EVENTS,
                [
                    dict(
                        table_id=table_id,
                        seq=s.seq,
                        type=s.type,
                        schema_version=s.schema_version,
                        seat=s.seat,
                        at=s.at,
                        data=s.data,
                    )
                    for s in stored
                ],
            )
        return stored

    def tables_awaiting_bots(self, limit: int) -> list[str]:
        t = m.tables
        stmt = select(t.c.table_id).where(t.c.bots_due).order_by(t.c.updated_at).limit(limit)
        return [r.table_id for r in self._conn.execute(stmt)]

    def clear_bots_due(self, table_id: str, version: int) -> None:
        self._writing()
        t = m.tables
        self._conn.execute(update(t).where(t.c.table_id == table_id, t.c.version == version).values(bots_due=False))

    # -- credentials

    def add_credential(self, credential: Credential) -> None:
        self._writing()
        self._conn.execute(
            insert(m.credentials).values(
                token_hash=credential.token_hash,
                table_id=credential.table_id,
                role=credential.role,
                seat=credential.seat,
                spectator=credential.spectator,
                created_at=credential.created_at,
            )
        )

    def credential(self, token_hash: str) -> Credential | None:
        c = m.credentials
        r = self._conn.execute(select(c).where(c.c.token_hash == token_hash)).one_or_none()
        if r is None:
            return None
        return Credential(
            token_hash=r.token_hash,
            table_id=r.table_id,
            role=r.role,
            seat=r.seat,
            spectator=r.spectator,
            created_at=r.created_at,
        )

    def count_spectators(self, table_id: str) -> int:
        c = m.credentials
        stmt = select(func.count()).select_from(c).where(c.c.table_id == table_id, c.c.role == "spectator")
        return int(self._conn.execute(stmt).scalar_one())

    # -- idempotency

    def idempotent_response(self, scope: str, key: str, now: datetime | None = None) -> IdempotentResponse | None:
        i = m.idempotency
        cutoff = (now or datetime.now(UTC)) - IDEMPOTENCY_TTL
        r = self._conn.execute(
            select(i).where(i.c.scope == scope, i.c.key == key, i.c.created_at > cutoff)
        ).one_or_none()
        if r is None:
            return None
        return IdempotentResponse(
            request_hash=r.request_hash, status=r.status, body=r.body, headers=dict(r.headers or {})
        )

    def record_idempotent(self, scope: str, key: str, response: IdempotentResponse, now: datetime) -> IdempotentResponse:
        self._writing()
        i = m.idempotency
        dialect = pg_dialect if self._postgres else sqlite_dialect
        values = dict(
            scope=scope,
            key=key,
            request_hash=response.request_hash,
            status=response.status,
            body=response.body,
            headers=dict(response.headers),
            created_at=now,
        )
        stmt = dialect.insert(i).values(**values)
        # One statement: a new key goes in, an expired one is replaced, a live one stays.
        stmt = stmt.on_conflict_do_update(
            index_elements=[i.c.scope, i.c.key],
            set_={name: stmt.excluded[name] for name in values if name not in ("scope", "key")},
            where=i.c.created_at <= now - IDEMPOTENCY_TTL,
        ).returning(i.c.scope)
        if self._conn.execute(stmt).first() is not None:
            return response
        kept = self.idempotent_response(scope, key, now)
        assert kept is not None  # a live answer was there: the conflict says so
        return kept

    def purge_idempotent(self, before: datetime, limit: int) -> int:
        self._writing()
        i = m.idempotency
        oldest = select(i.c.scope, i.c.key).where(i.c.created_at < before).order_by(i.c.created_at).limit(limit)
        if self._postgres:
            oldest = oldest.with_for_update(skip_locked=True)
        doomed = [tuple(r) for r in self._conn.execute(oldest)]
        if doomed:
            self._conn.execute(delete(i).where(tuple_(i.c.scope, i.c.key).in_(doomed)))
        return len(doomed)

    # -- webhooks and the outbox

    def set_webhook(self, webhook: Webhook | None, *, table_id: str, seat: int) -> None:
        self._writing()
        self._hookless.discard(table_id)
        w = m.webhooks
        self._conn.execute(delete(w).where(w.c.table_id == table_id, w.c.seat == seat))
        if webhook is not None:
            self._conn.execute(
                insert(w).values(
                    table_id=table_id, seat=seat, url=webhook.url, secret=webhook.secret, disabled=webhook.disabled
                )
            )
        counted = select(func.count()).select_from(w).where(w.c.table_id == table_id).scalar_subquery()
        self._conn.execute(update(m.tables).where(m.tables.c.table_id == table_id).values(webhook_count=counted))

    def webhook(self, table_id: str, seat: int) -> Webhook | None:
        if table_id in self._hookless:
            return None  # counted when the table was locked: none, and none set since
        w = m.webhooks
        r = self._conn.execute(select(w).where(w.c.table_id == table_id, w.c.seat == seat)).one_or_none()
        if r is None:
            return None
        return Webhook(table_id=r.table_id, seat=r.seat, url=r.url, secret=r.secret, disabled=bool(r.disabled))

    def enqueue(self, message: OutboxMessage) -> None:
        self._writing()
        self._conn.execute(
            insert(m.outbox).values(
                id=message.id,
                table_id=message.table_id,
                seat=message.seat,
                type=message.type,
                payload=message.payload,
                attempts=message.attempts,
                next_attempt_at=message.next_attempt_at,
                status=message.status,
                last_error=message.last_error,
                created_at=datetime.now(UTC),
            )
        )

    def outbox_backlog(self) -> tuple[int, datetime | None]:
        o = m.outbox
        stmt = select(func.count(), func.min(o.c.next_attempt_at)).where(o.c.status == "pending")
        count, earliest = self._conn.execute(stmt).one()
        if earliest is not None and earliest.tzinfo is None:
            earliest = earliest.replace(tzinfo=UTC)  # SQLite: an aggregate skips the column's type
        return int(count), earliest

    def claim_due(self, now: datetime, limit: int) -> list[OutboxMessage]:
        o = m.outbox
        stmt = (
            select(o)
            .where(o.c.status == "pending", o.c.next_attempt_at <= now)
            .order_by(o.c.next_attempt_at, o.c.id)
            .limit(limit)
        )
        if self._postgres:
            stmt = stmt.with_for_update(skip_locked=True)
        return [_outbox_message(r) for r in self._conn.execute(stmt)]

    def update_message(self, message: OutboxMessage, *, expected_attempts: int | None = None) -> bool:
        self._writing()
        o = m.outbox
        condition = o.c.id == message.id
        if expected_attempts is not None:
            condition = condition & (o.c.attempts == expected_attempts)
        written = self._conn.execute(
            update(o)
            .where(condition)
            .returning(o.c.id)
            .values(
                attempts=message.attempts,
                next_attempt_at=message.next_attempt_at,
                status=message.status,
                last_error=message.last_error,
            )
        ).first()
        return written is not None

    def commit(self) -> None:
        with _translated(committing=self._postgres):
            self._conn.commit()
        self.committed = True


# --------------------------------------------------------------------------- the store


class SqlStore:
    """The `Store` over a SQLAlchemy URL (`postgresql+psycopg://...` or `sqlite:///path`).

    The schema must already exist: run `api.store.migrate.upgrade(url)` first.
    """

    def __init__(self, url: str, **engine_kwargs: Any) -> None:
        self.url = normalize_url(url)
        self.engine = make_engine(self.url, **engine_kwargs)
        self._postgres = self.engine.dialect.name == "postgresql"
        # `append_if_current`'s one statement commits by itself: its connections are opened in
        # autocommit mode once, rather than switched to it and back on every checkout.
        self.autocommit_engine = self.engine
        if self._postgres:
            pooled = engine_kwargs.get("poolclass") is not NullPool
            # Sized for the moves in flight at once: an overflow connection is opened for one
            # statement and closed after it, which costs far more than the statement.
            sized = {"pool_size": 10, "max_overflow": 10} if pooled else {}
            self.autocommit_engine = make_engine(self.url, isolation_level="AUTOCOMMIT", **{**sized, **engine_kwargs})
        self._listener: _PgListener | None = None
        self._listener_guard = threading.Lock()
        self._disposed = False
        self._probe_guard = threading.Lock()
        self._prober: ThreadPoolExecutor | None = None
        self._probe: Future[bool] | None = None

    @contextmanager
    def unit_of_work(self, *, readonly: bool = False) -> Iterator[SqlUnitOfWork]:
        with _translated(), self.engine.connect() as conn:
            if readonly:
                conn.execution_options(**{_READONLY: True})
            conn.begin()
            uow = SqlUnitOfWork(conn, readonly=readonly)
            try:
                yield uow
            finally:
                # Anything not committed (an exception, or no commit() call) is undone.
                if conn.in_transaction():
                    try:
                        conn.rollback()
                    except sa_exc.DBAPIError:
                        conn.invalidate()  # the connection is gone, and its transaction with it

    def append_if_current(
        self,
        table_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        status: str,
        now: datetime,
        bots_due: bool = False,
    ) -> list[StoredEvent] | None:
        if not self._postgres or not events:
            return append_in_unit_if_current(self, table_id, expected_version, events, status=status, now=now, bots_due=bots_due)
        new_version = expected_version + len(events)
        stored = _numbered(expected_version, events, now)
        values = {
            "table_id": table_id,
            "expected_version": expected_version,
            "new_version": new_version,
            "status": status,
            "now": in_utc(now),  # as UtcDateTime binds it for the locked way
            "due": bots_due,
            "payload": f"{table_id}:{new_version}",
            "events": json.dumps([{"seq": e.seq, "type": e.type, "schema_version": e.schema_version, "seat": e.seat, "data": e.data} for e in stored]),
        }
        # A lost connection leaves an autocommitted statement's outcome unknown, as a COMMIT's.
        with _translated(committing=True), self.autocommit_engine.connect() as conn:
            inserted = conn.exec_driver_sql(_APPEND_IF_CURRENT, values).rowcount
        return stored if inserted == len(stored) else None

    def _get_listener(self) -> _PgListener:
        with self._listener_guard:
            if self._listener is None:
                if self._disposed:
                    raise RuntimeError("the store has been disposed")
                self._listener = _PgListener(self.url)
                self._listener.start()
            return self._listener

    def changes(self) -> _PgListener | None:
        """On PostgreSQL the listener (started here); SQLite has no feed."""
        return self._get_listener() if self._postgres else None

    def ping(self, timeout: float = PING_SECONDS) -> bool:
        """True when the database answers `SELECT 1` within `timeout` seconds.

        Never blocks longer, whatever the database does: the probe runs on a
        thread of its own, and while one probe is stuck (a frozen server) the
        next calls wait on that same probe instead of starting more.
        """
        with self._probe_guard:
            if self._disposed:
                return False
            if self._prober is None:
                self._prober = ThreadPoolExecutor(max_workers=1, thread_name_prefix="copas-db-probe")
            if self._probe is None or self._probe.done():
                self._probe = self._prober.submit(self._ping_once)
            probe = self._probe
        try:
            return probe.result(timeout)
        except FutureTimeout:
            log.warning("database ping: no answer within %g s", timeout)
            return False

    def _ping_once(self) -> bool:
        try:
            with self.engine.connect() as conn:
                conn.execution_options(**{_READONLY: True})
                conn.execute(select(1)).scalar_one()
            return True
        except Exception as error:  # noqa: BLE001 - a health check reports, it never raises
            translated = unavailable(error)
            log.warning("database ping failed: %s", translated.reason if translated else repr(error))
            return False

    def listener_state(self) -> str:
        if not self._postgres:
            return "not_used"  # SQLite: waits poll the table row
        listener = self._listener
        if listener is None:
            return "not_started"  # started by the first long poll
        return "connected" if listener.healthy else "reconnecting"

    def dispose(self) -> None:
        with self._listener_guard:
            self._disposed = True
            listener, self._listener = self._listener, None
        if listener is not None:
            listener.stop()
        with self._probe_guard:
            prober, self._prober = self._prober, None
        if prober is not None:
            prober.shutdown(wait=False, cancel_futures=True)
        self.engine.dispose()
        self.autocommit_engine.dispose()


# --------------------------------------------------------------------------- LISTEN/NOTIFY


class _PgListener:
    """A daemon thread on its own psycopg connection, `LISTEN copas_tables`:
    the node's `ChangeFeed`.

    Subscribers (the service's version map) hear every notification
    `table_id:version`, and `(None, None)` whenever the listener connects or
    loses its connection (they may have missed some, and re-check).

    Every `HEARTBEAT_SECONDS` the listener makes a round trip on its
    connection. PostgreSQL delivers a listening session's notifications before
    the answer to its next query, so once a round trip that started at `t`
    has come back, every commit finished before `t` has been heard: the feed
    is `live` while the last such `t` is under `STALE_BOUND_SECONDS` old.
    TCP keepalives and a user timeout make a dead connection fail rather
    than hang.
    """

    HEARTBEAT_SECONDS = 0.5
    MAX_BACKOFF_SECONDS = 5.0
    LIVENESS_OPTIONS = {  # beside the service's timeouts: a dead connection fails within the bound
        "keepalives_idle": 5,
        "keepalives_interval": 1,
        "keepalives_count": 3,
        "tcp_user_timeout": int(STALE_BOUND_SECONDS * 1000),
    }

    def __init__(self, url: URL) -> None:
        # psycopg takes a libpq URL: same URL without SQLAlchemy's "+psycopg".
        self._conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self._subscribers: list[ChangeListener] = []
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._healthy = False
        self._heard_until = float("-inf")  # monotonic start of the last completed round trip
        self._thread = threading.Thread(target=self._run, name="copas-pg-listener", daemon=True)

    @property
    def healthy(self) -> bool:
        return self._healthy

    @property
    def live(self) -> bool:
        return self._healthy and time.monotonic() - self._heard_until < STALE_BOUND_SECONDS

    def subscribe(self, listener: ChangeListener) -> None:
        with self._guard:
            self._subscribers.append(listener)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Ask the thread to end; it closes its connection within a heartbeat (no wait here)."""
        self._stop.set()

    def _wake(self, table_id: str | None, version: int | None = None) -> None:
        with self._guard:
            subscribers = list(self._subscribers)
        for subscriber in subscribers:
            try:
                subscriber(table_id, version)
            except Exception:  # noqa: BLE001 - one subscriber's failure must not stop the feed
                log.exception("a change subscriber failed")

    def _deliver(self, notes: Iterator[Any]) -> None:
        for note in notes:
            table_id, _, version = note.payload.rpartition(":")
            self._wake(table_id, int(version) if version.isdigit() else None)

    def _run(self) -> None:
        backoff = 0.25
        while not self._stop.is_set():
            try:
                options = {**postgresql_connect_args(SERVICE_TIMEOUTS), **self.LIVENESS_OPTIONS}
                with DeadlineConnection.connect(self._conninfo, autocommit=True, **options) as conn:
                    conn.answer_deadline = SERVICE_TIMEOUTS.answer
                    started = time.monotonic()
                    conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self._healthy = True
                    backoff = 0.25
                    self._wake(None)  # anything sent while we were away: re-check
                    self._heard_until = started
                    while not self._stop.is_set():
                        self._deliver(conn.notifies(timeout=self.HEARTBEAT_SECONDS))
                        started = time.monotonic()
                        conn.execute("SELECT 1")  # the heartbeat: notices a dead connection too
                        self._deliver(conn.notifies(timeout=0))  # those that came with its answer
                        self._heard_until = started
            except Exception:  # noqa: BLE001 - keep listening whatever happens
                if self._stop.is_set():
                    break
                log.warning("LISTEN %s connection lost; polling until it is back", NOTIFY_CHANNEL)
            finally:
                self._healthy = False
                self._wake(None)  # the subscribers stop trusting what they heard
            self._stop.wait(backoff)
            backoff = min(backoff * 2, self.MAX_BACKOFF_SECONDS)
