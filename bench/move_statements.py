"""What a move costs the database: statements and round trips, counted in process.

    DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/copas_bench .venv/bin/python -m bench.move_statements

Plays the first tricks of a four-human table through the Flask test client
(the database named by DATABASE_URL is migrated and then used as it is: give
it a scratch one; without DATABASE_URL, a temporary SQLite file) and prints,
per kind of request, the median count of SQL statements, transactions
(BEGIN ... COMMIT/ROLLBACK) and pool checkouts (each one a pre-ping round trip
on PostgreSQL), and the statements themselves for one move, so that a
redundant one shows.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from api import create_app
from api.config import Settings
from api.store.migrate import upgrade
from api.store.sql import SqlStore


class Tally:
    """Counts what the engine sends while `counting()` is on."""

    def __init__(self, store: SqlStore) -> None:
        self.on = False
        self.statements: list[str] = []
        self.transactions = 0
        self.checkouts = 0
        event.listen(store.engine, "before_cursor_execute", self._statement)
        event.listen(store.engine, "begin", self._begin)
        event.listen(store.engine.pool, "checkout", self._checkout)
        if store.autocommit_engine is not store.engine:  # PostgreSQL: a move's one statement, no BEGIN nor COMMIT
            event.listen(store.autocommit_engine, "before_cursor_execute", self._statement)
            event.listen(store.autocommit_engine.pool, "checkout", self._checkout)

    def _statement(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if self.on:
            self.statements.append(" ".join(statement.split()))

    def _begin(self, conn: Any) -> None:
        if self.on:
            self.transactions += 1

    def _checkout(self, *args: Any) -> None:
        if self.on:
            self.checkouts += 1

    @contextmanager
    def counting(self) -> Iterator[Tally]:
        self.statements, self.transactions, self.checkouts, self.on = [], 0, 0, True
        try:
            yield self
        finally:
            self.on = False

    @property
    def round_trips(self) -> int:
        """Statements, plus BEGIN and COMMIT of each transaction, plus a pre-ping per checkout."""
        return len(self.statements) + 2 * self.transactions + self.checkouts


def shape(statement: str) -> str:
    """The statement with its literal parameters folded, to group like with like."""
    return re.sub(r"\(%\(.*", "(...)", statement)[:140]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=40, help="plays measured (after the passes)")
    args = parser.parse_args(argv)
    url = os.environ.get("DATABASE_URL") or f"sqlite:///{tempfile.mkdtemp()}/bench.db"
    upgrade(url)
    store = SqlStore(url)
    tally = Tally(store)
    client = create_app(Settings(rate_limit=0), store=store, rng=random.Random(1)).test_client()

    created = client.post("/v1/tables", json={"name": "Ana"}).get_json()
    tokens = [created["token"]] + [
        client.post(f"/v1/invites/{created['invite_code']}/join", json={"name": n}).get_json()["token"] for n in ("B", "C", "D")
    ]
    url_of = f"/v1/tables/{created['table_id']}"

    def auth(seat: int, **more: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {tokens[seat]}", **more}

    for seat in range(4):  # warm the credential cache of every seat
        client.get(url_of, headers=auth(seat))
    for seat in range(4):
        hand = client.get(url_of, headers=auth(seat)).get_json()["you"]["hand"]
        client.post(f"{url_of}/passes", json={"cards": hand[:3]}, headers=auth(seat))

    costs: dict[str, list[tuple[int, int, int, int]]] = defaultdict(list)
    example: dict[str, list[str]] = {}
    for n in range(args.moves):
        view = client.get(url_of, headers=auth(0)).get_json()
        if view["status"] != "playing":
            break
        seat = view["turn"]
        you = client.get(url_of, headers=auth(seat)).get_json()["you"]
        keyed = n % 2 == 1
        headers = auth(seat, **({"Idempotency-Key": f"k{n}"} if keyed else {}))
        kind = "move with Idempotency-Key" if keyed else "move"
        with tally.counting():
            response = client.post(f"{url_of}/plays", json={"card": you["legal_moves"][0]}, headers=headers)
        assert response.status_code == 201, response.get_json()
        costs[kind].append((len(tally.statements), tally.transactions, tally.checkouts, tally.round_trips))
        example.setdefault(kind, tally.statements)
        etag = response.headers["ETag"]
        with tally.counting():
            client.get(url_of, headers=auth(seat, **{"If-None-Match": etag}))
        costs["304"].append((len(tally.statements), tally.transactions, tally.checkouts, tally.round_trips))
        with tally.counting():
            client.get(url_of, headers=auth((seat + 1) % 4))
        costs["full view"].append((len(tally.statements), tally.transactions, tally.checkouts, tally.round_trips))

    print(f"database: {store.engine.dialect.name}; medians over {args.moves} moves")
    print(f"{'request':<28} {'statements':>10} {'transactions':>12} {'checkouts':>9} {'round trips':>11}")
    for kind, rows in costs.items():
        medians = [statistics.median(column) for column in zip(*rows)]
        print(f"{kind:<28} " + " ".join(f"{value:>{width}g}" for value, width in zip(medians, (10, 12, 9, 11))))
    for kind, statements in example.items():
        print(f"\none {kind}:")
        for statement, count in Counter(shape(s) for s in statements).items():
            print(f"  {count} x {statement}")
    store.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
