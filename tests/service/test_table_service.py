"""The table service on the in-memory store: the state cache, bots, notifications.

Fast: no HTTP, no database; a FakeClock and a seeded random source.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from api.config import Settings
from api.engine import replay
from api.engine.errors import NotYourTurn, RuleViolation
from api.engine.state import Options, Revoke
from api.service import notify
from api.service.clock import FakeClock
from api.service.tables import Access, StateCache, TableService
from api.store import codec, open_store

SETTINGS = Settings(webhook_allowed_hosts=("127.0.0.1",))


class CountingStore:
    """The store, counting how many events each unit of work loads."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.loaded: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def unit_of_work(self, **kwargs: Any) -> Any:
        outer = self
        inner = self.store.unit_of_work(**kwargs)

        class Counting:
            def __enter__(self) -> Any:
                uow = inner.__enter__()
                original = uow.load_events

                def load_events(*args: Any, **kw: Any) -> Any:
                    events = original(*args, **kw)
                    outer.loaded.append(len(events))
                    return events

                uow.load_events = load_events
                return uow

            def __exit__(self, *exc: Any) -> Any:
                return inner.__exit__(*exc)

        return Counting()


@pytest.fixture
def service() -> TableService:
    return TableService(CountingStore(open_store("memory://")), SETTINGS, FakeClock(), random.Random(3))  # type: ignore[arg-type]


def four_humans(service: TableService, **options: Any) -> tuple[str, list[Access]]:
    created = service.create_table("Ana", Options(**options))
    tokens = [created.token] + [service.join(created.invite_code or "", name).token for name in ("Bruno", "Carla", "Davi")]
    return created.table_id, [service.authenticate(created.table_id, token) for token in tokens]


def fresh_replay(service: TableService, table_id: str) -> Any:
    """The table's state replayed from its whole stream, bypassing every cache."""
    with service.store.unit_of_work(readonly=True) as uow:
        stored = uow.load_events(table_id)
    return replay(codec.decode(event) for event in stored)


def hand(service: TableService, who: Access) -> list[str]:
    return service.view(who)["you"]["hand"]


def test_a_command_replays_only_the_events_newer_than_the_cached_state(service: TableService) -> None:
    table_id, seats = four_humans(service)
    cached = service.cache.get(table_id)
    assert cached is not None and cached.version == service.version(table_id)
    store: CountingStore = service.store  # type: ignore[assignment]
    store.loaded.clear()
    service.choose_pass(seats[0], tuple(hand(service, seats[0])[:3]))
    # The view read the cache (nothing newer to load), and so did the command.
    assert sum(store.loaded) == 0
    assert service.cache.get(table_id).version == service.version(table_id)  # type: ignore[union-attr]
    # Without the cache, the same kind of command replays the whole stream.
    service.cache = StateCache()
    store.loaded.clear()
    service.choose_pass(seats[1], tuple(hand(service, seats[1])[:3]))
    assert sum(store.loaded) >= service.version(table_id) - 1


def test_a_refused_move_leaves_the_cache_and_the_next_command_correct(service: TableService) -> None:
    table_id, seats = four_humans(service)
    for who in seats:
        service.choose_pass(who, tuple(hand(service, who)[:3]))
    state = service.state(table_id)
    mover, other = state.turn, (state.turn + 1) % 4  # type: ignore[operator]
    version = state.version

    with pytest.raises(NotYourTurn):
        service.play(seats[other], hand(service, seats[other])[0])
    with pytest.raises(RuleViolation):
        service.play(seats[mover], next(c for c in hand(service, seats[mover]) if c != "2C"))

    assert service.version(table_id) == version
    assert service.cache.get(table_id).version == version  # type: ignore[union-attr]
    outcome = service.play(seats[mover], "2C")
    assert outcome.state.version == version + 1
    assert outcome.state == fresh_replay(service, table_id)
    assert outcome.state.turn == other


@pytest.mark.parametrize("way", ["under the lock", "without the lock"])
def test_a_command_that_fails_after_deciding_leaves_no_trace_in_the_cache(service: TableService, monkeypatch: pytest.MonkeyPatch, way: str) -> None:
    table_id, seats = four_humans(service)
    version = service.version(table_id)
    cards = tuple(hand(service, seats[0])[:3])

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the database is down")

    if way == "under the lock":  # the compare-and-set lost: the locked way, whose outbox breaks
        monkeypatch.setattr(service.store, "append_if_current", lambda *args, **kwargs: None)
        monkeypatch.setattr(notify, "enqueue", broken)
    else:
        monkeypatch.setattr(service.store, "append_if_current", broken)
    with pytest.raises(RuntimeError):
        service.choose_pass(seats[0], cards)
    monkeypatch.undo()

    # Nothing was committed, and the cache still holds the committed state.
    assert service.version(table_id) == version
    assert service.cache.get(table_id).version == version  # type: ignore[union-attr]
    assert service.view(seats[0])["you"]["pass"]["given"] is None
    outcome = service.choose_pass(seats[0], cards)
    assert outcome.state.version == version + 1
    assert outcome.state == fresh_replay(service, table_id)


def test_a_stale_cache_entry_is_caught_up_from_the_store(service: TableService) -> None:
    table_id, seats = four_humans(service)
    early = service.state(table_id)
    service.choose_pass(seats[1], tuple(hand(service, seats[1])[:3]))
    # Another process would have this older state cached: put it back by force.
    service.cache = StateCache()
    service.cache.put(table_id, early)
    outcome = service.choose_pass(seats[2], tuple(hand(service, seats[2])[:3]))
    assert outcome.state == fresh_replay(service, table_id)
    assert [p is not None for p in outcome.state.round.passes] == [False, True, True, False]  # type: ignore[union-attr]


def test_bots_answer_within_the_same_command(service: TableService) -> None:
    created = service.create_table("Ana", Options())
    me = service.authenticate(created.table_id, created.token)
    outcome = service.seat_bots(me, (), "basic")
    state = outcome.state
    # Seating the bots started the match, dealt, and the bots chose their passes.
    assert state.round is not None and state.round.is_passing
    assert [p is not None for p in state.round.passes] == [False, True, True, True]
    assert state.awaiting == (0,)
    outcome = service.choose_pass(me, tuple(hand(service, me)[:3]))
    # After the exchange the bots played until it was the human's turn.
    state = outcome.state
    assert state.round is not None and state.round.exchanged
    assert state.turn == 0
    assert outcome.state == fresh_replay(service, created.table_id)
    # Each of the human's plays is answered by the bots in the same command.
    for _ in range(13):
        if state.turn != 0:
            break
        card = service.view(me)["you"]["legal_moves"][0]
        version = state.version
        state = service.play(me, card).state
        assert state.version > version
        assert state.turn in (0, None)
    assert state.match is not None and len(state.match.history) == 1


# -- notifications ---------------------------------------------------------------------


def your_turn(planned: list[notify.Notification]) -> dict[int, str]:
    return {n.seat: n.data["action"] for n in planned if n.type == "your_turn"}


def test_notifications_are_planned_when_an_action_becomes_due(service: TableService) -> None:
    created = service.create_table("Ana", Options())
    table_id = created.table_id
    tokens = [created.token]
    before = service.state(table_id)
    for name in ("Bruno", "Carla"):
        tokens.append(service.join(created.invite_code or "", name).token)
    waiting = service.state(table_id)
    assert your_turn(notify.plan(table_id, before, waiting)) == {}
    tokens.append(service.join(created.invite_code or "", "Davi").token)
    started = service.state(table_id)
    # The deal makes every seat's pass due.
    planned = notify.plan(table_id, waiting, started)
    assert your_turn(planned) == {0: "pass", 1: "pass", 2: "pass", 3: "pass"}
    assert all(n.data["version"] == started.version and n.data["table_id"] == table_id for n in planned)
    seats = [service.authenticate(table_id, token) for token in tokens]
    # A pass makes nothing newly due for the others.
    after = service.choose_pass(seats[0], tuple(hand(service, seats[0])[:3])).state
    assert notify.plan(table_id, started, after) == []
    for who in seats[1:3]:
        after = service.choose_pass(who, tuple(hand(service, who)[:3])).state
    last = after
    after = service.choose_pass(seats[3], tuple(hand(service, seats[3])[:3])).state
    # The exchange: only the holder of 2C is told to play.
    assert your_turn(notify.plan(table_id, last, after)) == {after.turn: "play"}
    # A play: the next seat is told.
    mover = after.turn
    played = service.play(seats[mover], "2C").state  # type: ignore[index]
    assert your_turn(notify.plan(table_id, after, played)) == {played.turn: "play"}
    assert played.turn == (mover + 1) % 4  # type: ignore[operator]
    # The end of the match: every human is told, nobody is told to act.
    finished = service.resign(seats[2]).state
    planned = notify.plan(table_id, played, finished)
    assert your_turn(planned) == {}
    ended = [n for n in planned if n.type == "match_finished"]
    assert sorted(n.seat for n in ended) == [0, 1, 2, 3]
    assert all(n.data["reason"] == "resign" and n.data["winners"] == [0, 1, 3] for n in ended)


def test_bots_are_never_notified(service: TableService) -> None:
    created = service.create_table("Ana", Options(revoke=Revoke.PREVENTED))
    me = service.authenticate(created.table_id, created.token)
    before = service.state(created.table_id)
    after = service.seat_bots(me, (), "basic").state
    planned = notify.plan(created.table_id, before, after)
    assert your_turn(planned) == {0: "pass"}
    finished = service.resign(me).state
    assert sorted(n.seat for n in notify.plan(created.table_id, after, finished) if n.type == "match_finished") == [0]


def test_the_outbox_gets_a_message_only_for_seats_with_a_webhook(service: TableService) -> None:
    table_id, seats = four_humans(service)
    _, secret = service.change_preferences(seats[1], {"webhook_url": "http://127.0.0.1:9/hook"})
    assert secret is not None and secret.startswith("whsec_")
    for who in seats:
        service.choose_pass(who, tuple(hand(service, who)[:3]))
    state = service.state(table_id)
    if state.turn != 1:  # play until seat 1's turn becomes due
        while state.turn != 1:
            state = service.play(seats[state.turn], service.view(seats[state.turn])["you"]["legal_moves"][0]).state  # type: ignore[index]
    with service.store.unit_of_work() as uow:
        due = uow.claim_due(service.clock.now(), 100)
        uow.commit()
    assert due and {message.seat for message in due} == {1}
    assert all(message.type == "your_turn" for message in due)
