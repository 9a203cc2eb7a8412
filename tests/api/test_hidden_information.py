"""No viewer learns a card it may not know: not from its view, its event list or any header.

A viewer may know: its own dealt cards and hand, its own pass, what it received
once the cards have moved, every card played, every card of a round that has
ended (deal, salt and passes are revealed then), and everything of a finished
match. Before the exchange nobody sees another seat's pass, not even the receiver.
"""

from __future__ import annotations

import random
import re
from typing import Any

from httpplay import Game, auth, card_strings

CARD_TOKEN = re.compile(r"(?<![0-9A-Za-z])[2-9TJQKA][CDHS](?![0-9A-Za-z])")
SPECTATOR = "spectator"


class Knowledge:
    """What each viewer may know of the running round, kept by the test (which sees every seat)."""

    def __init__(self, game: Game, watcher: str) -> None:
        self.game = game
        self.watcher = watcher
        self.new_round()

    def new_round(self) -> None:
        public = self.game.view(0)
        self.match, self.round = public["match"], public["round"]
        self.dealt = {seat: set(self.game.view(seat)["you"]["hand"]) for seat in range(4)}
        self.given: dict[int, list[str]] = {}
        self.received: dict[int, set[str]] = {}
        self.played: set[str] = set()

    def allowed(self, viewer: int | str) -> set[str]:
        known = set(self.played)
        if viewer != SPECTATOR:
            known |= self.dealt[viewer] | self.received.get(viewer, set())  # type: ignore[index]
        return known

    def token(self, viewer: int | str) -> str:
        return self.watcher if viewer == SPECTATOR else self.game.tokens[viewer]  # type: ignore[index,return-value]

    # -- acting (and learning what becomes known) -----------------------------------

    def pass_cards(self, seat: int, cards: list[str]) -> None:
        self.game.pass_cards(seat, cards)
        self.given[seat] = cards
        public = self.game.view(0)
        if public["status"] == "playing":  # the exchange happened
            for giver in range(4):
                receiver_view = self.game.view(receiver(giver, public["pass_direction"]))
                assert receiver_view["you"]["pass"]["received"] == sorted_cards(self.given[giver])
                self.received[receiver(giver, public["pass_direction"])] = set(self.given[giver])

    def play(self, rng: random.Random) -> None:
        public = self.game.view(0)
        seat = public["turn"]
        card = rng.choice(self.game.view(seat)["you"]["legal_moves"])
        self.game.play(seat, card)
        if self.game.view(0)["round"] == self.round and self.game.view(0)["match"] == self.match:
            self.played.add(card)

    # -- checking -------------------------------------------------------------------

    def check_everyone(self) -> None:
        for viewer in (0, 1, 2, 3, SPECTATOR):
            self.check(viewer)

    def check(self, viewer: int | str) -> None:
        allowed = self.allowed(viewer)
        token = self.token(viewer)
        fresh = self.game.get(token)
        response = self.game.get(token)  # the second read comes from the rendered views
        assert response.status_code == 200
        assert response.get_data() == fresh.get_data()
        view = response.get_json()
        assert (view["match"], view["round"]) == (self.match, self.round)
        shown = dict(view)
        last = shown.get("last_trick")
        if last is not None and last.get("round") != self.round:
            shown.pop("last_trick")  # a trick of an ended round: public
        leaked = set(card_strings(shown)) - allowed
        assert not leaked, f"{viewer} sees {sorted(leaked)} in its view"
        assert_no_cards_in_headers(response.headers)
        # The event list: this round's deal and passes show only what the viewer may know;
        # the deals and passes of ended rounds are revealed whole.
        response = self.game.client.get(f"{self.game.url}/events?limit=500", headers=auth(token))
        assert_no_cards_in_headers(response.headers)
        for event in response.get_json()["events"]:
            data = event["data"]
            if event["type"] not in ("round_dealt", "pass_chosen"):
                continue
            if (data["match"], data["round"]) == (self.match, self.round):
                leaked = set(card_strings(event)) - allowed
                assert not leaked, f"{viewer} sees {sorted(leaked)} in {event}"
            elif event["type"] == "round_dealt":
                assert all(hand is not None for hand in data["hands"]) and data["salt"] is not None, event
            else:
                assert data["cards"] is not None, event


def receiver(seat: int, direction: str) -> int:
    return (seat + {"left": 1, "right": 3, "across": 2}[direction]) % 4


def sorted_cards(cards: list[str]) -> list[str]:
    suits, ranks = "CDHS", "23456789TJQKA"
    return sorted(cards, key=lambda card: (suits.index(card[1]), ranks.index(card[0])))


def assert_no_cards_in_headers(headers: Any) -> None:
    for name, value in headers.items():
        assert not CARD_TOKEN.search(value), (name, value)


def test_no_viewer_sees_a_card_it_may_not_know_at_any_point_of_a_match(client: Any) -> None:
    rng = random.Random(2)
    game = Game.humans(client, target_score=50)
    watcher = game.spectator()
    known = Knowledge(game, watcher)

    # Round 1, passing: nothing passed yet, then one, two, three passes.
    known.check_everyone()
    for seat in (0, 1, 2):
        known.pass_cards(seat, sorted(rng.sample(sorted(known.dealt[seat]), 3)))
        known.check_everyone()
    # The fourth pass: the exchange. Then the tricks: after one play, mid-trick, after tricks.
    known.pass_cards(3, sorted(rng.sample(sorted(known.dealt[3]), 3)))
    known.check_everyone()
    for plays in (1, 1, 2, 9):
        for _ in range(plays):
            known.play(rng)
        known.check_everyone()
    # Play out round 1; round 2 (passing to the right) starts with its own secrets.
    while game.view(0)["round"] == 1:
        known.play(rng)
    known.new_round()
    assert game.view(0)["pass_direction"] == "right"
    known.check_everyone()
    for seat in (3, 1):
        known.pass_cards(seat, sorted(rng.sample(sorted(known.dealt[seat]), 3)))
    known.check_everyone()
    for seat in (0, 2):
        known.pass_cards(seat, sorted(rng.sample(sorted(known.dealt[seat]), 3)))
    for _ in range(6):
        known.play(rng)
    known.check_everyone()

    # After the match every card of it is public: every deal, salt and pass, for everyone.
    game.play_to_end(rng)
    for token in [*game.tokens, watcher]:
        events = game.events(token)
        for event in events:
            if event["type"] == "round_dealt":
                assert all(len(hand) == 13 for hand in event["data"]["hands"]) and event["data"]["salt"]
            if event["type"] == "pass_chosen":
                assert len(event["data"]["cards"]) == 3


def test_before_the_exchange_nobody_sees_another_seats_pass_not_even_the_receiver(client: Any) -> None:
    game = Game.humans(client)
    watcher = game.spectator()
    given = game.view(0)["you"]["hand"][-3:]
    mine = game.pass_cards(0, given)
    assert mine["you"]["pass"] == {"direction": "left", "given": given, "received": None}
    assert mine["you"]["hand"] == [card for card in game.view(0)["you"]["hand"] if card not in given]
    assert len(mine["you"]["hand"]) == 10 and mine["seats"][0]["hand_size"] == 10
    for token in [game.tokens[1], game.tokens[2], game.tokens[3], watcher]:
        view = game.view(token)
        assert view["seats"][0]["has_passed"] is True
        assert not set(card_strings(view)) & set(given) - set(view["you"]["hand"])
        if view["you"]["pass"] is not None:
            assert view["you"]["pass"]["received"] is None
        passes = [event for event in game.events(token) if event["type"] == "pass_chosen"]
        assert [event["data"]["cards"] for event in passes] == [None]
    # Seat 1, the receiver, learns the cards only when they arrive.
    for seat in (1, 2, 3):
        game.pass_cards(seat, game.view(seat)["you"]["hand"][:3])
    receiver_view = game.view(1)
    assert receiver_view["you"]["pass"]["received"] == given
    assert set(given) <= set(receiver_view["you"]["hand"])
    seen = {event["seat"]: event["data"]["cards"] for event in game.events(1) if event["type"] == "pass_chosen"}
    assert seen[0] == given
    assert seen[2] is None and seen[3] is None
    # The spectator still sees no pass at all.
    assert all(event["data"]["cards"] is None for event in game.events(watcher) if event["type"] == "pass_chosen")


def _world(monkeypatch: Any, second_pass: int) -> dict[str, Any]:
    """One table, with a fixed id and deal; seat 1 passes a choice depending on `second_pass`.
    Returns what seats 0, 2, 3 and a spectator observe (views, ETags, events)."""
    from api import create_app
    from api.config import Settings
    from api.service import credentials
    from api.service.clock import FakeClock
    from api.store import open_store

    monkeypatch.setattr(credentials, "new_table_id", lambda: "fixedtable0000000000")
    app = create_app(Settings(public_url="http://testserver"), store=open_store("memory://"), clock=FakeClock(), rng=random.Random(99))
    game = Game.humans(app.test_client())
    watcher = game.spectator()
    game.pass_cards(0, game.view(0)["you"]["hand"][:3])
    hand = game.view(1)["you"]["hand"]
    game.pass_cards(1, hand[:3] if second_pass == 0 else hand[-3:])
    game.pass_cards(2, game.view(2)["you"]["hand"][:3])
    observed: dict[str, Any] = {}
    for name, token in (("seat0", game.tokens[0]), ("seat2", game.tokens[2]), ("seat3", game.tokens[3]), ("watcher", watcher)):
        response = game.get(token)  # type: ignore[arg-type]
        observed[name] = {
            "etag": response.headers["ETag"],
            "view": response.get_json(),
            "events": game.events(token),  # type: ignore[arg-type]
        }
    return observed


def test_what_others_observe_does_not_depend_on_a_seats_secret_pass(monkeypatch: Any) -> None:
    """Two worlds that differ only in the three cards seat 1 chose: before the exchange,
    every other viewer gets byte-identical views, events and ETags in both."""
    first = _world(monkeypatch, 0)
    second = _world(monkeypatch, 1)
    assert first["seat0"]["view"]["you"]["hand"] == second["seat0"]["view"]["you"]["hand"]
    for name in ("seat0", "seat2", "seat3", "watcher"):
        assert first[name] == second[name], name
