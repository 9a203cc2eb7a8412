"""The initial schema: tables, events, credentials, idempotency, webhooks, outbox.

Written by hand to match api/store/models.py (constraint names follow its
naming convention).

Revision ID: 0001
Revises:
Create Date: 2025-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UtcDateTime = sa.DateTime(timezone=True)
JsonDocument = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("invite_hash", sa.String(64), nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("updated_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("table_id", name="pk_tables"),
    )
    op.create_index("ix_tables_invite_hash", "tables", ["invite_hash"], unique=True)

    op.create_table(
        "events",
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(40), nullable=False),
        sa.Column("schema_version", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("at", UtcDateTime, nullable=False),
        sa.Column("data", JsonDocument, nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["tables.table_id"], name="fk_events_table_id_tables"),
        sa.PrimaryKeyConstraint("table_id", "seq", name="pk_events"),
    )

    op.create_table(
        "credentials",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("spectator", sa.Integer(), nullable=True),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["tables.table_id"], name="fk_credentials_table_id_tables"),
        sa.PrimaryKeyConstraint("token_hash", name="pk_credentials"),
    )
    op.create_index("ix_credentials_table_id", "credentials", ["table_id"])

    op.create_table(
        "idempotency",
        sa.Column("scope", sa.String(128), nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("body", sa.Text(), nullable=True),
        sa.Column("headers", JsonDocument, nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("scope", "key", name="pk_idempotency"),
    )
    op.create_index("ix_idempotency_created_at", "idempotency", ["created_at"])

    op.create_table(
        "webhooks",
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("secret", sa.String(128), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["tables.table_id"], name="fk_webhooks_table_id_tables"),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_webhooks"),
    )

    op.create_table(
        "outbox",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(40), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", UtcDateTime, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_outbox"),
    )
    op.create_index("ix_outbox_status_next_attempt_at", "outbox", ["status", "next_attempt_at"])


def downgrade() -> None:
    op.drop_index("ix_outbox_status_next_attempt_at", table_name="outbox")
    op.drop_table("outbox")
    op.drop_table("webhooks")
    op.drop_index("ix_idempotency_created_at", table_name="idempotency")
    op.drop_table("idempotency")
    op.drop_index("ix_credentials_table_id", table_name="credentials")
    op.drop_table("credentials")
    op.drop_table("events")
    op.drop_index("ix_tables_invite_hash", table_name="tables")
    op.drop_table("tables")
