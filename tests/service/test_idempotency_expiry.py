"""Idempotency keys: the answer is kept in the command's own transaction, for 24 hours by the service's clock."""

from __future__ import annotations

import random

import pytest

from api.config import Settings
from api.engine.errors import PassAlreadySubmitted
from api.engine.state import Options
from api.service.clock import FakeClock
from api.service.idempotency import AlreadyAnswered, IdempotencyLedger, IdempotentRequest
from api.service.tables import Access, TableService
from api.store import open_store
from api.store.ports import IdempotentResponse


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def service(clock: FakeClock) -> TableService:
    return TableService(open_store("memory://"), Settings(), clock, random.Random(3))


@pytest.fixture
def ledger(service: TableService, clock: FakeClock) -> IdempotencyLedger:
    return IdempotencyLedger(service.store, clock)


def seated(service: TableService) -> Access:
    created = service.create_table("Ana", Options())
    for name in ("Bruno", "Carla", "Davi"):
        service.join(created.invite_code or "", name)
    return service.authenticate(created.table_id, created.token)


def keyed_pass(service: TableService, ledger: IdempotencyLedger, who: Access, key: str = "k") -> IdempotentResponse:
    """Seat 0 passes its three first cards under `key`; the answer's body is the version it reached."""
    request = IdempotentRequest(who.table_id, f"{who.table_id}:token", key, "fingerprint")
    with ledger.recording(request) as recording:
        try:
            outcome = service.choose_pass(who, tuple(service.view(who)["you"]["hand"][:3]))
        except AlreadyAnswered as answered:
            return answered.answer
        return recording.answer(201, str(outcome.state.version), {})


def test_a_key_answers_with_its_first_response_within_24_hours(service: TableService, ledger: IdempotencyLedger, clock: FakeClock) -> None:
    who = seated(service)
    first = keyed_pass(service, ledger, who)
    version = service.version(who.table_id)
    clock.advance(23 * 3600)
    assert keyed_pass(service, ledger, who) == first
    assert service.version(who.table_id) == version  # the retry wrote nothing


def test_a_key_older_than_24_hours_is_forgotten_and_runs_again(service: TableService, ledger: IdempotencyLedger, clock: FakeClock) -> None:
    who = seated(service)
    keyed_pass(service, ledger, who)
    clock.advance(24 * 3600 + 1)
    with pytest.raises(PassAlreadySubmitted):  # it ran again: the rules refuse a second pass
        keyed_pass(service, ledger, who)
