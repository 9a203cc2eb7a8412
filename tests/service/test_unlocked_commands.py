"""Commands without the lock: a move on a state the node knows to be current is one compare-and-set.

Two services on one store stand for two nodes. A node whose version map has
not yet heard of another node's commit (the feed's few milliseconds) is made
by telling its map the old version.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from api.config import Settings
from api.engine import replay
from api.engine.commands import PlayCard
from api.engine.errors import NotYourTurn
from api.service.clock import FakeClock
from api.service.tables import Access, TableService
from api.store import codec, open_store

SETTINGS = Settings(webhook_allowed_hosts=("127.0.0.1",))


class Recording:
    """A store that counts its units of work and its appends without the lock."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.units = 0
        self.unlocked: list[bool] = []  # each append_if_current: did it append?

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def unit_of_work(self, **kwargs: Any) -> Any:
        self.units += 1
        return self.store.unit_of_work(**kwargs)

    def append_if_current(self, *args: Any, **kwargs: Any) -> Any:
        stored = self.store.append_if_current(*args, **kwargs)
        self.unlocked.append(stored is not None)
        return stored

    def reset(self) -> None:
        self.units, self.unlocked = 0, []


@pytest.fixture
def shared() -> Any:
    return open_store("memory://")


def node(store: Any, seed: int) -> TableService:
    return TableService(Recording(store), SETTINGS, FakeClock(), random.Random(seed))  # type: ignore[arg-type]


def four_humans(service: TableService) -> tuple[str, list[str]]:
    from api.engine.state import Options

    created = service.create_table("Ana", Options())
    tokens = [created.token] + [service.join(created.invite_code or "", name).token for name in ("Bruno", "Carla", "Davi")]
    return created.table_id, tokens


def seats_of(service: TableService, table_id: str, tokens: list[str]) -> list[Access]:
    return [service.authenticate(table_id, token) for token in tokens]


def hand(service: TableService, who: Access) -> list[str]:
    return service.view(who)["you"]["hand"]


def stored_state(store: Any, table_id: str) -> Any:
    with store.unit_of_work(readonly=True) as uow:
        return replay(codec.decode(event) for event in uow.load_events(table_id))


def not_yet_heard(service: TableService, table_id: str, version: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """This node's map still vouches for `version`: the other node's notification is on its way."""
    real = service.versions.known
    monkeypatch.setattr(service.versions, "known", lambda asked: version if asked == table_id else real(asked))


def test_a_move_on_a_current_state_opens_no_unit_of_work(shared: Any) -> None:
    service = node(shared, 1)
    table_id, tokens = four_humans(service)
    seats = seats_of(service, table_id, tokens)
    recording: Recording = service.store  # type: ignore[assignment]
    cards = tuple(hand(service, seats[0])[:3])
    recording.reset()
    outcome = service.choose_pass(seats[0], cards)
    assert (recording.units, recording.unlocked) == (0, [True])
    assert outcome.state == stored_state(shared, table_id)
    assert outcome.state.round.passes[0] is not None  # type: ignore[union-attr]


def test_a_move_on_a_state_another_node_moved_past_is_decided_again_under_the_lock(shared: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = node(shared, 1), node(shared, 2)
    table_id, tokens = four_humans(a)
    on_a, on_b = seats_of(a, table_id, tokens), seats_of(b, table_id, tokens)
    cards = tuple(hand(b, on_b[1])[:3])
    early = b.state(table_id)  # node B holds the state as it was before A's pass
    a.choose_pass(on_a[0], tuple(hand(a, on_a[0])[:3]))
    not_yet_heard(b, table_id, early.version, monkeypatch)
    recording: Recording = b.store  # type: ignore[assignment]
    recording.reset()

    outcome = b.choose_pass(on_b[1], cards)

    # B's state accepted the pass, its compare-and-set lost, and the lock's way kept both passes.
    assert recording.unlocked == [False] and recording.units == 1
    assert outcome.state.version == early.version + 2
    assert outcome.state == stored_state(shared, table_id)
    assert [p is not None for p in outcome.state.round.passes] == [True, True, False, False]  # type: ignore[union-attr]


def test_a_move_refused_by_a_stale_state_is_accepted_by_the_stored_one(shared: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = node(shared, 1), node(shared, 2)
    table_id, tokens = four_humans(a)
    on_a, on_b = seats_of(a, table_id, tokens), seats_of(b, table_id, tokens)
    for who in on_a:
        a.choose_pass(who, tuple(hand(a, who)[:3]))
    first = a.state(table_id).turn
    assert first is not None
    early = b.state(table_id)  # seat `first` leads with 2C in B's state
    a.play(on_a[first], "2C")
    not_yet_heard(b, table_id, early.version, monkeypatch)
    second = (first + 1) % 4
    card = a.view(on_a[second])["you"]["legal_moves"][0]
    with pytest.raises(NotYourTurn):  # what B's state alone would answer
        b._play(early, PlayCard(second, card), b.clock.now())
    recording: Recording = b.store  # type: ignore[assignment]
    recording.reset()

    outcome = b.play(on_b[second], card)

    assert recording.unlocked == [] and recording.units == 1  # refused without the lock, so decided under it
    assert outcome.state == stored_state(shared, table_id)
    assert outcome.state.version == early.version + 2


def test_a_table_with_a_webhook_queues_its_notifications_whichever_node_moves(shared: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = node(shared, 1), node(shared, 2)
    table_id, tokens = four_humans(a)
    on_a, on_b = seats_of(a, table_id, tokens), seats_of(b, table_id, tokens)
    b.state(table_id)  # B holds the current state and has never seen a webhook here
    a.change_preferences(on_a[1], {"webhook_url": "http://127.0.0.1:9/hook"})
    recording: Recording = b.store  # type: ignore[assignment]
    recording.reset()

    for who in on_b:
        b.choose_pass(who, tuple(hand(b, who)[:3]))

    # The first pass tried without the lock and lost on the row's webhook count; the
    # rest went the locked way at once, and seat 1 was told its turns.
    assert recording.unlocked == [False]
    state = stored_state(shared, table_id)
    while state.turn != 1:
        state = b.play(on_b[state.turn], b.view(on_b[state.turn])["you"]["legal_moves"][0]).state  # type: ignore[index]
    assert recording.unlocked == [False]
    with shared.unit_of_work() as uow:
        due = uow.claim_due(b.clock.now(), 100)
    assert due and {(message.seat, message.type) for message in due} == {(1, "your_turn")}


def test_a_precondition_a_current_state_fails_is_refused_as_the_locked_way_refuses(shared: Any) -> None:
    from api.service.errors import StaleVersion

    service = node(shared, 1)
    table_id, tokens = four_humans(service)
    seats = seats_of(service, table_id, tokens)
    version = service.version(table_id)
    with pytest.raises(StaleVersion):
        service.choose_pass(seats[0], tuple(hand(service, seats[0])[:3]), precondition=lambda seen: seen == version - 1)
    assert stored_state(shared, table_id).version == version
