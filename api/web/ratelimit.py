"""Token buckets per client: 429 rate_limited with Retry-After past the limit.

Who counts as one client: the hash of its bearer token, but only when it is a
token the service issued (an invented token would otherwise get a fresh bucket
each time), and its address otherwise. Creating a table and joining one need
no token, so they also count against a stricter bucket per address.

Where the buckets live: with `COPAS_RATE_LIMIT_FILE` (which `copas serve` sets
to a fresh file of its own), in that small SQLite file, shared by every worker
process of the node; without it, in the process. Either way the limit is per
node: behind a load balancer each node counts its own clients.

`COPAS_RATE_LIMIT` is the sustained requests per second per client, with
bursts of twice that (0 turns both limits off); `COPAS_ADMISSION_RATE_LIMIT`
the tables created plus joins per minute per address, with bursts of half that.
Every answer says where its client stands in `RateLimit` and `RateLimit-Policy`
(draft-ietf-httpapi-ratelimit-headers).
"""

from __future__ import annotations

import logging
import math
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import Protocol

from flask import Flask, Response, g, request

from ..config import Settings
from ..service.credentials import digest
from .auth import bearer_token
from .context import service
from .errors import problem

log = logging.getLogger(__name__)
ADMISSIONS = {("POST", "tables.create_table"), ("POST", "invites.join")}  # (method, endpoint) needing no token


@dataclass(frozen=True)
class Limit:
    name: str
    rate: float  # tokens per second
    burst: float

    def refill(self, tokens: float, last: float, now: float) -> tuple[float, float]:
        """(tokens left after this request, seconds to wait: 0 when it may go ahead)."""
        tokens = min(self.burst, tokens + max(0.0, now - last) * self.rate)
        if tokens < 1:
            return tokens, (1 - tokens) / self.rate
        return tokens - 1, 0.0


class Buckets(Protocol):
    def take(self, key: str, limit: Limit, now: float) -> tuple[float, float]:
        """(tokens left, seconds to wait) for one request of `key` under `limit`."""
        ...


class TokenBuckets:
    """The buckets of one process."""

    def __init__(self, size: int = 10_000) -> None:
        self.size = size
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str, limit: Limit, now: float) -> tuple[float, float]:
        with self._lock:
            tokens, last = self._buckets.get(key, (limit.burst, now))
            left, wait = limit.refill(tokens, last, now)
            if len(self._buckets) >= self.size and key not in self._buckets:
                self._buckets.clear()  # forget idle clients rather than grow without bound
            self._buckets[key] = (left, now)
            return left, wait


class SharedBuckets:
    """The buckets of every worker process of a node, in one small SQLite file."""

    def __init__(self, path: str, prune_every: int = 1000) -> None:
        self.path = path
        self.prune_every = prune_every
        # One connection per process behind a lock: under gevent a thread-local
        # would open one per request (greenlet), and a connection never crosses a fork.
        self._lock = threading.Lock()
        self._connection: tuple[int, sqlite3.Connection] | None = None
        self._count = 0
        self._db().execute("CREATE TABLE IF NOT EXISTS buckets (key TEXT PRIMARY KEY, tokens REAL NOT NULL, at REAL NOT NULL) WITHOUT ROWID")

    def _db(self) -> sqlite3.Connection:
        if self._connection is None or self._connection[0] != os.getpid():
            db = sqlite3.connect(self.path, timeout=2, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=OFF")  # counters, not records: a crash may forget them
            self._connection = (os.getpid(), db)
        return self._connection[1]

    def take(self, key: str, limit: Limit, now: float) -> tuple[float, float]:
        with self._lock:
            return self._take(self._db(), key, limit, now)

    def _take(self, db: sqlite3.Connection, key: str, limit: Limit, now: float) -> tuple[float, float]:
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT tokens, at FROM buckets WHERE key = ?", (key,)).fetchone()
            left, wait = limit.refill(*(row or (limit.burst, now)), now)
            db.execute("INSERT OR REPLACE INTO buckets (key, tokens, at) VALUES (?, ?, ?)", (key, left, now))
            self._count += 1
            if self._count % self.prune_every == 0:  # a bucket idle long enough to be full is as good as none
                db.execute("DELETE FROM buckets WHERE at < ?", (now - 120.0,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return left, wait


def buckets_for(settings: Settings) -> Buckets:
    return SharedBuckets(settings.rate_limit_file) if settings.rate_limit_file else TokenBuckets()


def client_key() -> str:
    """A client: its issued token's hash, or its address (an unknown token counts as its address)."""
    token = bearer_token()
    if token is not None:
        token_hash = digest(token)
        if service().credential(token_hash) is not None:
            return "token:" + token_hash
    return "address:" + (request.remote_addr or "unknown")


def install(app: Flask, settings: Settings, buckets: Buckets | None = None) -> None:
    if settings.rate_limit <= 0:
        return
    requests = Limit("default", settings.rate_limit, 2 * settings.rate_limit)
    per_minute = settings.admission_rate_limit
    admissions = Limit("admission", per_minute / 60, max(1.0, per_minute / 2)) if per_minute > 0 else None
    buckets = buckets or buckets_for(settings)

    @app.before_request
    def limit() -> Response | None:
        now = time.time()
        checks = [(client_key(), requests)]
        if admissions is not None and (request.method, request.endpoint) in ADMISSIONS:
            checks.append(("admission:" + (request.remote_addr or "unknown"), admissions))
        for key, rule in checks:
            try:
                left, wait = buckets.take(key, rule, now)
            except sqlite3.Error as error:  # a limiter that cannot count lets the request through
                log.warning("rate limit not counted: %s", error)
                return None
            g.rate_limit = (rule, left, wait)
            if wait:
                return problem(429, "rate_limited", "too many requests; retry later", headers={"Retry-After": str(math.ceil(wait))})
        return None

    @app.after_request
    def say_where_the_client_stands(response: Response) -> Response:
        standing = g.get("rate_limit")
        if standing is not None:
            rule, left, wait = standing
            refilled = math.ceil(wait or (rule.burst - left) / rule.rate)
            response.headers["RateLimit-Policy"] = f'"{rule.name}";q={int(rule.burst)};w={math.ceil(rule.burst / rule.rate)}'
            response.headers["RateLimit"] = f'"{rule.name}";r={max(0, int(left))};t={refilled}'
        return response
