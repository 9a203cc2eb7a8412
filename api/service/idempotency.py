"""Idempotency-Key: a retry with the same key and body returns the first response.

Keys are scoped to the table and the token, and kept 24 hours by the
service's clock. There is no claim and nothing "in flight": the answer is
written in the command's own unit of work, beside its events, and commits with
them or not at all. So "applied" and "answered" never disagree, and a request
that dies (worker killed, connection dropped) leaves nothing behind: its
transaction rolls back, and the key is free at once.

How a keyed move runs (`Recording`):

1. The command's unit of work locks the table row (commands of a table are
   serialized, on every node), then looks the key up: an answer there is
   replayed (`AlreadyAnswered`), a different request under it is refused.
2. The command decides and appends, but does not commit: the unit of work
   stays open while the web layer renders the response.
3. `answer()` writes the response into that same unit of work and commits.

A duplicate sent meanwhile waits on the row lock and then finds the answer.
Refusals are kept too (a retry gets the same refusal); nothing was written
for them, so they are recorded in a short transaction of their own, under the
table's lock again so that a concurrent retry's answer is never overwritten.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from ..store.ports import IDEMPOTENCY_TTL, IdempotentResponse, Store, UnitOfWork
from .clock import Clock
from .errors import IdempotencyKeyReused

PURGE_BATCH = 500


@dataclass(frozen=True)
class IdempotentRequest:
    """A write sent with an Idempotency-Key: where the key lives and what it was sent with."""

    table_id: str
    scope: str  # the table and the token's hash
    key: str
    fingerprint: str  # method, path and body


class AlreadyAnswered(Exception):
    """The request under this key has been answered already: replay `answer`."""

    def __init__(self, answer: IdempotentResponse) -> None:
        super().__init__("already answered")
        self.answer = answer


_current: ContextVar[Recording | None] = ContextVar("copas_idempotent_request", default=None)


def current() -> Recording | None:
    """The keyed request this thread (or greenlet) is serving, if any."""
    return _current.get()


class Recording:
    """One keyed request on its way: its command's unit of work waits for the answer."""

    def __init__(self, ledger: IdempotencyLedger, request: IdempotentRequest) -> None:
        self.ledger = ledger
        self.request = request
        self._units = ExitStack()
        self._uow: UnitOfWork | None = None
        self._after_commit: Callable[[], None] | None = None

    # -- the service's side: the command's unit of work

    def unit_of_work(self, store: Store) -> UnitOfWork:
        """Open the command's unit of work; it stays open until `answer()` or `discard()`."""
        self.discard()
        self._uow = self._units.enter_context(store.unit_of_work())
        return self._uow

    def check(self, uow: UnitOfWork) -> None:
        """With the table locked: replay the key's answer, or refuse another request under it."""
        stored = uow.idempotent_response(self.request.scope, self.request.key, self.ledger.clock.now())
        if stored is None:
            return
        if stored.request_hash != self.request.fingerprint:
            raise IdempotencyKeyReused("this Idempotency-Key was used with a different request")
        raise AlreadyAnswered(stored)

    def defer_commit(self, after_commit: Callable[[], None]) -> None:
        """Instead of committing now: commit with the answer, then run `after_commit`."""
        self._after_commit = after_commit

    def discard(self, error: BaseException | None = None) -> None:
        """Roll back the open unit of work, if any (its lock is released).

        With the `error` that ends it: the store sees it as any `with` block's
        exception would, and raises its own name for it (a lost connection is
        `Unavailable`) if it has one.
        """
        self._uow, self._after_commit = None, None
        if error is None:
            self._units.close()
        else:
            self._units.__exit__(type(error), error, error.__traceback__)

    # -- the web's side: the answer

    def answer(self, status: int, body: str, headers: dict[str, str]) -> IdempotentResponse:
        """Keep the answer under the key: the answer to send (an earlier one if a retry won)."""
        response = IdempotentResponse(self.request.fingerprint, status, body, headers)
        now = self.ledger.clock.now()
        uow, after_commit = self._uow, self._after_commit
        try:
            if uow is not None and after_commit is not None:
                kept = uow.record_idempotent(self.request.scope, self.request.key, response, now)
                uow.commit()  # the events and their answer, at once
            else:
                self.discard()
                after_commit = None
                with self.ledger.store.unit_of_work() as fresh:
                    fresh.lock_table(self.request.table_id)
                    kept = fresh.record_idempotent(self.request.scope, self.request.key, response, now)
                    fresh.commit()
        except BaseException as error:
            self.discard(error)
            raise
        self.discard()
        if after_commit is not None:
            after_commit()
        return kept if kept.request_hash == response.request_hash else response


class IdempotencyLedger:
    """Where keyed requests are recorded (one per app)."""

    def __init__(self, store: Store, clock: Clock) -> None:
        self.store = store
        self.clock = clock

    def purge_expired(self, limit: int = PURGE_BATCH) -> int:
        """Forget up to `limit` answers older than 24 hours (they count as absent already)."""
        with self.store.unit_of_work() as uow:
            purged = uow.purge_idempotent(self.clock.now() - IDEMPOTENCY_TTL, limit)
            uow.commit()
        return purged

    @contextmanager
    def recording(self, request: IdempotentRequest) -> Iterator[Recording]:
        """Serve `request` as a keyed one: its command finds it through `current()`."""
        recording = Recording(self, request)
        token = _current.set(recording)
        try:
            yield recording
        finally:
            _current.reset(token)
            recording.discard()
