"""The store's interface: what the service may ask of any event store.

Two implementations stand behind it: `api.store.sql` (SQLAlchemy, PostgreSQL
in production and SQLite for `make serve`) and `api.store.memory` (an
in-memory twin for fast service tests). The store knows nothing of the rules:
it keeps event streams as JSON, credentials as hashes, idempotent responses
and the webhook outbox.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol


def in_utc(moment: datetime) -> datetime:
    """`moment` in UTC. A store keeps only timezone-aware datetimes: a naive one is refused (it is always a bug here)."""
    if moment.tzinfo is None:
        raise ValueError(f"naive datetime {moment!r}: pass a timezone-aware one")
    return moment.astimezone(UTC)


IDEMPOTENCY_TTL = timedelta(hours=24)
"""How long an Idempotency-Key's answer is kept (the contract's 24 hours)."""


class StaleVersion(Exception):
    """`append` was told a version that is no longer the table's (or no such table)."""


class DuplicateTable(Exception):
    """`create_table` with a table_id or invite_hash that is already taken."""


class Unavailable(Exception):
    """The database is away or gave up for a moment: connection lost or refused, shutting
    down, a timeout, a serialization failure or deadlock. Transient: the same request may
    succeed when retried.

    The unit of work was rolled back, unless `outcome_unknown`: the connection was lost
    while committing, so its writes may or may not have been kept. `retry_safe`: the
    database itself undid the transaction (serialization failure, deadlock), so running
    the unit of work again at once is safe and likely to succeed.
    """

    def __init__(self, reason: str, *, kind: str = "connection", outcome_unknown: bool = False, retry_safe: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind  # one of a few words (connection, timeout, conflict, shutdown, resources, busy): a metric's label
        self.outcome_unknown = outcome_unknown
        self.retry_safe = retry_safe


class ReadOnlyUnit(Exception):
    """A write was attempted in a unit of work opened with `readonly=True`."""


@dataclass(frozen=True)
class NewEvent:
    """An event about to be appended: the store assigns its seq."""

    type: str
    seat: int | None
    data: dict[str, Any]
    schema_version: int = 1


@dataclass(frozen=True)
class StoredEvent:
    """One event as kept in a table's stream."""

    seq: int
    type: str
    schema_version: int
    seat: int | None
    at: datetime  # timezone-aware UTC
    data: dict[str, Any]


@dataclass(frozen=True)
class TableRow:
    """The summary row of a table: what must be found without a replay."""

    table_id: str
    version: int
    status: str  # waiting | passing | playing | finished
    invite_hash: str
    created_at: datetime
    updated_at: datetime
    bots_due: bool = False  # a bot that thinks apart (strong) must act: `copas worker` plays it
    webhook_count: int = 0  # seats with a webhook: a command for them must queue notifications


@dataclass(frozen=True)
class Credential:
    """A bearer token's record (the token itself is never stored)."""

    token_hash: str
    table_id: str
    role: str  # player | spectator
    seat: int | None  # for players
    spectator: int | None  # for spectators: 1, 2, ... in joining order
    created_at: datetime


@dataclass(frozen=True)
class IdempotentResponse:
    """A stored answer to a write, replayed for a retry with the same key."""

    request_hash: str
    status: int
    body: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Webhook:
    """A viewer's webhook: where to POST notifications, and the signing secret."""

    table_id: str
    seat: int
    url: str
    secret: str  # "whsec_..." (base64 key after the prefix)
    disabled: bool


@dataclass(frozen=True)
class OutboxMessage:
    """A notification waiting for delivery (or delivered, or given up on)."""

    id: str  # the webhook-id: "msg_..."
    table_id: str
    seat: int
    type: str  # your_turn | match_finished
    payload: str  # the exact JSON body to POST
    attempts: int
    next_attempt_at: datetime
    status: str  # pending | delivered | failed
    last_error: str | None


class UnitOfWork(Protocol):
    """One transaction. Leaving the `with` block without `commit()` rolls back."""

    # -- tables and streams
    def create_table(self, table_id: str, invite_hash: str, now: datetime) -> None: ...
    def lock_table(self, table_id: str) -> TableRow | None:
        """The row, locked until the end of the transaction (serializes commands)."""
    def table_by_invite(self, invite_hash: str, *, lock: bool = False) -> TableRow | None: ...
    def table_row(self, table_id: str) -> TableRow | None: ...
    def load_events(self, table_id: str, *, after: int = 0, limit: int | None = None) -> list[StoredEvent]: ...
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
        """Append after `expected_version`, update the row; notify waiters on commit."""
    def tables_awaiting_bots(self, limit: int) -> list[str]:
        """Tables whose row says a thinking bot must act, longest waiting first."""
    def clear_bots_due(self, table_id: str, version: int) -> None:
        """Lower the flag of a table still at `version` (it had nothing for a bot to do)."""

    # -- credentials
    def add_credential(self, credential: Credential) -> None: ...
    def credential(self, token_hash: str) -> Credential | None: ...
    def count_spectators(self, table_id: str) -> int: ...

    # -- idempotency (keyed by table, token hash and the client's key)
    def idempotent_response(self, scope: str, key: str, now: datetime | None = None) -> IdempotentResponse | None:
        """The live (under 24 h old at `now`, default the real clock) entry of this key."""
    def record_idempotent(self, scope: str, key: str, response: IdempotentResponse, now: datetime) -> IdempotentResponse:
        """Keep `response` as the key's answer (replacing an expired one), unless a live
        answer is already there: the answer kept, ours or the earlier one. Written in
        this unit of work, so it commits (or not) together with the command's events."""
    def purge_idempotent(self, before: datetime, limit: int) -> int:
        """Delete up to `limit` answers created before `before`; how many went."""

    # -- webhooks and the outbox
    def set_webhook(self, webhook: Webhook | None, *, table_id: str, seat: int) -> None: ...
    def webhook(self, table_id: str, seat: int) -> Webhook | None: ...
    def enqueue(self, message: OutboxMessage) -> None: ...
    def outbox_backlog(self) -> tuple[int, datetime | None]:
        """How many messages are pending, and the earliest `next_attempt_at` among them."""
    def claim_due(self, now: datetime, limit: int) -> list[OutboxMessage]:
        """Pending messages due by `now`, locked (SKIP LOCKED on PostgreSQL)."""
    def update_message(self, message: OutboxMessage, *, expected_attempts: int | None = None) -> bool:
        """Store the message's new state; with `expected_attempts`, only if the stored
        attempts still equal it (a lease not taken over since). True when written."""

    def commit(self) -> None: ...


ChangeListener = Callable[[str | None, int | None], None]


class ChangeFeed(Protocol):
    """Every node's commits, as they happen: what keeps a node's version map current.

    A subscriber hears `(table_id, version)` for each committed append, and
    `(None, None)` whenever the feed may have missed some (it reconnected, or
    lost its connection): then everything learned before is in doubt.
    """

    def subscribe(self, listener: ChangeListener) -> None: ...

    @property
    def live(self) -> bool:
        """True while every commit that finished more than `STALE_BOUND_SECONDS`
        ago has been delivered to the subscribers."""


STALE_BOUND_SECONDS = 2.0  # how stale a live feed can be at worst (typically a few ms)


class Store(Protocol):
    """A database: hands out units of work and tells of commits (its change feed)."""

    def unit_of_work(self, *, readonly: bool = False) -> AbstractContextManager[UnitOfWork]:
        """One transaction. `readonly=True` for read paths: on SQLite it starts a
        deferred transaction instead of taking the write lock; writes in it raise
        `ReadOnlyUnit`."""
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
        """Append and commit at once, with no lock taken first, if the table is still at
        `expected_version` and no seat of it has a webhook; None, with nothing written,
        if not. Waiters hear of it as of any commit.

        The compare-and-set a move needs when its state is already known: the row
        lock of a unit of work would cost more round trips than the move itself.
        """
    def changes(self) -> ChangeFeed | None:
        """The feed of commits (every node's), or None when the store has none
        (SQLite: several processes share the file and nothing tells them)."""
    def ping(self) -> bool:
        """Does the database answer? Within 2 s, whatever the database does."""
    def listener_state(self) -> str:
        """How waiters hear of other nodes' changes: `connected` (LISTEN/NOTIFY),
        `reconnecting` (polling meanwhile), `not_started` (no wait yet), `not_used`
        (this database polls, or wakes waiters in process)."""
    def dispose(self) -> None: ...



def append_in_unit_if_current(
    store: Store,
    table_id: str,
    expected_version: int,
    events: Sequence[NewEvent],
    *,
    status: str,
    now: datetime,
    bots_due: bool = False,
) -> list[StoredEvent] | None:
    """`Store.append_if_current` as one short unit of work: for a store whose units
    cost no round trips (memory, SQLite in process)."""
    with store.unit_of_work() as uow:
        row = uow.lock_table(table_id)
        if row is None or row.version != expected_version or row.webhook_count:
            return None
        stored = uow.append(table_id, expected_version, events, status=status, now=now, bots_due=bots_due)
        uow.commit()
    return stored
