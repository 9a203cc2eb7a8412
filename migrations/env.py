"""Alembic environment: which database, and how to connect.

The URL is, in order: `sqlalchemy.url` set programmatically on the Config
(api.store.migrate.upgrade does that), the DATABASE_URL environment variable,
then sqlite:///var/copas.db.
"""

from __future__ import annotations

import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy.pool import NullPool

from api.store.models import metadata
from api.store.sql import BATCH_TIMEOUTS, make_engine, normalize_url

config = context.config

if config.config_file_name is not None:  # only when run from the alembic CLI
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = metadata


def database_url() -> str:
    url = config.get_main_option("sqlalchemy.url") or os.environ.get("DATABASE_URL", "").strip()
    return url or "sqlite:///var/copas.db"


def run_migrations_offline() -> None:
    url = normalize_url(database_url())
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        render_as_batch=url.get_backend_name() == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = make_engine(database_url(), poolclass=NullPool, timeouts=BATCH_TIMEOUTS)
    try:
        with engine.connect() as connection:
            context.configure(
                connection=connection,
                target_metadata=target_metadata,
                render_as_batch=connection.dialect.name == "sqlite",
                compare_type=True,
            )
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
