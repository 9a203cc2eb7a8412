"""Run the alembic migrations programmatically (`copas db upgrade`, tests).

The migrations live in `migrations/` at the repository root, next to
`alembic.ini`; `alembic upgrade head` from there does the same thing, taking
the URL from `DATABASE_URL`.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

ROOT = Path(__file__).resolve().parents[2]
MIGRATIONS = ROOT / "migrations"


def alembic_config(url: str) -> Config:
    """An alembic Config for `url`, built without reading alembic.ini (so the
    caller's logging setup is left alone)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))  # configparser interpolation
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the database at `url` up to `revision` (creating the schema if empty)."""
    command.upgrade(alembic_config(url), revision)


def current(url: str) -> str | None:
    """The database's alembic revision, or None before any migration."""
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy.pool import NullPool

    from .sql import make_engine

    engine = make_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def head() -> str:
    """The newest revision of the migrations (what `upgrade` brings a database to)."""
    from alembic.script import ScriptDirectory

    revision = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    assert revision is not None
    return revision
