"""Idempotency keys live 24 hours by the service's own clock."""

from api.service.clock import FakeClock
from api.service.idempotency import Claim, IdempotencyLedger
from api.store import open_store


def test_a_key_answers_with_its_first_response_within_24_hours():
    clock = FakeClock()
    ledger = IdempotencyLedger(open_store("memory://"), clock)
    claim = ledger.claim("table:token", "k", "hash")
    assert isinstance(claim, Claim)
    ledger.fulfil(claim, 201, '{"ok": true}', {"Content-Type": "application/json"})
    clock.advance(23 * 3600)
    stored = ledger.claim("table:token", "k", "hash")
    assert not isinstance(stored, Claim)
    assert (stored.status, stored.body) == (201, '{"ok": true}')


def test_a_key_older_than_24_hours_is_forgotten_and_runs_again():
    clock = FakeClock()
    ledger = IdempotencyLedger(open_store("memory://"), clock)
    ledger.fulfil(ledger.claim("table:token", "k", "hash"), 201, "{}", {})
    clock.advance(24 * 3600 + 1)
    assert isinstance(ledger.claim("table:token", "k", "hash"), Claim)
