"""The Store contract, run against every implementation (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta, timezone

import pytest

from api.store import (
    Credential,
    DuplicateTable,
    IdempotentResponse,
    NewEvent,
    OutboxMessage,
    ReadOnlyUnit,
    StaleVersion,
    Webhook,
)
from tests.store.waiting import changed_within

T0 = datetime(2025, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)


def new_table(store, table_id="t1", invite_hash="inv-t1", now=T0):
    with store.unit_of_work() as uow:
        uow.create_table(table_id, invite_hash, now)
        uow.commit()


def event(n: int, seat: int | None = 0) -> NewEvent:
    return NewEvent(type="card_played", seat=seat, data={"n": n, "card": "QS", "nested": {"ok": [1, "é"]}})


def append(store, table_id, expected, events, status="playing", now=T0):
    with store.unit_of_work() as uow:
        stored = uow.append(table_id, expected, events, status=status, now=now)
        uow.commit()
    return stored


# -- tables and streams


def test_a_new_table_starts_waiting_at_version_zero(store):
    new_table(store)
    with store.unit_of_work(readonly=True) as uow:
        row = uow.table_row("t1")
        assert uow.table_by_invite("inv-t1") == row
        assert uow.load_events("t1") == []
    assert (row.table_id, row.version, row.status, row.invite_hash) == ("t1", 0, "waiting", "inv-t1")
    assert row.created_at == row.updated_at == T0


def test_creating_a_table_twice_raises_duplicate_table(store):
    new_table(store)
    with store.unit_of_work() as uow:
        with pytest.raises(DuplicateTable):
            uow.create_table("t1", "other-invite", T0)
        with pytest.raises(DuplicateTable):
            uow.create_table("t2", "inv-t1", T0)
        uow.create_table("t3", "inv-t3", T0)  # the unit is still usable
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.table_row("t3") is not None
        assert uow.table_row("t2") is None


def test_append_numbers_events_consecutively_and_updates_the_row(store):
    new_table(store)
    later = T0 + timedelta(minutes=5)
    first = append(store, "t1", 0, [event(1), event(2, seat=None)], status="passing", now=T0)
    second = append(store, "t1", 2, [event(3)], status="playing", now=later)
    assert [e.seq for e in first + second] == [1, 2, 3]
    with store.unit_of_work() as uow:
        stored = uow.load_events("t1")
        row = uow.table_row("t1")
    assert stored == first + second
    assert [e.data["n"] for e in stored] == [1, 2, 3]
    assert stored[0].data == {"n": 1, "card": "QS", "nested": {"ok": [1, "é"]}}
    assert stored[1].seat is None and stored[0].seat == 0
    assert stored[0].schema_version == 1 and stored[0].type == "card_played"
    assert (row.version, row.status, row.updated_at, row.created_at) == (3, "playing", later, T0)


def test_a_stale_expected_version_raises_and_writes_nothing(store):
    new_table(store)
    append(store, "t1", 0, [event(1)])
    with store.unit_of_work() as uow:
        with pytest.raises(StaleVersion):
            uow.append("t1", 0, [event(99)], status="finished", now=T0)
        uow.commit()
    with store.unit_of_work() as uow:
        assert [e.data["n"] for e in uow.load_events("t1")] == [1]
        assert (uow.table_row("t1").version, uow.table_row("t1").status) == (1, "playing")
        with pytest.raises(StaleVersion):
            uow.append("no-such-table", 0, [event(1)], status="playing", now=T0)


def test_append_if_current_appends_and_commits_when_the_version_matches(store):
    new_table(store)
    append(store, "t1", 0, [event(1)])
    later = T0 + timedelta(minutes=1)
    stored = store.append_if_current("t1", 1, [event(2), event(3, seat=None)], status="finished", now=later, bots_due=True)
    assert [e.seq for e in stored] == [2, 3]
    with store.unit_of_work(readonly=True) as uow:
        assert uow.load_events("t1")[1:] == stored
        row = uow.table_row("t1")
    assert stored[1].seat is None and stored[0].data == {"n": 2, "card": "QS", "nested": {"ok": [1, "é"]}}
    assert (row.version, row.status, row.updated_at, row.bots_due) == (3, "finished", later, True)


def test_append_if_current_on_a_stale_version_writes_nothing(store):
    new_table(store)
    append(store, "t1", 0, [event(1)])
    assert store.append_if_current("t1", 0, [event(99)], status="finished", now=T0) is None
    assert store.append_if_current("no-such-table", 0, [event(1)], status="playing", now=T0) is None
    with store.unit_of_work(readonly=True) as uow:
        assert [e.data["n"] for e in uow.load_events("t1")] == [1]
        assert (uow.table_row("t1").version, uow.table_row("t1").status) == (1, "playing")


def test_append_if_current_writes_nothing_while_a_seat_has_a_webhook(store):
    new_table(store)
    hook = Webhook("t1", 1, "https://a.test/hook", "whsec_AAAA", False)
    with store.unit_of_work() as uow:
        uow.set_webhook(hook, table_id="t1", seat=1)
        uow.set_webhook(Webhook("t1", 2, hook.url, hook.secret, True), table_id="t1", seat=2)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.table_row("t1").webhook_count == 2  # a disabled webhook counts too
    assert store.append_if_current("t1", 0, [event(1)], status="playing", now=T0) is None
    with store.unit_of_work() as uow:
        uow.set_webhook(None, table_id="t1", seat=1)
        uow.set_webhook(None, table_id="t1", seat=2)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.table_row("t1").webhook_count == 0
        assert uow.load_events("t1") == []
    assert [e.seq for e in store.append_if_current("t1", 0, [event(1)], status="playing", now=T0)] == [1]


def test_both_appends_refuse_a_naive_datetime_and_write_nothing(store):
    new_table(store)
    naive = T0.replace(tzinfo=None)
    with pytest.raises(Exception, match="naive datetime"):
        store.append_if_current("t1", 0, [event(1)], status="playing", now=naive)
    with store.unit_of_work() as uow, pytest.raises(Exception, match="naive datetime"):
        uow.append("t1", 0, [event(1)], status="playing", now=naive)
    with store.unit_of_work(readonly=True) as uow:
        assert uow.load_events("t1") == [] and uow.table_row("t1").version == 0


def test_racing_appends_if_current_at_one_version_let_exactly_one_through(store):
    new_table(store)
    barrier = threading.Barrier(8)
    results: list[object] = []

    def racer(n: int) -> None:
        barrier.wait()
        results.append(store.append_if_current("t1", 0, [event(n), event(n)], status="playing", now=datetime.now(UTC)))

    threads = [threading.Thread(target=racer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [r for r in results if r is not None]
    assert len(results) == 8 and len(winners) == 1
    with store.unit_of_work(readonly=True) as uow:
        assert uow.load_events("t1") == winners[0]
        assert uow.table_row("t1").version == 2


def test_leaving_a_unit_without_commit_rolls_everything_back(store):
    new_table(store)
    with store.unit_of_work() as uow:
        uow.create_table("t2", "inv-t2", T0)
        uow.append("t1", 0, [event(1)], status="playing", now=T0)
        uow.add_credential(Credential("tok", "t1", "player", 0, None, T0))
        uow.set_webhook(Webhook("t1", 0, "https://x.test/h", "whsec_x", False), table_id="t1", seat=0)
        assert uow.table_row("t1").version == 1  # a unit sees its own writes
    with pytest.raises(RuntimeError):
        with store.unit_of_work() as uow:
            uow.append("t1", 0, [event(1)], status="playing", now=T0)
            raise RuntimeError("boom")
    with store.unit_of_work() as uow:
        assert uow.table_row("t2") is None
        assert uow.table_row("t1").version == 0
        assert uow.load_events("t1") == []
        assert uow.credential("tok") is None
        assert uow.webhook("t1", 0) is None


def test_load_events_pages_with_after_and_limit(store):
    new_table(store)
    append(store, "t1", 0, [event(n) for n in range(1, 8)])
    with store.unit_of_work(readonly=True) as uow:
        assert [e.seq for e in uow.load_events("t1", after=0, limit=3)] == [1, 2, 3]
        assert [e.seq for e in uow.load_events("t1", after=3, limit=3)] == [4, 5, 6]
        assert [e.seq for e in uow.load_events("t1", after=6, limit=3)] == [7]
        assert [e.seq for e in uow.load_events("t1", after=7)] == []
        assert [e.seq for e in uow.load_events("t1", after=5)] == [6, 7]
        assert uow.load_events("t1", limit=0) == []
        assert uow.load_events("unknown") == []


def test_datetimes_come_back_timezone_aware_in_utc(store):
    plus_two = timezone(timedelta(hours=2))
    local = datetime(2025, 6, 1, 14, 0, tzinfo=plus_two)
    new_table(store, now=local)
    [stored] = append(store, "t1", 0, [event(1)], now=local)
    with store.unit_of_work() as uow:
        row = uow.table_row("t1")
        [loaded] = uow.load_events("t1")
    for value in (row.created_at, row.updated_at, loaded.at):
        assert value == datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
        assert value.utcoffset() == timedelta(0)


def test_a_readonly_unit_refuses_writes(store):
    with store.unit_of_work(readonly=True) as uow:
        with pytest.raises(ReadOnlyUnit):
            uow.create_table("t1", "inv", T0)


def test_lock_table_returns_the_row_or_none(store):
    new_table(store)
    with store.unit_of_work() as uow:
        assert uow.lock_table("t1").version == 0
        assert uow.lock_table("nope") is None
        assert uow.table_by_invite("inv-t1", lock=True).table_id == "t1"
        assert uow.table_by_invite("nope", lock=True) is None


# -- credentials


def test_credentials_round_trip_and_spectators_are_counted(store):
    new_table(store)
    new_table(store, "t2", "inv-t2")
    creds = [
        Credential("h-player", "t1", "player", 0, None, T0),
        Credential("h-spec1", "t1", "spectator", None, 1, T0),
        Credential("h-spec2", "t1", "spectator", None, 2, T0 + timedelta(seconds=1)),
        Credential("h-other", "t2", "spectator", None, 1, T0),
    ]
    with store.unit_of_work() as uow:
        for c in creds:
            uow.add_credential(c)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert [uow.credential(c.token_hash) for c in creds] == creds
        assert uow.credential("unknown") is None
        assert uow.count_spectators("t1") == 2
        assert uow.count_spectators("t2") == 1
        assert uow.count_spectators("t3") == 0


# -- idempotency


def test_an_idempotent_answer_is_kept_once_per_scope_and_key(store):
    first = IdempotentResponse("hash-a", 201, '{"ok": true}', {"ETag": '"v3"', "Location": "/x"})
    with store.unit_of_work() as uow:
        assert uow.idempotent_response("scope", "k1") is None
        assert uow.record_idempotent("scope", "k1", first, datetime.now(UTC)) == first
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.idempotent_response("scope", "k1") == first
        # A later answer under the same key does not replace the first: the first is what is kept.
        assert uow.record_idempotent("scope", "k1", IdempotentResponse("hash-b", 409, "{}", {}), datetime.now(UTC)) == first
        other = IdempotentResponse("hash-c", 412, "{}", {})
        assert uow.record_idempotent("other-scope", "k1", other, datetime.now(UTC)) == other
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.idempotent_response("scope", "k1") == first
        assert uow.idempotent_response("other-scope", "k1") == other


def test_an_idempotent_answer_not_committed_is_not_kept(store):
    with store.unit_of_work() as uow:
        uow.record_idempotent("scope", "k", IdempotentResponse("hash", 201, "{}", {}), datetime.now(UTC))
    with store.unit_of_work() as uow:
        assert uow.idempotent_response("scope", "k") is None


def test_idempotency_entries_older_than_a_day_count_as_absent_and_are_replaced(store):
    old = datetime.now(UTC) - timedelta(hours=25)
    with store.unit_of_work() as uow:
        uow.record_idempotent("scope", "k", IdempotentResponse("hash-old", 200, "{}", {}), old)
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.idempotent_response("scope", "k") is None
        new = IdempotentResponse("hash-new", 201, "[]", {})
        assert uow.record_idempotent("scope", "k", new, datetime.now(UTC)) == new
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.idempotent_response("scope", "k").request_hash == "hash-new"


def test_purging_idempotency_entries_deletes_only_the_old_ones(store):
    now = datetime.now(UTC)
    with store.unit_of_work() as uow:
        for n in range(3):
            uow.record_idempotent("scope", f"old-{n}", IdempotentResponse("h", 201, "{}", {}), now - timedelta(hours=30))
        uow.record_idempotent("scope", "new", IdempotentResponse("h", 201, "{}", {}), now)
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.purge_idempotent(now - timedelta(hours=24), limit=2) == 2
        assert uow.purge_idempotent(now - timedelta(hours=24), limit=2) == 1
        assert uow.purge_idempotent(now - timedelta(hours=24), limit=2) == 0
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.idempotent_response("scope", "new") is not None


# -- webhooks and the outbox


def test_webhooks_are_set_replaced_and_removed(store):
    new_table(store)
    first = Webhook("t1", 2, "https://a.test/hook", "whsec_AAAA", False)
    second = Webhook("t1", 2, "https://b.test/hook", "whsec_BBBB", True)
    with store.unit_of_work() as uow:
        uow.set_webhook(first, table_id="t1", seat=2)
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.webhook("t1", 2) == first
        uow.set_webhook(second, table_id="t1", seat=2)
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.webhook("t1", 2) == second
        assert uow.webhook("t1", 1) is None
        uow.set_webhook(None, table_id="t1", seat=2)
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.webhook("t1", 2) is None


def message(i: str, due: datetime, status: str = "pending") -> OutboxMessage:
    return OutboxMessage(
        id=f"msg_{i}",
        table_id="t1",
        seat=1,
        type="your_turn",
        payload='{"type": "your_turn"}',
        attempts=0,
        next_attempt_at=due,
        status=status,
        last_error=None,
    )


def test_claim_due_returns_pending_due_messages_oldest_first(store):
    now = datetime.now(UTC)
    with store.unit_of_work() as uow:
        uow.enqueue(message("c", now - timedelta(seconds=1)))
        uow.enqueue(message("a", now - timedelta(minutes=5)))
        uow.enqueue(message("b", now - timedelta(minutes=1)))
        uow.enqueue(message("future", now + timedelta(minutes=1)))
        uow.enqueue(message("done", now - timedelta(hours=1), status="delivered"))
        uow.commit()
    with store.unit_of_work() as uow:
        assert [m.id for m in uow.claim_due(now, 10)] == ["msg_a", "msg_b", "msg_c"]
        claimed = uow.claim_due(now, 2)
        assert [m.id for m in claimed] == ["msg_a", "msg_b"]
        assert claimed[0] == message("a", now - timedelta(minutes=5))
        retry = OutboxMessage(**{**claimed[0].__dict__, "attempts": 1, "last_error": "HTTP 500",
                                 "next_attempt_at": now + timedelta(seconds=5)})
        uow.update_message(retry)
        uow.update_message(OutboxMessage(**{**claimed[1].__dict__, "attempts": 1, "status": "delivered"}))
        uow.commit()
    with store.unit_of_work() as uow:
        assert [m.id for m in uow.claim_due(now, 10)] == ["msg_c"]
        later = uow.claim_due(now + timedelta(minutes=2), 10)
        assert [m.id for m in later] == ["msg_c", "msg_a", "msg_future"]
        assert (later[1].attempts, later[1].last_error) == (1, "HTTP 500")


def test_update_message_with_expected_attempts_is_a_compare_and_set(store):
    now = datetime.now(UTC)
    with store.unit_of_work() as uow:
        uow.enqueue(message("a", now))
        uow.commit()
    with store.unit_of_work() as uow:
        [claimed] = uow.claim_due(now, 1)
        leased = OutboxMessage(**{**claimed.__dict__, "attempts": 1})
        assert uow.update_message(leased, expected_attempts=0)
        stale = OutboxMessage(**{**claimed.__dict__, "status": "delivered"})
        assert not uow.update_message(stale, expected_attempts=0)  # the lease moved on
        uow.commit()
    with store.unit_of_work() as uow:
        [again] = uow.claim_due(now, 1)
        assert (again.attempts, again.status) == (1, "pending")


# -- waiting for changes: the service's version map over each store's change feed
# (memory and PostgreSQL tell of commits; SQLite has no feed, so waiters poll)


@pytest.mark.parametrize("way", ["in a unit of work", "if current"])
def test_a_waiter_wakes_when_another_thread_appends(store, way):
    new_table(store)

    def writer():
        time.sleep(0.3)
        if way == "if current":
            assert store.append_if_current("t1", 0, [event(1)], status="playing", now=T0) is not None
        else:
            append(store, "t1", 0, [event(1)])

    thread = threading.Thread(target=writer)
    started = time.monotonic()
    thread.start()
    try:
        assert changed_within(store, "t1", 0, timeout=10) is True
    finally:
        thread.join()
    assert time.monotonic() - started < 5


def test_a_waiter_times_out_when_nothing_changes(store):
    new_table(store)
    started = time.monotonic()
    assert changed_within(store, "t1", 0, timeout=0.5) is False
    assert 0.45 <= time.monotonic() - started < 3


def test_a_waiter_returns_at_once_when_the_version_already_differs(store):
    new_table(store)
    append(store, "t1", 0, [event(1)])
    started = time.monotonic()
    assert changed_within(store, "t1", 0, timeout=10) is True
    assert time.monotonic() - started < 1


def test_a_waiter_ignores_uncommitted_appends_and_other_tables(store):
    new_table(store)
    new_table(store, "t2", "inv-t2")

    def writer():
        time.sleep(0.1)
        with store.unit_of_work() as uow:
            uow.append("t1", 0, [event(1)], status="playing", now=T0)  # rolled back
        append(store, "t2", 0, [event(1)])

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert changed_within(store, "t1", 0, timeout=0.8) is False
    finally:
        thread.join()


# -- concurrency


def test_concurrent_commands_on_one_table_serialize_without_gaps_or_duplicates(store):
    new_table(store)
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def command(n: int) -> None:
        try:
            barrier.wait()
            with store.unit_of_work() as uow:
                row = uow.lock_table("t1")
                seen = uow.load_events("t1")
                assert len(seen) == row.version
                time.sleep(0.01)  # widen the window a lost update would need
                uow.append("t1", row.version, [event(n)], status="playing", now=datetime.now(UTC))
                uow.commit()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=command, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with store.unit_of_work() as uow:
        stored = uow.load_events("t1")
        assert uow.table_row("t1").version == 8
    assert [e.seq for e in stored] == list(range(1, 9))
    assert sorted(e.data["n"] for e in stored) == list(range(8))


def test_ping_reports_a_reachable_database(store):
    assert store.ping() is True
