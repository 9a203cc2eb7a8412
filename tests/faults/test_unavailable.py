"""While the database is away: 503 problem+json with Retry-After, one log line, and the truth about the outcome."""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from httpplay import Game, assert_problem
from sqlalchemy import exc as sa_exc

from api import create_app
from api.service.clock import FakeClock
from api.store import open_store
from api.store.ports import Store, Unavailable, append_in_unit_if_current
from api.store.sql import SqlStore, unavailable
from conftest import TEST_SETTINGS


def db_error(kind: type[sa_exc.DBAPIError], orig: Exception) -> sa_exc.DBAPIError:
    return kind("SELECT 1", {}, orig)


@pytest.mark.parametrize(
    ("error", "reason", "retry_safe"),
    [
        (db_error(sa_exc.OperationalError, psycopg.OperationalError("server closed the connection unexpectedly")), "server closed", False),
        (db_error(sa_exc.OperationalError, psycopg.errors.AdminShutdown("terminating connection")), "shutting down", False),
        (db_error(sa_exc.OperationalError, psycopg.errors.SerializationFailure("could not serialize")), "serialization", True),
        (db_error(sa_exc.OperationalError, psycopg.errors.DeadlockDetected("deadlock")), "deadlock", True),
        (db_error(sa_exc.OperationalError, psycopg.errors.QueryCanceled("canceling statement due to statement timeout")), "statement timeout", False),
        (db_error(sa_exc.OperationalError, psycopg.errors.LockNotAvailable("lock timeout")), "lock timeout", False),
        (db_error(sa_exc.OperationalError, psycopg.errors.TooManyConnections("too many")), "out of resources", False),
        (sa_exc.TimeoutError("QueuePool limit reached"), "no database connection", False),
    ],
)
def test_transient_database_errors_are_unavailable(error: Exception, reason: str, retry_safe: bool) -> None:
    translated = unavailable(error)
    assert translated is not None and reason in translated.reason
    assert translated.retry_safe is retry_safe
    assert translated.outcome_unknown is False


def test_a_connection_lost_while_committing_leaves_the_outcome_unknown() -> None:
    lost = db_error(sa_exc.OperationalError, psycopg.OperationalError("server closed the connection unexpectedly"))
    assert unavailable(lost, committing=True).outcome_unknown is True  # type: ignore[union-attr]
    refused = db_error(sa_exc.OperationalError, psycopg.errors.SerializationFailure("could not serialize"))
    assert unavailable(refused, committing=True).outcome_unknown is False  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "error",
    [
        db_error(sa_exc.IntegrityError, psycopg.errors.UniqueViolation("duplicate key")),
        db_error(sa_exc.ProgrammingError, psycopg.errors.UndefinedTable("no such table")),
        db_error(sa_exc.OperationalError, __import__("sqlite3").OperationalError("no such table: tables")),
        ValueError("a bug"),
    ],
)
def test_bugs_and_violations_are_not_mistaken_for_an_outage(error: Exception) -> None:
    assert unavailable(error) is None


class Failing:
    """A store that fails the way a database does: at the start of a unit of work, or at its commit."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.on_begin: Unavailable | None = None
        self.on_commit: list[Unavailable] = []
        self.on_lock: list[Unavailable] = []
        self.commits = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    @contextmanager
    def unit_of_work(self, **kwargs: Any) -> Iterator[Any]:
        if self.on_begin is not None:
            raise self.on_begin
        with self.store.unit_of_work(**kwargs) as uow:
            yield _FailingCommit(uow, self)

    def append_if_current(self, *args: Any, **kwargs: Any) -> Any:
        return append_in_unit_if_current(self, *args, **kwargs)  # a move without the lock fails as a unit does


class _FailingCommit:
    def __init__(self, uow: Any, owner: Failing) -> None:
        self._uow, self._owner = uow, owner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._uow, name)

    def lock_table(self, table_id: str) -> Any:
        if self._owner.on_lock:
            raise self._owner.on_lock.pop(0)
        return self._uow.lock_table(table_id)

    def commit(self) -> None:
        if self._owner.on_commit:
            raise self._owner.on_commit.pop(0)
        self._uow.commit()
        self._owner.commits += 1


@pytest.fixture
def failing() -> Failing:
    return Failing(open_store("memory://"))


@pytest.fixture
def failing_client(failing: Failing) -> Any:
    return create_app(TEST_SETTINGS, store=failing, clock=FakeClock(), rng=random.Random(7)).test_client()  # type: ignore[arg-type]


def hand(game: Game, seat: int) -> list[str]:
    return game.view(seat)["you"]["hand"]


def test_every_route_answers_503_with_retry_after_while_the_database_is_away(failing: Failing, failing_client: Any, caplog: pytest.LogCaptureFixture) -> None:
    game = Game.humans(failing_client)
    failing.on_begin = Unavailable("connection refused")
    caplog.set_level(logging.WARNING)
    responses = [
        failing_client.post("/v1/tables", json={"name": "Ana"}),
        failing_client.post(f"/v1/invites/{game.invite_code}/join", json={"name": "Eva"}),
        failing_client.get(f"{game.url}/events", headers={"Authorization": f"Bearer {game.tokens[0]}"}),
        failing_client.post(f"{game.url}/passes", json={"cards": ["2C", "3C", "4C"]}, headers={"Authorization": f"Bearer {game.tokens[0]}"}),
    ]
    for response in responses:
        problem = assert_problem(response, 503, "unavailable")
        assert response.headers["Retry-After"] == "1"
        assert "changed nothing" in problem["detail"]
    logged = [r for r in caplog.records if "database unavailable" in r.getMessage()]
    assert len(logged) == len(responses)
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in logged)  # one line each, no traceback


def test_a_move_whose_commit_was_cut_off_says_it_may_have_been_applied(failing: Failing, failing_client: Any) -> None:
    game = Game.humans(failing_client)
    failing.on_commit.append(Unavailable("server closed the connection unexpectedly", outcome_unknown=True))
    response = game.post(0, "passes", {"cards": hand(game, 0)[:3]}, **{"Idempotency-Key": "cut"})
    problem = assert_problem(response, 503, "unavailable")
    assert "may or may not have been applied" in problem["detail"] and "same Idempotency-Key" in problem["detail"]
    assert "changed nothing" not in problem["detail"]
    retry = game.post(0, "passes", {"cards": hand(game, 0)[:3]}, **{"Idempotency-Key": "cut"})
    assert retry.status_code == 201


def test_a_serialization_failure_runs_the_command_again(failing: Failing, failing_client: Any) -> None:
    game = Game.humans(failing_client)
    before = game.version()
    failing.on_commit.append(Unavailable("serialization failure", retry_safe=True))
    assert game.post(1, "passes", {"cards": hand(game, 1)[:3]}).status_code == 201
    assert game.version() == before + 1


def test_a_deadlock_under_an_idempotency_key_runs_the_command_again(failing: Failing, failing_client: Any) -> None:
    game = Game.humans(failing_client)
    before = game.version()
    failing.on_lock.append(Unavailable("deadlock detected", retry_safe=True))
    response = game.post(2, "passes", {"cards": hand(game, 2)[:3]}, **{"Idempotency-Key": "deadlocked"})
    assert response.status_code == 201, response.get_json()
    assert game.version() == before + 1


def test_serialization_failures_that_persist_end_in_503(failing: Failing, failing_client: Any) -> None:
    game = Game.humans(failing_client)
    before = game.version()
    failing.on_commit.extend(Unavailable("serialization failure", retry_safe=True) for _ in range(5))
    assert_problem(game.post(1, "passes", {"cards": hand(game, 1)[:3]}), 503, "unavailable")
    failing.on_commit.clear()
    assert game.version() == before


def test_an_unreachable_postgresql_answers_503_not_500(caplog: pytest.LogCaptureFixture) -> None:
    store = SqlStore("postgresql+psycopg://nobody@127.0.0.1:1/none", pool_pre_ping=False)
    try:
        client = create_app(TEST_SETTINGS, store=store).test_client()
        assert_problem(client.post("/v1/tables", json={"name": "Ana"}), 503, "unavailable")
        assert_problem(client.get("/v1/tables/abc", headers={"Authorization": "Bearer x"}), 503, "unavailable")
        assert client.get("/v1/health").status_code == 503
    finally:
        store.dispose()
