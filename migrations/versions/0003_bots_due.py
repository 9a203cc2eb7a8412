"""tables.bots_due: a table waits for a strong bot, which `copas worker` plays off the request path.

Before this revision every bot answered within the command that made it due,
so no stored table is waiting for one: the column starts false everywhere.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("bots_due", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_index(
        "ix_tables_bots_due",
        "tables",
        ["updated_at"],
        postgresql_where=sa.text("bots_due"),
        sqlite_where=sa.text("bots_due"),
    )


def downgrade() -> None:
    op.drop_index("ix_tables_bots_due", table_name="tables")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("bots_due")
