"""The database schema, in SQLAlchemy Core.

The alembic migrations under `migrations/versions/` are what create these
tables in a real database; this module mirrors them for the queries (and for
`alembic revision --autogenerate`). Change both together.

Every table that belongs to a card table is keyed by `table_id` first, so the
data could later be distributed by table (for example with Citus).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    false,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

from .ports import in_utc

# Stable constraint names, so that later migrations can refer to them.
metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

JsonDocument = JSON().with_variant(JSONB(), "postgresql")


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware datetime, always handed back in UTC.

    PostgreSQL keeps `timestamptz`; SQLite has no time zones, so the value is
    stored as naive UTC and given its `tzinfo` back when read. Naive datetimes
    are refused: they are always a bug here.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        value = in_utc(value)
        if dialect.name == "sqlite":
            value = value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


tables = Table(
    "tables",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("status", String(16), nullable=False),
    Column("invite_hash", String(64), nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    Column("bots_due", Boolean, nullable=False, server_default=false()),
    # Seats with a webhook (rows of `webhooks`), kept by `set_webhook`: a move's
    # compare-and-set checks it (`Store.append_if_current`).
    Column("webhook_count", Integer, nullable=False, server_default=text("0")),
    Index("ix_tables_invite_hash", "invite_hash", unique=True),
    # tables_awaiting_bots: WHERE bots_due ORDER BY updated_at (few rows at any time)
    Index("ix_tables_bots_due", "updated_at", postgresql_where=text("bots_due"), sqlite_where=text("bots_due")),
)

events = Table(
    "events",
    metadata,
    Column("table_id", String(32), ForeignKey("tables.table_id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("type", String(40), nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("seat", Integer, nullable=True),
    Column("at", UtcDateTime, nullable=False),
    Column("data", JsonDocument, nullable=False),
)

credentials = Table(
    "credentials",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("table_id", String(32), ForeignKey("tables.table_id"), nullable=False),
    Column("role", String(16), nullable=False),
    Column("seat", Integer, nullable=True),
    Column("spectator", Integer, nullable=True),
    Column("created_at", UtcDateTime, nullable=False),
    Index("ix_credentials_table_id", "table_id"),
)

idempotency = Table(
    "idempotency",
    metadata,
    Column("scope", String(128), primary_key=True),
    Column("key", String(255), primary_key=True),
    Column("request_hash", String(64), nullable=False),
    Column("status", Integer, nullable=False),
    Column("body", Text, nullable=False),
    Column("headers", JsonDocument, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Index("ix_idempotency_created_at", "created_at"),
)

webhooks = Table(
    "webhooks",
    metadata,
    Column("table_id", String(32), ForeignKey("tables.table_id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("url", Text, nullable=False),
    Column("secret", String(128), nullable=False),
    Column("disabled", Boolean, nullable=False),
)

outbox = Table(
    "outbox",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("table_id", String(32), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("type", String(40), nullable=False),
    Column("payload", Text, nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("next_attempt_at", UtcDateTime, nullable=False),
    Column("status", String(16), nullable=False),
    Column("last_error", Text, nullable=True),
    Column("created_at", UtcDateTime, nullable=False),
    # claim_due: WHERE status = 'pending' AND next_attempt_at <= now ORDER BY next_attempt_at
    Index("ix_outbox_status_next_attempt_at", "status", "next_attempt_at"),
)

PROJECT_TABLES = ("events", "credentials", "idempotency", "webhooks", "outbox", "tables")
"""Every table of the schema, children first (a safe order to drop or truncate)."""
