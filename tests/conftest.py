"""Shared fixtures. Each section below belongs to one layer; add yours in its own section."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

# =============================================================================
# Database fixtures (store layer)
#
#   store         a fresh, empty Store: params memory | sqlite | postgresql
#   sql_store     a fresh, empty SqlStore: params sqlite | postgresql
#   database_url  a fresh, migrated, empty database URL: params sqlite | postgresql
#   database_urls (session) where the migrated databases live
#
# SQLite: the migrations run once per session into a template file, and each
# test gets its own copy of it under tmp_path.
#
# PostgreSQL: only when DATABASE_URL names a PostgreSQL database, otherwise
# those params are skipped. The database is rebuilt once per session (the
# project tables and alembic_version are dropped, then the migrations run)
# and the project tables are TRUNCATEd before each test. Under pytest-xdist
# each worker (PYTEST_XDIST_WORKER, e.g. "gw0") works in its own database,
# "<dbname>_<worker>", created on the same server when missing and dropped
# when the session ends, so workers never see each other's rows. The tests
# carry the `postgres` marker (`-m "not postgres"` leaves them out).
# =============================================================================

PG_SKIP_REASON = "set DATABASE_URL=postgresql+psycopg://... to run the PostgreSQL tests"


def _postgresql_base_url() -> str | None:
    from api.store.sql import normalize_url

    raw = os.environ.get("DATABASE_URL", "").strip()
    if not raw:
        return None
    try:
        url = normalize_url(raw)
    except Exception:  # noqa: BLE001 - not a URL we can use: treat as unset
        return None
    return url.render_as_string(hide_password=False) if url.get_backend_name() == "postgresql" else None


@dataclass
class DatabaseUrls:
    """The session's migrated databases; `fresh(kind, directory)` hands out an empty one."""

    sqlite_template: Path
    _pg_url: str | None = None
    _pg_prepared: bool = False
    _pg_worker_db: str | None = None
    _pg_engine: object | None = field(default=None, repr=False)

    @property
    def postgresql(self) -> str | None:
        """This worker's migrated PostgreSQL URL (prepared on first use), or None."""
        if not self._pg_prepared:
            self._pg_prepared = True
            self._pg_url = self._prepare_postgresql()
        return self._pg_url

    def fresh(self, kind: str, directory: Path) -> str:
        if kind == "sqlite":
            target = directory / "copas.db"
            shutil.copyfile(self.sqlite_template, target)
            return f"sqlite:///{target}"
        if kind == "postgresql":
            url = self.postgresql
            if url is None:
                pytest.skip(PG_SKIP_REASON)
            self._truncate()
            return url
        raise ValueError(kind)

    def _prepare_postgresql(self) -> str | None:
        import psycopg
        from psycopg import sql
        from sqlalchemy import text
        from sqlalchemy.pool import NullPool

        from api.store.migrate import upgrade
        from api.store.sql import make_engine, normalize_url

        base = _postgresql_base_url()
        if base is None:
            return None
        url = normalize_url(base)
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        if worker:
            name = f"{url.database}_{worker}"
            server = url.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
            with psycopg.connect(server, autocommit=True) as conn:
                exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
                if not exists:
                    conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            url = url.set(database=name)
            self._pg_worker_db = name
        rendered = url.render_as_string(hide_password=False)
        engine = make_engine(url, poolclass=NullPool)
        from api.store.models import PROJECT_TABLES

        with engine.begin() as conn:
            for table in (*PROJECT_TABLES, "alembic_version"):
                conn.execute(text(f'DROP TABLE IF EXISTS "{table}" CASCADE'))
        upgrade(rendered)
        self._pg_engine = engine
        return rendered

    def _truncate(self) -> None:
        from sqlalchemy import text

        from api.store.models import PROJECT_TABLES

        with self._pg_engine.begin() as conn:  # type: ignore[union-attr]
            conn.execute(text("SET LOCAL lock_timeout = '10s'"))
            conn.execute(text("TRUNCATE " + ", ".join(f'"{t}"' for t in PROJECT_TABLES)))

    def close(self) -> None:
        if self._pg_engine is not None:
            self._pg_engine.dispose()  # type: ignore[attr-defined]
        if self._pg_worker_db is not None:
            import psycopg
            from psycopg import sql

            from api.store.sql import normalize_url

            server = normalize_url(_postgresql_base_url() or "").set(drivername="postgresql", database="postgres")
            with psycopg.connect(server.render_as_string(hide_password=False), autocommit=True) as conn:
                conn.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(self._pg_worker_db))
                )


@pytest.fixture(scope="session")
def database_urls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DatabaseUrls]:
    from api.store.migrate import upgrade

    template = tmp_path_factory.mktemp("sqlite-template") / "copas.db"
    upgrade(f"sqlite:///{template}")
    urls = DatabaseUrls(sqlite_template=template)
    yield urls
    urls.close()


_SQL_PARAMS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@pytest.fixture(params=_SQL_PARAMS)
def database_url(request: pytest.FixtureRequest, database_urls: DatabaseUrls, tmp_path: Path) -> str:
    return database_urls.fresh(request.param, tmp_path)


@pytest.fixture
def sql_store(database_url: str) -> Iterator[object]:
    from api.store.sql import SqlStore

    store = SqlStore(database_url)
    yield store
    store.dispose()


@pytest.fixture(params=["memory", *_SQL_PARAMS])
def store(request: pytest.FixtureRequest, database_urls: DatabaseUrls, tmp_path: Path) -> Iterator[object]:
    from api.store import open_store

    url = None if request.param == "memory" else database_urls.fresh(request.param, tmp_path)
    store = open_store(url)
    yield store
    store.dispose()


# ============================================================================= end of database fixtures


# =============================================================================
# App fixtures (HTTP layer)
#
#   clock        a FakeClock the service reads (advance it instead of sleeping)
#   app          the Flask app on a fresh database: params sqlite | postgresql
#   client       its test client
#   memory_app   the app on the in-memory store (fast, for non-database tests)
#   table        helpers to create tables and act through HTTP (see TableDriver)
# =============================================================================

import random as _random  # noqa: E402

from api import create_app  # noqa: E402
from api.config import Settings  # noqa: E402
from api.service.clock import FakeClock  # noqa: E402
from api.store import open_store  # noqa: E402

# Streams in tests end after 3 s (keep-alives every 0.5 s): the test client reads a stream whole.
TEST_SETTINGS = Settings(
    webhook_allowed_hosts=("127.0.0.1", "localhost"),
    public_url="http://testserver",
    stream_seconds=3.0,
    stream_keepalive_seconds=0.5,
)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def app(database_url: str, clock: FakeClock) -> Iterator[object]:
    store = open_store(database_url)
    application = create_app(TEST_SETTINGS, store=store, clock=clock, rng=_random.Random(7))
    yield application
    store.dispose()


@pytest.fixture
def memory_app(clock: FakeClock) -> object:
    return create_app(TEST_SETTINGS, store=open_store("memory://"), clock=clock, rng=_random.Random(7))


@pytest.fixture
def client(app: object) -> object:
    return app.test_client()  # type: ignore[attr-defined]


class TableDriver:
    """Create tables and act at them through HTTP, the way a frontend would."""

    def __init__(self, client: object) -> None:
        self.client = client

    def create(self, name: str = "Ana", **options: object) -> dict[str, object]:
        response = self.client.post("/v1/tables", json={"name": name, **options})  # type: ignore[attr-defined]
        assert response.status_code == 201, response.json
        return response.json

    def join(self, invite_code: str, name: str) -> dict[str, object]:
        response = self.client.post(f"/v1/invites/{invite_code}/join", json={"name": name})  # type: ignore[attr-defined]
        assert response.status_code == 201, response.json
        return response.json

    def full_table(self, **options: object) -> tuple[str, list[str]]:
        """A table with four humans seated: (table_id, tokens by seat)."""
        created = self.create(**options)
        tokens = [created["token"]]
        for name in ("Bruno", "Carla", "Davi"):
            tokens.append(self.join(created["invite_code"], name)["token"])
        return created["table_id"], tokens  # type: ignore[return-value]

    @staticmethod
    def auth(token: str, **headers: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}", **headers}

    def view(self, table_id: str, token: str) -> dict[str, object]:
        response = self.client.get(f"/v1/tables/{table_id}", headers=self.auth(token))  # type: ignore[attr-defined]
        assert response.status_code == 200, response.json
        return response.json

    def post(self, table_id: str, token: str, action: str, body: object = None, **headers: str) -> object:
        return self.client.post(f"/v1/tables/{table_id}/{action}", json=body, headers=self.auth(token, **headers))  # type: ignore[attr-defined]

    def pass_all(self, table_id: str, tokens: list[str]) -> None:
        """Every human seat passes its three first cards."""
        for token in tokens:
            you = self.view(table_id, token)["you"]
            if you["pass"] is not None and you["legal_moves"]:  # type: ignore[index]
                response = self.post(table_id, token, "passes", {"cards": you["legal_moves"][:3]})  # type: ignore[index]
                assert response.status_code == 201, response.json  # type: ignore[attr-defined]

    def play_legal(self, table_id: str, tokens: list[str]) -> object:
        """The seat to move plays its first legal card."""
        view = self.view(table_id, tokens[0])
        seat = view["turn"]
        you = self.view(table_id, tokens[seat])["you"]  # type: ignore[index]
        return self.post(table_id, tokens[seat], "plays", {"card": you["legal_moves"][0]})  # type: ignore[index]


@pytest.fixture
def table(client: object) -> TableDriver:
    return TableDriver(client)
# ============================================================================= end of app fixtures
