"""The in-memory twin of the SQL store, for fast service tests.

It behaves like the database where the service can tell: one lock held for
the whole unit of work (so units serialize, like row locks), nothing visible
unless committed (writes made in a unit are undone if it ends without
`commit()`), JSON values copied through `json` (so what comes back is what a
database would give back), and each commit told to its change feed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from .ports import (
    IDEMPOTENCY_TTL,
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
    Webhook,
    append_in_unit_if_current,
    in_utc,
)

_MISSING = object()


def _json_copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


class _Idem:
    __slots__ = ("response", "created_at")

    def __init__(self, response: IdempotentResponse, created_at: datetime) -> None:
        self.response = response
        self.created_at = created_at


class MemoryUnitOfWork:
    """Writes go straight to the store's dicts (the lock keeps them private)
    with an undo log; `rollback` replays the log backwards."""

    def __init__(self, store: MemoryStore, *, readonly: bool) -> None:
        self._s = store
        self._readonly = readonly
        self._undo: list[Callable[[], None]] = []
        self._changed_tables: dict[str, int] = {}  # table -> version appended in this unit
        self.committed = False

    # -- plumbing

    def _writing(self) -> None:
        if self._readonly:
            raise ReadOnlyUnit("this unit of work was opened with readonly=True")

    def _set(self, d: dict[Any, Any], key: Any, value: Any) -> None:
        old = d.get(key, _MISSING)
        self._undo.append(lambda: d.__setitem__(key, old) if old is not _MISSING else d.pop(key, None))
        d[key] = value

    def _delete(self, d: dict[Any, Any], key: Any) -> None:
        if key in d:
            old = d.pop(key)
            self._undo.append(lambda: d.__setitem__(key, old))

    def rollback(self) -> None:
        while self._undo:
            self._undo.pop()()

    # -- tables and streams

    def create_table(self, table_id: str, invite_hash: str, now: datetime) -> None:
        self._writing()
        s = self._s
        if table_id in s.tables or invite_hash in s.invites:
            raise DuplicateTable(table_id)
        now = in_utc(now)
        self._set(s.tables, table_id, TableRow(table_id, 0, "waiting", invite_hash, now, now))
        self._set(s.invites, invite_hash, table_id)
        self._set(s.events, table_id, [])

    def lock_table(self, table_id: str) -> TableRow | None:
        return self._s.tables.get(table_id)  # the unit already holds the store's lock

    def table_by_invite(self, invite_hash: str, *, lock: bool = False) -> TableRow | None:
        table_id = self._s.invites.get(invite_hash)
        return None if table_id is None else self._s.tables.get(table_id)

    def table_row(self, table_id: str) -> TableRow | None:
        return self._s.tables.get(table_id)

    def load_events(self, table_id: str, *, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        stream = self._s.events.get(table_id, [])
        # seq n is at index n - 1
        chosen = stream[max(after, 0) :] if limit is None else stream[max(after, 0) : max(after, 0) + max(limit, 0)]
        return [StoredEvent(e.seq, e.type, e.schema_version, e.seat, e.at, _json_copy(e.data)) for e in chosen]

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
        s = self._s
        row = s.tables.get(table_id)
        if row is None or row.version != expected_version:
            raise StaleVersion(
                f"table {table_id}: expected version {expected_version}, "
                + ("no such table" if row is None else f"found {row.version}")
            )
        now = in_utc(now)
        stored = [
            StoredEvent(expected_version + i, ev.type, ev.schema_version, ev.seat, now, _json_copy(ev.data))
            for i, ev in enumerate(events, start=1)
        ]
        stream = s.events[table_id]
        old_len = len(stream)
        stream.extend(stored)
        self._undo.append(lambda: stream.__delitem__(slice(old_len, None)))
        new_row = replace(row, version=expected_version + len(stored), status=status, updated_at=now, bots_due=bots_due)
        self._set(s.tables, table_id, new_row)
        self._changed_tables[table_id] = new_row.version
        return [StoredEvent(e.seq, e.type, e.schema_version, e.seat, e.at, _json_copy(e.data)) for e in stored]

    def tables_awaiting_bots(self, limit: int) -> list[str]:
        due = sorted((row for row in self._s.tables.values() if row.bots_due), key=lambda row: row.updated_at)
        return [row.table_id for row in due[:limit]]

    def clear_bots_due(self, table_id: str, version: int) -> None:
        self._writing()
        row = self._s.tables.get(table_id)
        if row is not None and row.version == version:
            self._set(self._s.tables, table_id, replace(row, bots_due=False))

    # -- credentials

    def add_credential(self, credential: Credential) -> None:
        self._writing()
        if credential.table_id not in self._s.tables:
            raise KeyError(f"no table {credential.table_id}")  # the database's foreign key
        if credential.token_hash in self._s.credentials:
            raise KeyError(f"duplicate token hash {credential.token_hash}")
        self._set(self._s.credentials, credential.token_hash, credential)

    def credential(self, token_hash: str) -> Credential | None:
        return self._s.credentials.get(token_hash)

    def count_spectators(self, table_id: str) -> int:
        return sum(1 for c in self._s.credentials.values() if c.table_id == table_id and c.role == "spectator")

    # -- idempotency

    def _live(self, scope: str, key: str, now: datetime) -> _Idem | None:
        entry = self._s.idempotency.get((scope, key))
        if entry is None or entry.created_at <= now - IDEMPOTENCY_TTL:
            return None
        return entry

    def idempotent_response(self, scope: str, key: str, now: datetime | None = None) -> IdempotentResponse | None:
        entry = self._live(scope, key, in_utc(now) if now is not None else datetime.now(UTC))
        return None if entry is None else entry.response

    def record_idempotent(self, scope: str, key: str, response: IdempotentResponse, now: datetime) -> IdempotentResponse:
        self._writing()
        now = in_utc(now)
        live = self._live(scope, key, now)
        if live is not None:
            return live.response
        kept = IdempotentResponse(response.request_hash, response.status, response.body, _json_copy(dict(response.headers)))
        self._set(self._s.idempotency, (scope, key), _Idem(kept, now))
        return kept

    def purge_idempotent(self, before: datetime, limit: int) -> int:
        self._writing()
        before = in_utc(before)
        old = [k for k, entry in self._s.idempotency.items() if entry.created_at < before][: max(limit, 0)]
        for k in old:
            self._delete(self._s.idempotency, k)
        return len(old)

    # -- webhooks and the outbox

    def set_webhook(self, webhook: Webhook | None, *, table_id: str, seat: int) -> None:
        self._writing()
        s = self._s
        if webhook is None:
            self._delete(s.webhooks, (table_id, seat))
        else:
            if table_id not in s.tables:
                raise KeyError(f"no table {table_id}")
            self._set(s.webhooks, (table_id, seat), Webhook(table_id, seat, webhook.url, webhook.secret, webhook.disabled))
        row = s.tables.get(table_id)
        if row is not None:
            count = sum(1 for hooked, _ in s.webhooks if hooked == table_id)
            self._set(s.tables, table_id, replace(row, webhook_count=count))

    def webhook(self, table_id: str, seat: int) -> Webhook | None:
        return self._s.webhooks.get((table_id, seat))

    def enqueue(self, message: OutboxMessage) -> None:
        self._writing()
        if message.id in self._s.outbox:
            raise KeyError(f"duplicate outbox id {message.id}")
        in_utc(message.next_attempt_at)
        self._set(self._s.outbox, message.id, message)

    def outbox_backlog(self) -> tuple[int, datetime | None]:
        pending = [m.next_attempt_at for m in self._s.outbox.values() if m.status == "pending"]
        return len(pending), min(pending, default=None)

    def claim_due(self, now: datetime, limit: int) -> list[OutboxMessage]:
        now = in_utc(now)
        due = [m for m in self._s.outbox.values() if m.status == "pending" and m.next_attempt_at <= now]
        due.sort(key=lambda m: (m.next_attempt_at, m.id))
        return due[: max(limit, 0)]

    def update_message(self, message: OutboxMessage, *, expected_attempts: int | None = None) -> bool:
        self._writing()
        old = self._s.outbox.get(message.id)
        if old is None or (expected_attempts is not None and old.attempts != expected_attempts):
            return False
        self._set(
            self._s.outbox,
            message.id,
            OutboxMessage(
                old.id,
                old.table_id,
                old.seat,
                old.type,
                old.payload,
                message.attempts,
                in_utc(message.next_attempt_at),
                message.status,
                message.last_error,
            ),
        )
        return True

    def commit(self) -> None:
        self._undo.clear()
        self.committed = True
        if self._changed_tables:
            changed, self._changed_tables = self._changed_tables, {}
            for table_id, version in changed.items():
                self._s.feed.publish(table_id, version)


class MemoryFeed:
    """The commits of this process (the only one that sees the dicts): always live."""

    live = True

    def __init__(self) -> None:
        self._listeners: list[ChangeListener] = []

    def subscribe(self, listener: ChangeListener) -> None:
        self._listeners.append(listener)

    def publish(self, table_id: str, version: int) -> None:
        for listener in self._listeners:
            listener(table_id, version)


class MemoryStore:
    """The `Store` in a few dicts, behind one re-entrant lock."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.tables: dict[str, TableRow] = {}
        self.invites: dict[str, str] = {}
        self.events: dict[str, list[StoredEvent]] = {}
        self.credentials: dict[str, Credential] = {}
        self.idempotency: dict[tuple[str, str], _Idem] = {}
        self.webhooks: dict[tuple[str, int], Webhook] = {}
        self.outbox: dict[str, OutboxMessage] = {}
        self.feed = MemoryFeed()

    @contextmanager
    def unit_of_work(self, *, readonly: bool = False) -> Iterator[MemoryUnitOfWork]:
        with self.lock:
            uow = MemoryUnitOfWork(self, readonly=readonly)
            try:
                yield uow
            finally:
                uow.rollback()  # a no-op after commit()

    append_if_current = append_in_unit_if_current  # a unit of work here costs no round trip

    def changes(self) -> MemoryFeed:
        return self.feed

    def ping(self) -> bool:
        return True

    def listener_state(self) -> str:
        return "not_used"  # waiters are woken in process, on commit

    def dispose(self) -> None:
        pass
