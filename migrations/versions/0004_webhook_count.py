"""tables.webhook_count: how many seats of a table have a webhook, on the table's row.

A move that needs no notification (most tables have no webhook) is appended by
one compare-and-set on the row, with no lock taken first (see
`Store.append_if_current`); the count on the row is what that statement checks,
so a webhook set meanwhile, on any node, sends the move the locked way.
Existing webhooks are counted here.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("webhook_count", sa.Integer(), nullable=False, server_default="0"))
    op.execute("UPDATE tables SET webhook_count = (SELECT count(*) FROM webhooks WHERE webhooks.table_id = tables.table_id)")


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("webhook_count")
