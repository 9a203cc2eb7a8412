"""Idempotency-Key: a retry with the same key and body returns the first response.

Keys are scoped to the table and the token, kept 24 hours. A key is claimed
(in flight) before the request runs and filled with the response after, so
a duplicate arriving meanwhile gets `request_in_progress`.

The 24 hours are measured by the service's clock, the same one for claiming
a key and for reading it back, so a used key is never present to one and
expired to the other.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..store.ports import IdempotentResponse, Store
from .clock import Clock
from .errors import IdempotencyKeyReused, RequestInProgress


@dataclass(frozen=True)
class Claim:
    scope: str
    key: str


class IdempotencyLedger:
    def __init__(self, store: Store, clock: Clock) -> None:
        self.store = store
        self.clock = clock

    def claim(self, scope: str, key: str, request_hash: str, *, retried: bool = False) -> Claim | IdempotentResponse:
        """Claim the key for this request, or the stored response of its first use."""
        now = self.clock.now()  # one clock for claiming and for expiry
        with self.store.unit_of_work() as uow:
            if uow.begin_idempotent(scope, key, request_hash, now):
                uow.commit()
                return Claim(scope, key)
            stored = uow.idempotent_response(scope, key, now)
        if stored is None:  # expired between the two reads: try once more (only once)
            if retried:
                raise RequestInProgress("this Idempotency-Key is being replaced; retry shortly")
            return self.claim(scope, key, request_hash, retried=True)
        if stored.request_hash != request_hash:
            raise IdempotencyKeyReused("this Idempotency-Key was used with a different request")
        if stored.status is None:
            raise RequestInProgress("the first request with this Idempotency-Key is still running")
        return stored

    def fulfil(self, claim: Claim, status: int, body: str, headers: dict[str, str]) -> None:
        with self.store.unit_of_work() as uow:
            uow.finish_idempotent(claim.scope, claim.key, status, body, headers)
            uow.commit()

    def release(self, claim: Claim) -> None:
        """Forget a claim whose request failed unexpectedly, so a retry can run."""
        with self.store.unit_of_work() as uow:
            uow.forget_idempotent(claim.scope, claim.key)
            uow.commit()
