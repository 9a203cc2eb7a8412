"""The event store: `open_store(url)` gives the `Store` for a database URL.

    store = open_store(database_url())      # SqlStore (migrate first: api.store.migrate.upgrade)
    store = open_store("memory://")         # MemoryStore, for tests
"""

from __future__ import annotations

import os
from pathlib import Path

from .ports import (
    Credential,
    DuplicateTable,
    IdempotentResponse,
    NewEvent,
    OutboxMessage,
    ReadOnlyUnit,
    StaleVersion,
    Store,
    StoredEvent,
    TableRow,
    UnitOfWork,
    Unavailable,
    Webhook,
)

DEFAULT_DATABASE_URL = "sqlite:///var/copas.db"
MEMORY_URL = "memory://"

__all__ = [
    "DEFAULT_DATABASE_URL",
    "MEMORY_URL",
    "Credential",
    "DuplicateTable",
    "IdempotentResponse",
    "NewEvent",
    "OutboxMessage",
    "ReadOnlyUnit",
    "StaleVersion",
    "Store",
    "StoredEvent",
    "TableRow",
    "UnitOfWork",
    "Unavailable",
    "Webhook",
    "database_url",
    "open_store",
]


def database_url() -> str:
    """`DATABASE_URL` from the environment, else an SQLite file under ./var/
    (the directory is created if missing)."""
    url = os.environ.get("DATABASE_URL", "").strip()
    if url:
        return url
    Path("var").mkdir(exist_ok=True)
    return DEFAULT_DATABASE_URL


def open_store(url: str | None) -> Store:
    """None or "memory://" -> MemoryStore; anything else -> SqlStore(url)."""
    if url is None or url == MEMORY_URL:
        from .memory import MemoryStore

        return MemoryStore()
    from .sql import SqlStore

    return SqlStore(url)
