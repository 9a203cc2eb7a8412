"""Idempotency rows are answers only: no more in-flight claims.

An answer is now written in the command's own transaction, together with its
events, so a row always has its status and body. Claims left by requests that
died under the old scheme (status NULL) would block their key for a day: they
are deleted, and status and body become NOT NULL.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("DELETE FROM idempotency WHERE status IS NULL OR body IS NULL")
    with op.batch_alter_table("idempotency") as batch:
        batch.alter_column("status", existing_type=sa.Integer(), nullable=False)
        batch.alter_column("body", existing_type=sa.Text(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("idempotency") as batch:
        batch.alter_column("status", existing_type=sa.Integer(), nullable=True)
        batch.alter_column("body", existing_type=sa.Text(), nullable=True)
