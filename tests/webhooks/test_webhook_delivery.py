"""Delivery through a real receiver: what arrives, when, signed, retried, given up on."""

from __future__ import annotations

import random
import time
from datetime import timedelta
from typing import Any

from api.config import Settings
from api.service.delivery import Dispatcher
from api.store.ports import OutboxMessage


def outbox(store: Any) -> list[OutboxMessage]:
    """Every outbox message, whatever its status (read beside the port, which only claims)."""
    from api.store.memory import MemoryStore

    if isinstance(store, MemoryStore):
        return list(store.outbox.values())
    from sqlalchemy import select

    from api.store import models
    from api.store.sql import _outbox_message

    with store.engine.connect() as conn:
        return [_outbox_message(r) for r in conn.execute(select(models.outbox))]


def messages(store: Any, status: str) -> list[OutboxMessage]:
    return [m for m in outbox(store) if m.status == status]


def test_your_turn_arrives_when_a_pass_or_play_becomes_due(table: Any, hooks: Any, receiver: Any, drain: Any) -> None:
    created = table.create()
    table_id = created["table_id"]
    hooks(table_id, 0, created["token"])
    tokens = [created["token"]] + [table.join(created["invite_code"], n)["token"] for n in ("Bruno", "Carla", "Davi")]
    hooks(table_id, 3, tokens[3])  # set after the deal: told at once, since its pass is due

    drain()

    for seat in (0, 3):
        [turn] = receiver.payloads(seat, "your_turn")
        assert turn["data"] == {"table_id": table_id, "seat": seat, "version": turn["data"]["version"], "action": "pass"}
        assert turn["timestamp"].endswith("Z")
    assert all(d.verified for d in receiver.deliveries), [d.error for d in receiver.deliveries]

    hooks(table_id, 1, tokens[1])
    hooks(table_id, 2, tokens[2])
    drain()
    receiver.deliveries.clear()
    table.pass_all(table_id, tokens)
    drain()

    view = table.view(table_id, tokens[0])
    leader = view["turn"]
    assert [p["data"] for p in receiver.payloads(leader, "your_turn")] == [
        {"table_id": table_id, "seat": leader, "version": view["version"], "action": "play"}
    ]
    # Nobody else is told: passing is no one's due action any more, and each pass was announced once.
    assert [d.payload["data"]["seat"] for d in receiver.accepted()] == [leader]

    receiver.deliveries.clear()
    assert table.play_legal(table_id, tokens).status_code == 201
    drain()
    after = table.view(table_id, tokens[0])
    [turn] = [d.payload for d in receiver.accepted()]
    assert turn["data"] == {"table_id": table_id, "seat": after["turn"], "version": after["version"], "action": "play"}


def test_bots_are_never_notified(client: Any, table: Any, hooks: Any, receiver: Any, app_store: Any, drain: Any) -> None:
    from api.store.ports import Webhook

    created = table.create()
    table_id = created["table_id"]
    hooks(table_id, 0, created["token"])
    with app_store.unit_of_work() as uow:  # a webhook no bot could set, to see that bots are skipped anyway
        for seat in (1, 2, 3):
            uow.set_webhook(Webhook(table_id, seat, receiver.url(seat), "whsec_" + "A" * 44, False), table_id=table_id, seat=seat)
        uow.commit()
    response = client.post(f"/v1/tables/{table_id}/bots", json={}, headers=table.auth(created["token"]))
    assert response.status_code in (200, 201), response.json
    table.pass_all(table_id, [created["token"]])
    for _ in range(6):
        view = table.view(table_id, created["token"])
        if view["turn"] != 0:
            break
        assert table.post(table_id, created["token"], "plays", {"card": view["you"]["legal_moves"][0]}).status_code == 201

    drain()

    assert {m.seat for m in outbox(app_store)} == {0}
    assert receiver.payloads(0, "your_turn")


def test_match_finished_reaches_every_human_seat_at_a_resignation(table: Any, hooks: Any, receiver: Any, drain: Any) -> None:
    table_id, tokens = table.full_table()
    for seat, token in enumerate(tokens):
        hooks(table_id, seat, token)
    drain()
    receiver.deliveries.clear()

    assert table.post(table_id, tokens[2], "resignation").status_code == 201
    drain()

    view = table.view(table_id, tokens[0])
    for seat in range(4):
        [finished] = receiver.payloads(seat, "match_finished")
        data = finished["data"]
        assert (data["table_id"], data["seat"], data["version"], data["reason"]) == (table_id, seat, view["version"], "resign")
        assert data["winners"] == view["result"]["winners"] and 2 not in data["winners"]
    assert not [d for d in receiver.accepted() if d.payload["type"] == "your_turn"]


def test_a_failing_receiver_gets_retries_with_backoff_and_no_duplicate_after_success(
    table: Any, hooks: Any, receiver: Any, app_store: Any, clock: Any, dispatcher: Dispatcher
) -> None:
    created = table.create()
    hooks(created["table_id"], 0, created["token"])
    for name in ("Bruno", "Carla", "Davi"):
        table.join(created["invite_code"], name)
    receiver.answers = [500, 503]

    assert dispatcher.run_once(10) == 1  # 500
    [pending] = messages(app_store, "pending")
    assert pending.attempts == 1 and pending.last_error == "HTTP 500"
    assert 4.5 <= (pending.next_attempt_at - clock.now()).total_seconds() <= 5.5
    assert dispatcher.run_once(10) == 0  # not due yet
    clock.advance(5.6)
    assert dispatcher.run_once(10) == 1  # 503
    [pending] = messages(app_store, "pending")
    assert 27 <= (pending.next_attempt_at - clock.now()).total_seconds() <= 33
    clock.advance(33.1)
    assert dispatcher.run_once(10) == 1  # 200
    clock.advance(86400 * 2)
    assert dispatcher.run_once(10) == 0

    statuses = [d.status for d in receiver.deliveries]
    assert statuses == [500, 503, 200]
    assert len({d.id for d in receiver.deliveries}) == 1  # the same webhook-id on every try
    assert all(d.verified for d in receiver.deliveries)
    [delivered] = messages(app_store, "delivered")
    assert delivered.attempts == 3 and delivered.last_error is None


def test_a_410_fails_the_message_and_disables_the_webhook(
    table: Any, hooks: Any, receiver: Any, app_store: Any, dispatcher: Dispatcher, drain: Any
) -> None:
    table_id, tokens = table.full_table()
    hooks(table_id, 0, tokens[0])  # told at once: the pass is due
    receiver.answers = [410]

    drain()

    [failed] = messages(app_store, "failed")
    assert failed.last_error and "410" in failed.last_error
    with app_store.unit_of_work(readonly=True) as uow:
        assert uow.webhook(table_id, 0).disabled  # type: ignore[union-attr]
    table.pass_all(table_id, tokens)  # more notifications would be due, but the webhook is off
    drain()
    assert [d.status for d in receiver.deliveries] == [410]


def test_a_url_refused_at_delivery_time_is_not_called(
    table: Any, hooks: Any, receiver: Any, app_store: Any, clock: Any, drain: Any
) -> None:
    table_id, tokens = table.full_table()
    hooks(table_id, 0, tokens[0])
    stricter = Dispatcher(app_store, Settings(webhook_allowed_hosts=()), clock)  # 127.0.0.1 no longer allowed

    assert stricter.run_once(10) == 1

    [failed] = messages(app_store, "failed")
    assert failed.last_error and failed.last_error.startswith("refused")
    assert receiver.deliveries == []


def test_a_worker_killed_mid_delivery_leaves_the_message_to_be_sent_after_its_lease(
    table: Any, hooks: Any, receiver: Any, app_store: Any, settings: Any, clock: Any
) -> None:
    table_id, tokens = table.full_table()
    hooks(table_id, 0, tokens[0])
    doomed = Dispatcher(app_store, settings, clock)

    [claimed] = doomed.claim(10)  # ... and the process dies before the POST's outcome is recorded
    restarted = Dispatcher(app_store, settings, clock, rng=random.Random(3))

    assert restarted.run_once(10) == 0  # still leased
    clock.advance(doomed.lease_seconds(10) + 0.001)
    assert restarted.run_once(10) == 1

    [delivery] = receiver.accepted(0)
    assert delivery.id == claimed.id and delivery.verified
    [delivered] = messages(app_store, "delivered")
    assert delivered.attempts == 2


def test_a_worker_that_outlived_its_lease_does_not_overwrite_the_new_attempt(
    table: Any, hooks: Any, receiver: Any, app_store: Any, settings: Any, clock: Any
) -> None:
    table_id, tokens = table.full_table()
    hooks(table_id, 0, tokens[0])
    slow = Dispatcher(app_store, settings, clock)
    [stale] = slow.claim(10)  # ... its POST hangs past the lease
    clock.advance(slow.lease_seconds(10) + 0.001)
    fresh = Dispatcher(app_store, settings, clock, rng=random.Random(3))
    assert fresh.run_once(10) == 1  # claimed again and delivered

    late = slow.deliver(stale)  # the slow worker finally records its outcome

    assert late.status == "lease_lost"
    [delivered] = messages(app_store, "delivered")
    assert delivered.attempts == 2


def test_retries_stop_a_day_after_the_message_was_created(
    table: Any, hooks: Any, app_store: Any, settings: Any, clock: Any
) -> None:
    table_id, tokens = table.full_table()
    hooks(table_id, 0, tokens[0])
    calls: list[Any] = []

    def refusing(url: str, body: bytes, headers: dict[str, str], **kwargs: Any) -> int:
        calls.append(clock.now())
        return 502

    dispatcher = Dispatcher(app_store, settings, clock, http_post=refusing, rng=random.Random(5))
    start = clock.now()
    while messages(app_store, "pending"):
        [pending] = messages(app_store, "pending")
        clock.advance(max((pending.next_attempt_at - clock.now()).total_seconds(), 0) + 0.001)
        dispatcher.run_once(10)

    [failed] = messages(app_store, "failed")
    gaps = [(b - a).total_seconds() for a, b in zip(calls, calls[1:])]
    assert all(0.89 * s <= g <= 1.11 * s for g, s in zip(gaps[:5], (5, 30, 120, 600, 3600)))
    assert all(0.89 * 3600 <= g <= 1.11 * 3600 for g in gaps[5:])
    assert calls[-1] - start <= timedelta(days=1) and calls[-1] - start > timedelta(hours=21)
    assert "gave up" in (failed.last_error or "")
    assert failed.attempts == len(calls)


def test_concurrent_dispatchers_deliver_each_message_once(
    table: Any, hooks: Any, receiver: Any, app_store: Any, settings: Any, clock: Any, database_url: str
) -> None:
    import json
    import threading

    from api.store.sql import SqlStore

    table_id, tokens = table.full_table()
    hooks(table_id, 0, tokens[0])
    with app_store.unit_of_work() as uow:
        for n in range(40):
            body = {"type": "your_turn", "timestamp": "2026-01-01T00:00:00Z", "data": {"n": n}}
            uow.enqueue(OutboxMessage(f"msg_bulk_{n:02d}", table_id, 0, "your_turn", json.dumps(body), 0, clock.now(), "pending", None))
        uow.commit()
    receiver.delay = 0.01
    stores = [SqlStore(database_url) for _ in range(3)]
    errors: list[BaseException] = []
    claimed: list[int] = []

    def work(store: Any) -> None:
        try:
            dispatcher = Dispatcher(store, settings, clock)
            while n := dispatcher.run_once(4):
                claimed.append(n)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(s,)) for s in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for store in stores:
        store.dispose()

    assert errors == []
    assert sum(claimed) == 41  # no message was claimed by two dispatchers
    ids = [d.id for d in receiver.accepted(0)]
    assert sorted(ids) == sorted(set(ids)) and len(ids) == 41  # the 40 and the your_turn for the pass
    assert not messages(app_store, "pending")


def test_the_post_goes_to_the_checked_address_and_follows_no_redirect(receiver: Any) -> None:
    import ipaddress

    from api.service import delivery, webhooks

    secret = webhooks.new_secret()
    receiver.secrets["/hook/0"] = secret
    body = '{"data":{},"timestamp":"2026-01-01T00:00:00Z","type":"your_turn"}'
    stamp = int(time.time())
    headers = {"webhook-id": "msg_x", "webhook-timestamp": str(stamp), "webhook-signature": webhooks.sign(secret, "msg_x", stamp, body)}
    # A name that resolves nowhere: only the pinned address can be reached.
    url = f"http://copas-hook.invalid:{receiver.port}/hook/0"
    pinned = [ipaddress.ip_address("127.0.0.1")]

    assert delivery.post(url, body.encode(), headers, timeout=5, addresses=pinned) == 200
    receiver.answers = [302]
    assert delivery.post(url, body.encode(), headers, timeout=5, addresses=pinned) == 302

    assert [d.status for d in receiver.deliveries] == [200, 302]
    assert receiver.deliveries[0].headers["host"] == f"copas-hook.invalid:{receiver.port}"
