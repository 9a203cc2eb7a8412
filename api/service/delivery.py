"""Webhook delivery: the dispatcher that empties the outbox (`copas worker`).

How a claim and the network call meet the database:

1. **Claim** (one short transaction): the due pending messages are selected
   with `FOR UPDATE SKIP LOCKED` on PostgreSQL (SQLite serializes writers with
   `BEGIN IMMEDIATE`), and each is leased: `attempts + 1` and
   `next_attempt_at = now + lease`. The transaction commits at once, so no
   transaction stays open during the HTTP call, and another dispatcher no
   longer sees these messages as due.
2. **Deliver** (no transaction): the seat's current webhook is read, its URL
   is checked again (DNS can change) and the POST goes to the very addresses
   that were checked, signed the Standard Webhooks way.
3. **Record** (one short transaction): delivered, failed, or pending again at
   `now + backoff` (about 5 s, 30 s, 2 min, 10 min, 1 h, then hourly; ±10 %
   jitter) until a day after the message was created, then failed. A `410`
   fails the message and disables the webhook.

A dispatcher killed between 1 and 3 leaves its messages leased: they become due
again when the lease expires and are sent once more. Delivery is therefore at
least once; receivers drop duplicates by `webhook-id`.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import logging
import random
import signal
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any

from ..config import Settings
from ..store.ports import OutboxMessage, Store, Webhook
from . import webhooks
from .clock import Clock, SystemClock
from .errors import InvalidWebhook
from .idempotency import IdempotencyLedger

log = logging.getLogger("copas.delivery")

TIMEOUT_SECONDS = 5.0
BATCH = 10
IDLE_SECONDS = 0.5
PURGE_EVERY_SECONDS = 60.0  # expired Idempotency-Key answers, cleared when the outbox is idle
RETRY_SCHEDULE = (5.0, 30.0, 120.0, 600.0, 3600.0)  # then hourly
JITTER = 0.10
GIVE_UP_AFTER = timedelta(days=1)
MAX_ATTEMPTS = 40  # a backstop when a message's creation time cannot be read
MAX_RESPONSE_BYTES = 64 * 1024
USER_AGENT = "copas-webhooks/1"

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
HttpPost = Callable[..., int]
"""`http_post(url, body: bytes, headers, *, timeout, addresses) -> status`; raises OSError on network failure."""


@dataclass(frozen=True)
class Result:
    """What became of one claimed message."""

    message_id: str
    status: str  # delivered | pending | failed | lease_lost (another worker took it over)
    http_status: int | None
    error: str | None


def retry_delay(attempts: int) -> float:
    """Seconds to wait after the `attempts`-th try failed (before jitter)."""
    return RETRY_SCHEDULE[min(max(attempts, 1), len(RETRY_SCHEDULE)) - 1]


class Dispatcher:
    """Claims due outbox messages and POSTs them to the seats' webhooks."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        clock: Clock | None = None,
        *,
        http_post: HttpPost | None = None,
        wall_clock: Clock | None = None,
        rng: random.Random | None = None,
        timeout: float = TIMEOUT_SECONDS,
        lease_seconds: float | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        # `clock` schedules (due, lease, backoff, the day's cap); the signature's
        # timestamp is always the wall clock, since receivers compare it to theirs.
        self.clock = clock or SystemClock()
        self.wall_clock = wall_clock or SystemClock()
        self.http_post = http_post or post
        self.rng = rng or random.Random()
        self.timeout = timeout
        self._lease_seconds = lease_seconds
        self.stopping = threading.Event()

    def lease_seconds(self, batch: int) -> float:
        """How long a claim keeps a message from other dispatchers: the whole batch's timeouts and a margin."""
        if self._lease_seconds is not None:
            return self._lease_seconds
        return 30.0 + self.timeout * max(batch, 1)

    # -- the three steps ---------------------------------------------------------------

    def claim(self, limit: int) -> list[OutboxMessage]:
        """Lease up to `limit` due pending messages, in one short transaction."""
        if limit <= 0:
            return []
        now = self.clock.now()
        lease_until = now + timedelta(seconds=self.lease_seconds(limit))
        with self.store.unit_of_work() as uow:
            due = uow.claim_due(now, limit)
            claimed = [replace(message, attempts=message.attempts + 1, next_attempt_at=lease_until) for message in due]
            for message in claimed:
                uow.update_message(message)
            uow.commit()
        return claimed

    def deliver(self, message: OutboxMessage) -> Result:
        """POST one claimed message (no transaction open meanwhile) and record the outcome."""
        with self.store.unit_of_work(readonly=True) as uow:
            hook = uow.webhook(message.table_id, message.seat)
        if hook is None:
            return self._record(message, "failed", None, "the seat has no webhook any more")
        if hook.disabled:
            return self._record(message, "failed", None, "the webhook is disabled")
        try:
            addresses = webhooks.checked_addresses(hook.url, self.settings.webhook_allowed_hosts)
        except webhooks.UnresolvableHost as error:
            return self._retry_or_give_up(message, None, str(error))
        except InvalidWebhook as error:
            return self._record(message, "failed", None, f"refused: {error}")
        body = message.payload.encode("utf-8")
        timestamp = int(self.wall_clock.now().timestamp())
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "webhook-id": message.id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": webhooks.sign(hook.secret, message.id, timestamp, message.payload),
        }
        try:
            status = self.http_post(hook.url, body, headers, timeout=self.timeout, addresses=addresses)
        except (OSError, http.client.HTTPException, ValueError) as error:
            return self._retry_or_give_up(message, None, _describe(error))
        if 200 <= status < 300:
            return self._record(message, "delivered", status, None)
        if status == 410:
            return self._record(message, "failed", status, "410 Gone: the webhook is disabled", disable=hook)
        return self._retry_or_give_up(message, status, f"HTTP {status}")

    def run_once(self, limit: int = BATCH) -> int:
        """Claim and deliver one batch; the number of messages claimed (0 when idle)."""
        claimed = self.claim(limit)
        for index, message in enumerate(claimed):
            if self.stopping.is_set():
                self._release(claimed[index:])
                break
            try:
                self.deliver(message)
            except Exception:  # noqa: BLE001 - one bad message must not stop the others
                log.exception("delivery of %s failed unexpectedly; it is retried after its lease", message.id)
        return len(claimed)

    # -- outcomes ---------------------------------------------------------------------

    def _retry_or_give_up(self, message: OutboxMessage, http_status: int | None, error: str) -> Result:
        now = self.clock.now()
        delay = retry_delay(message.attempts) * self.rng.uniform(1 - JITTER, 1 + JITTER)
        next_at = now + timedelta(seconds=delay)
        created = _created_at(message)
        if (created is not None and next_at > created + GIVE_UP_AFTER) or (
            created is None and message.attempts >= MAX_ATTEMPTS
        ):
            return self._record(message, "failed", http_status, f"{error} (gave up after {message.attempts} attempts)")
        return self._record(message, "pending", http_status, error, next_at=next_at)

    def _record(
        self,
        message: OutboxMessage,
        status: str,
        http_status: int | None,
        error: str | None,
        *,
        next_at: datetime | None = None,
        disable: Webhook | None = None,
    ) -> Result:
        updated = replace(
            message,
            status=status,
            last_error=error,
            next_attempt_at=next_at if next_at is not None else self.clock.now(),
        )
        with self.store.unit_of_work() as uow:
            if not uow.update_message(updated, expected_attempts=message.attempts):
                # The lease ran out and another worker claimed the message again: its outcome stands.
                log.warning("lease of %s lost before its outcome (%s) was recorded", message.id, status)
                return Result(message.id, "lease_lost", http_status, error)
            if disable is not None:
                current = uow.webhook(message.table_id, message.seat)
                # Only the webhook that answered 410: a URL set since then stays live.
                if current is not None and current.url == disable.url and current.secret == disable.secret:
                    uow.set_webhook(replace(current, disabled=True), table_id=message.table_id, seat=message.seat)
            uow.commit()
        where = f"{message.id} ({message.type} for table {message.table_id} seat {message.seat}, attempt {message.attempts})"
        if status == "delivered":
            log.info("delivered %s: HTTP %s", where, http_status)
        elif status == "pending":
            log.warning("retrying %s at %s: %s", where, updated.next_attempt_at.isoformat(), error)
        else:
            log.warning("failed %s: %s", where, error)
        return Result(message.id, status, http_status, error)

    def _release(self, messages: Sequence[OutboxMessage]) -> None:
        """Give back claimed messages not tried (when stopping): due at once, the attempt not counted."""
        now = self.clock.now()
        with self.store.unit_of_work() as uow:
            for message in messages:
                released = replace(message, attempts=max(message.attempts - 1, 0), next_attempt_at=now)
                uow.update_message(released, expected_attempts=message.attempts)
            uow.commit()


def _created_at(message: OutboxMessage) -> datetime | None:
    """When the message was created: the `timestamp` of its body (set at enqueue, on the service clock)."""
    try:
        stamp = json.loads(message.payload)["timestamp"]
        created = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    except (ValueError, KeyError, TypeError):
        return None
    return created if created.tzinfo is not None else created.replace(tzinfo=timezone.utc)


def _describe(error: BaseException) -> str:
    if isinstance(error, urllib.error.URLError) and not isinstance(error, urllib.error.HTTPError):
        error = error.reason if isinstance(error.reason, BaseException) else error
    text = str(error) or type(error).__name__
    return f"{type(error).__name__}: {text}"[:500]


# --------------------------------------------------------------------------- HTTP (standard library only)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer (3xx, retried), never followed: it could point anywhere."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _pinned(connection_class: type[http.client.HTTPConnection], addresses: Sequence[Address]) -> Callable[..., Any]:
    """A connection factory that dials only the checked addresses (Host and TLS name stay the URL's)."""

    def factory(host: str, **kwargs: Any) -> http.client.HTTPConnection:
        connection = connection_class(host, **kwargs)

        def create_connection(address: tuple[str, int], timeout: Any = None, source_address: Any = None) -> socket.socket:
            last: OSError | None = None
            for ip in addresses:
                try:
                    return socket.create_connection((str(ip), address[1]), timeout, source_address)
                except OSError as error:
                    last = error
            raise last or OSError("no address to connect to")

        if addresses:
            connection._create_connection = create_connection  # type: ignore[attr-defined]
        return connection

    return factory


class _PinnedHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, addresses: Sequence[Address]) -> None:
        super().__init__()
        self._addresses = addresses

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_pinned(http.client.HTTPConnection, self._addresses), req)  # type: ignore[arg-type]


class _PinnedHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, addresses: Sequence[Address]) -> None:
        super().__init__()
        self._addresses = addresses

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_pinned(http.client.HTTPSConnection, self._addresses), req, context=self._context)  # type: ignore[arg-type,attr-defined]


def post(url: str, body: bytes, headers: Mapping[str, str], *, timeout: float, addresses: Sequence[Address] = ()) -> int:
    """POST `body` and return the status code (no proxies, no redirects, at most 64 KiB of answer read)."""
    opener = urllib.request.build_opener(
        urllib.request.ProxyHandler({}), _NoRedirect(), _PinnedHTTPHandler(addresses), _PinnedHTTPSHandler(addresses)
    )
    request = urllib.request.Request(url, data=body, headers=dict(headers), method="POST")
    try:
        with opener.open(request, timeout=timeout) as response:
            response.read(MAX_RESPONSE_BYTES)
            return int(response.status)
    except urllib.error.HTTPError as error:
        error.close()
        return int(error.code)


# --------------------------------------------------------------------------- the worker process


def run_worker(
    settings: Settings,
    *,
    store: Store | None = None,
    clock: Clock | None = None,
    stop: threading.Event | None = None,
    idle_seconds: float = IDLE_SECONDS,
) -> int:
    """Deliver until SIGTERM or SIGINT (or `stop`), then return 0."""
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log.setLevel(logging.INFO)
    own_store = store is None
    if store is None:
        from ..store import database_url, open_store

        store = open_store(settings.database_url or database_url())
    dispatcher = Dispatcher(store, settings, clock)
    ledger = IdempotencyLedger(store, dispatcher.clock)  # the worker also clears expired keys when idle
    next_purge = time.monotonic()
    if stop is not None:
        dispatcher.stopping = stop
    stopping = dispatcher.stopping

    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():

        def on_signal(signum: int, frame: Any) -> None:
            log.info("stopping on %s", signal.Signals(signum).name)
            stopping.set()

        for signum in (signal.SIGTERM, signal.SIGINT):
            previous[signum] = signal.signal(signum, on_signal)

    log.info("webhook dispatcher started")
    try:
        while not stopping.is_set():
            try:
                claimed = dispatcher.run_once(BATCH)
            except Exception:  # noqa: BLE001 - e.g. the database is away for a moment
                log.exception("the outbox could not be read; trying again shortly")
                stopping.wait(5.0)
                continue
            if claimed == 0:
                if time.monotonic() >= next_purge:
                    ledger.purge_expired()
                    next_purge = time.monotonic() + PURGE_EVERY_SECONDS
                stopping.wait(idle_seconds)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if own_store:
            store.dispose()
        log.info("webhook dispatcher stopped")
    return 0
