"""Simultaneous requests from real threads (one test client each) against one app.

Commands on a table serialize on its row lock (PostgreSQL `SELECT … FOR UPDATE`,
SQLite `BEGIN IMMEDIATE`): no lost update, no gap or duplicate in the stream,
never a 500.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from httpplay import Game, auth, play_until


def race(app: Any, requests: list[Callable[[Any], Any]]) -> list[Any]:
    """Send the requests at once from one thread each; their responses, in order."""
    barrier = threading.Barrier(len(requests))
    responses: list[Any] = [None] * len(requests)
    errors: list[BaseException] = []

    def run(index: int) -> None:
        client = app.test_client()
        try:
            barrier.wait(timeout=10)
            responses[index] = requests[index](client)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert all(response is not None for response in responses)
    for response in responses:
        assert response.status_code < 500, response.get_data(as_text=True)
    return responses


def assert_stream_is_whole(game: Game) -> list[dict[str, Any]]:
    events = game.events(0)
    assert [event["seq"] for event in events] == list(range(1, len(events) + 1))
    assert game.version() == len(events)
    return events


def test_four_simultaneous_passes_all_succeed_and_the_cards_move_once(app: Any, client: Any) -> None:
    game = Game.humans(client)
    hands = {seat: game.view(seat)["you"]["hand"] for seat in range(4)}
    chosen = {seat: hands[seat][:3] for seat in range(4)}
    before = game.version()

    def passing(seat: int) -> Callable[[Any], Any]:
        return lambda c: c.post(f"{game.url}/passes", json={"cards": chosen[seat]}, headers=auth(game.tokens[seat]))  # type: ignore[arg-type]

    responses = race(app, [passing(seat) for seat in range(4)])

    assert [response.status_code for response in responses] == [201] * 4
    events = assert_stream_is_whole(game)
    assert [event["type"] for event in events[before:]] == ["pass_chosen"] * 4
    public = game.view(0)
    assert public["status"] == "playing" and public["version"] == before + 4
    for seat in range(4):
        you = game.view(seat)["you"]
        assert you["pass"]["received"] == chosen[(seat - 1) % 4]
        assert len(you["hand"]) == 13
        assert sorted(you["hand"]) == sorted((set(hands[seat]) - set(chosen[seat])) | set(chosen[(seat - 1) % 4]))


def test_two_racing_plays_of_the_seat_to_move_give_one_card_and_one_clean_refusal(app: Any, client: Any) -> None:
    game = Game.humans(client)
    game.to_tricks()
    for _ in range(3):  # race three times in the round
        # A seat with two legal cards that does not complete the trick (else it might lead next).
        seat, _, view = play_until(
            game, lambda v: v["you"]["legal_moves"][1] if len(v["you"]["legal_moves"]) > 1 and len(v["trick"]["cards"]) < 3 else None
        )
        first, second = view["you"]["legal_moves"][:2]
        before = game.version()

        def playing(card: str, token: str = game.tokens[seat]) -> Callable[[Any], Any]:  # type: ignore[assignment]
            return lambda c: c.post(f"{game.url}/plays", json={"card": card}, headers=auth(token))

        responses = race(app, [playing(first), playing(second)])

        codes = sorted(response.status_code for response in responses)
        assert codes == [201, 409], [response.get_json() for response in responses]
        refusal = next(response for response in responses if response.status_code == 409)
        assert refusal.get_json()["code"] in ("not_your_turn", "card_not_in_hand", "must_follow_suit")
        played = next(response for response in responses if response.status_code == 201).get_json()
        events = assert_stream_is_whole(game)
        assert game.version() == before + 1
        assert events[-1]["type"] == "card_played" and events[-1]["seat"] == seat
        assert events[-1]["data"]["card"] in (first, second)
        assert events[-1]["data"]["card"] not in played["you"]["hand"]


def test_every_seat_plays_at_once_and_the_trick_holds_exactly_the_accepted_cards(app: Any, client: Any) -> None:
    """Whichever order the requests land in, each accepted card was its seat's turn then."""
    game = Game.humans(client)
    public = game.to_tricks()
    turn = public["turn"]
    hands = {seat: game.view(seat)["you"]["hand"] for seat in range(4)}
    cards = {seat: ("2C" if seat == turn else hands[seat][0]) for seat in range(4)}
    before = game.version()

    def playing(seat: int) -> Callable[[Any], Any]:
        return lambda c: c.post(f"{game.url}/plays", json={"card": cards[seat]}, headers=auth(game.tokens[seat]))  # type: ignore[arg-type]

    responses = race(app, [playing(seat) for seat in range(4)])

    accepted = [seat for seat, response in enumerate(responses) if response.status_code == 201]
    assert turn in accepted
    for seat, response in enumerate(responses):
        if seat not in accepted:
            assert response.status_code == 409
            assert response.get_json()["code"] in ("not_your_turn", "must_follow_suit", "no_points_on_first_trick")
    events = assert_stream_is_whole(game)
    assert game.version() == before + len(accepted)
    view = game.view(0)
    trick = (view["trick"] if len(accepted) < 4 else view["last_trick"])["cards"]
    # The accepted cards form the start of the trick, clockwise from the leader.
    assert [entry["seat"] for entry in trick] == [(turn + offset) % 4 for offset in range(len(accepted))]
    assert trick == [{"seat": e["seat"], "card": e["data"]["card"]} for e in events[before:]]
    assert all(entry["card"] == cards[entry["seat"]] for entry in trick)


def test_the_same_idempotent_move_sent_twice_at_once_is_done_once(app: Any, client: Any) -> None:
    game = Game.humans(client)
    cards = game.view(1)["you"]["hand"][:3]
    before = game.version()

    def passing(c: Any) -> Any:
        return c.post(f"{game.url}/passes", json={"cards": cards}, headers=auth(game.tokens[1], **{"Idempotency-Key": "twice"}))

    responses = race(app, [passing, passing])

    # The second waits on the table's lock, then finds the first one's answer.
    assert [response.status_code for response in responses] == [201, 201], [response.get_json() for response in responses]
    assert responses[0].get_data() == responses[1].get_data()
    assert game.version() == before + 1
    assert_stream_is_whole(game)
