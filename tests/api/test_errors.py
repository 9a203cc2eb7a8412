"""Every error code of the contract through HTTP: its status, the problem+json shape,
and that a refused request writes no event (the version stays where it was)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from httpplay import Game, accuse_through_rounds, assert_problem, auth, play_until

CLUBS, HEARTS = "C", "H"
POINT_CARDS = {f"{rank}H" for rank in "23456789TJQKA"} | {"QS"}
ALL_CARDS = [rank + suit for suit in "CDHS" for rank in "23456789TJQKA"]


def refused(game: Game, send: Callable[[], Any], status: int, code: str) -> dict[str, Any]:
    """`send()` is refused with this status and code, and the table's stream does not move."""
    before = game.version()
    events_before = len(game.events(game.any_token()))
    body = assert_problem(send(), status, code)
    assert game.version() == before
    assert len(game.events(game.any_token())) == events_before
    return body


def not_in_hand(view: dict[str, Any]) -> str:
    return next(card for card in ALL_CARDS if card not in view["you"]["hand"])


# -- 401, 403, 404 ---------------------------------------------------------------


def test_a_request_without_a_token_or_with_an_unknown_one_is_unauthenticated(client: Any) -> None:
    game = Game.humans(client)
    refused(game, lambda: client.get(game.url), 401, "unauthenticated")
    refused(game, lambda: client.get(game.url, headers=auth("not-a-token-of-anything")), 401, "unauthenticated")
    refused(game, lambda: client.post(f"{game.url}/passes", json={"cards": ["2C", "3C", "4C"]}), 401, "unauthenticated")
    refused(game, lambda: client.get(game.url, headers={"Authorization": "Basic abc"}), 401, "unauthenticated")


def test_a_spectator_posting_a_move_is_forbidden(client: Any) -> None:
    game = Game.humans(client)
    watcher = game.spectator()
    refused(game, lambda: game.post(watcher, "passes", {"cards": ["2C", "3C", "4C"]}), 403, "forbidden")
    game.to_tricks()
    refused(game, lambda: game.post(watcher, "plays", {"card": "2C"}), 403, "forbidden")
    refused(game, lambda: game.post(watcher, "resignation"), 403, "forbidden")


def test_only_the_creator_adds_bots(client: Any) -> None:
    game = Game.create(client)
    game.tokens[1] = game.join("Bruno")["token"]
    refused(game, lambda: game.post(1, "bots", {}), 403, "forbidden")
    assert [seat["kind"] for seat in game.view(0)["seats"]] == ["human", "human", "empty", "empty"]


def test_an_awaited_seat_cannot_ask_for_abandonment(client: Any, clock: Any) -> None:
    game = Game.humans(client)
    clock.advance(72 * 3600)
    assert 0 in game.view(0)["awaiting"]
    refused(game, lambda: game.post(0, "abandonment"), 403, "forbidden")


def test_a_token_of_another_table_finds_nothing(client: Any) -> None:
    game = Game.humans(client)
    other = Game.create(client, name="Zoe")
    refused(game, lambda: client.get(game.url, headers=auth(other.tokens[0])), 404, "not_found")
    refused(game, lambda: client.post(f"{game.url}/plays", json={"card": "2C"}, headers=auth(other.tokens[0])), 404, "not_found")
    refused(game, lambda: client.get(f"{game.url}/events", headers=auth(other.tokens[0])), 404, "not_found")
    # A table that does not exist looks the same as one that is not yours.
    assert_problem(client.get("/v1/tables/doesnotexist", headers=auth(game.tokens[0])), 404, "not_found")
    assert_problem(client.post("/v1/invites/no-such-invite/join", json={"name": "Eva"}), 404, "not_found")


# -- 422 -------------------------------------------------------------------------


BAD_BODIES = [
    ("plays", {"card": "1X"}, "card"),
    ("plays", {}, "card"),
    ("plays", {"card": "2C", "extra": 1}, "extra"),
    ("passes", {"cards": ["2C", "3C"]}, "cards"),
    ("passes", {"cards": ["2C", "2C", "3C"]}, "cards"),
    ("accusations", {"seat": 4}, "seat"),
    ("bots", {"seats": [5]}, "seats"),
]


def test_a_body_that_does_not_match_the_schema_lists_the_fields(client: Any) -> None:
    game = Game.humans(client, revoke="allowed")
    for action, body, field in BAD_BODIES:
        problem = refused(game, lambda: game.post(0, action, body), 422, "validation_error")  # noqa: B023
        assert field in problem["errors"]["json"], (action, body, problem)


def test_a_query_that_does_not_match_the_schema_is_a_validation_error(client: Any) -> None:
    game = Game.humans(client)
    problem = refused(game, lambda: client.get(f"{game.url}?wait=31", headers=auth(game.tokens[0])), 422, "validation_error")
    assert "wait" in problem["errors"]["query"]
    problem = refused(game, lambda: client.get(f"{game.url}/events?limit=501", headers=auth(game.tokens[0])), 422, "validation_error")
    assert "limit" in problem["errors"]["query"]


def test_names_with_nul_characters_are_refused(client: Any) -> None:
    assert_problem(client.post("/v1/tables", json={"name": "A\u0000na"}), 422, "validation_error")
    assert_problem(client.post("/v1/tables", json={"name": "Ana", "target_score": 1001}), 422, "validation_error")


def test_a_body_over_64_kib_is_too_large(client: Any) -> None:
    response = client.post("/v1/tables", data='{"name": "' + "a" * 70_000 + '"}', content_type="application/json")
    assert response.status_code == 413
    assert response.mimetype == "application/problem+json"


# -- 409: moves the state does not allow ----------------------------------------------


def test_playing_while_the_seats_pass_is_the_wrong_phase(client: Any) -> None:
    game = Game.humans(client)
    refused(game, lambda: game.post(0, "plays", {"card": game.view(0)["you"]["hand"][0]}), 409, "wrong_phase")


def test_passing_during_the_tricks_is_the_wrong_phase(client: Any) -> None:
    game = Game.humans(client)
    game.to_tricks()
    refused(game, lambda: game.post(1, "passes", {"cards": game.view(1)["you"]["hand"][:3]}), 409, "wrong_phase")


def test_an_accusation_while_passing_is_the_wrong_phase(client: Any) -> None:
    game = Game.humans(client, revoke="allowed")
    refused(game, lambda: game.post(0, "accusations", {"seat": 1}), 409, "wrong_phase")


def test_a_seat_that_is_not_to_move_is_refused(client: Any) -> None:
    game = Game.humans(client)
    public = game.to_tricks()
    waiting = (public["turn"] + 1) % 4
    refused(game, lambda: game.post(waiting, "plays", {"card": game.view(waiting)["you"]["hand"][0]}), 409, "not_your_turn")


def test_a_card_not_in_hand_is_refused_for_plays_and_passes(client: Any) -> None:
    game = Game.humans(client)
    view = game.view(2)
    hand = view["you"]["hand"]
    refused(game, lambda: game.post(2, "passes", {"cards": [*hand[:2], not_in_hand(view)]}), 409, "card_not_in_hand")
    public = game.to_tricks()
    mover = game.view(public["turn"])
    refused(game, lambda: game.post(public["turn"], "plays", {"card": not_in_hand(mover)}), 409, "card_not_in_hand")


def test_the_first_lead_must_be_the_two_of_clubs(client: Any) -> None:
    game = Game.humans(client)
    public = game.to_tricks()
    mover = game.view(public["turn"])
    assert "2C" in mover["you"]["hand"] and mover["you"]["legal_moves"] == ["2C"]
    other = next(card for card in mover["you"]["hand"] if card != "2C")
    refused(game, lambda: game.post(public["turn"], "plays", {"card": other}), 409, "must_lead_two_of_clubs")


def test_a_seat_holding_the_led_suit_must_follow_it(client: Any) -> None:
    game = Game.humans(client)
    game.to_tricks()

    def off_suit(view: dict[str, Any]) -> str | None:
        cards = view["trick"]["cards"]
        if not cards:
            return None
        led = cards[0]["card"][1]
        hand = view["you"]["hand"]
        if any(card[1] == led for card in hand):
            return next((card for card in hand if card[1] != led), None)
        return None

    seat, card, _ = play_until(game, off_suit)
    refused(game, lambda: game.post(seat, "plays", {"card": card}), 409, "must_follow_suit")


def test_no_points_on_the_first_trick_for_a_seat_void_in_clubs(client: Any) -> None:
    """Arrange a void in clubs by the pass: a seat with at most three clubs passes them all
    (left, round 1), and the seat passing to it gives no clubs but a point card if it can."""
    game = Game.humans(client)
    hands = {seat: game.view(seat)["you"]["hand"] for seat in range(4)}
    void = next(seat for seat in range(4) if sum(card[1] == CLUBS for card in hands[seat]) <= 3)
    giver = (void + 3) % 4  # left: seat s gives to s+1
    clubs = [card for card in hands[void] if card[1] == CLUBS]
    filler = [card for card in hands[void] if card[1] != CLUBS and card not in POINT_CARDS]
    game.pass_cards(void, sorted(clubs + filler[: 3 - len(clubs)]))
    non_clubs = [card for card in hands[giver] if card[1] != CLUBS]
    points = [card for card in non_clubs if card in POINT_CARDS][:1]
    gift = points + [card for card in non_clubs if card not in points][: 3 - len(points)]
    game.pass_cards(giver, sorted(gift))
    for seat in range(4):
        if seat not in (void, giver):
            game.pass_cards(seat, hands[seat][-3:])
    view = game.view(void)
    hand = view["you"]["hand"]
    assert not any(card[1] == CLUBS for card in hand)
    point_card = next(card for card in hand if card in POINT_CARDS)
    assert any(card not in POINT_CARDS for card in hand)

    seat, card, _ = play_until(game, lambda v: point_card if v["you"]["seat"] == void else None)
    refused(game, lambda: game.post(seat, "plays", {"card": card}), 409, "no_points_on_first_trick")
    assert point_card not in game.view(void)["you"]["legal_moves"]


def test_hearts_may_not_be_led_before_they_are_broken(client: Any) -> None:
    game = Game.humans(client)
    game.to_tricks()

    def heart_lead(view: dict[str, Any]) -> str | None:
        hand = view["you"]["hand"]
        leading = view["trick"]["number"] > 1 and not view["trick"]["cards"]
        if leading and not view["hearts_broken"] and any(c[1] != HEARTS for c in hand):
            return next((c for c in hand if c[1] == HEARTS), None)
        return None

    seat, card, view = play_until(game, heart_lead)
    refused(game, lambda: game.post(seat, "plays", {"card": card}), 409, "hearts_not_broken")
    assert not any(c[1] == HEARTS for c in view["you"]["legal_moves"])


def test_a_second_pass_is_refused(client: Any) -> None:
    game = Game.humans(client)
    hand = game.view(1)["you"]["hand"]
    game.pass_cards(1, hand[:3])
    refused(game, lambda: game.post(1, "passes", {"cards": hand[3:6]}), 409, "pass_already_submitted")
    refused(game, lambda: game.post(1, "passes", {"cards": hand[:3]}), 409, "pass_already_submitted")


def test_round_four_has_no_pass(client: Any) -> None:
    game = Game.humans(client, revoke="allowed")
    view = accuse_through_rounds(game, 3)
    assert (view["round"], view["pass_direction"], view["status"]) == (4, "none", "playing")
    assert view["you"]["pass"] is None
    refused(game, lambda: game.post(0, "passes", {"cards": view["you"]["hand"][:3]}), 409, "no_pass_this_round")


def test_accusing_on_a_table_that_prevents_revokes_is_refused(client: Any) -> None:
    game = Game.humans(client)
    game.to_tricks()
    refused(game, lambda: game.post(0, "accusations", {"seat": 1}), 409, "revoke_not_allowed")


def test_a_seat_cannot_accuse_itself(client: Any) -> None:
    game = Game.humans(client, revoke="allowed")
    game.to_tricks()
    refused(game, lambda: game.post(3, "accusations", {"seat": 3}), 409, "cannot_accuse_self")


def test_bots_for_a_full_table_or_a_taken_seat_are_refused(client: Any) -> None:
    game = Game.create(client)
    game.tokens[1] = game.join("Bruno")["token"]
    refused(game, lambda: game.post(0, "bots", {"seats": [1]}), 409, "seat_taken")
    refused(game, lambda: game.post(0, "bots", {"seats": [0, 2]}), 409, "seat_taken")
    full = Game.humans(client)
    refused(full, lambda: full.post(0, "bots", {}), 409, "table_full")


def test_moves_without_a_running_match_are_refused(client: Any) -> None:
    game = Game.create(client)
    refused(game, lambda: game.post(0, "plays", {"card": "2C"}), 409, "match_not_running")
    refused(game, lambda: game.post(0, "passes", {"cards": ["2C", "3C", "4C"]}), 409, "match_not_running")
    refused(game, lambda: game.post(0, "resignation"), 409, "match_not_running")
    refused(game, lambda: game.post(0, "abandonment"), 409, "match_not_running")


def test_a_rematch_before_the_match_has_finished_is_refused(client: Any) -> None:
    game = Game.humans(client)
    refused(game, lambda: game.post(0, "rematch"), 409, "match_not_finished")


def test_abandonment_before_the_stall_time_is_refused(client: Any, clock: Any) -> None:
    game = Game.humans(client)
    game.pass_cards(0, game.view(0)["you"]["hand"][:3])
    clock.advance(3600)
    refused(game, lambda: game.post(0, "abandonment"), 409, "not_stalled")


def test_a_stale_if_match_is_a_precondition_failure(client: Any) -> None:
    game = Game.humans(client)
    old = game.version()
    game.pass_cards(0, game.view(0)["you"]["hand"][:3])
    hand = game.view(1)["you"]["hand"]
    refused(game, lambda: game.post(1, "passes", {"cards": hand[:3]}, **{"If-Match": str(old)}), 412, "stale_version")


# -- the order of the codes when a move breaks several rules ---------------------------


def test_after_the_match_every_move_is_match_not_running_first(client: Any) -> None:
    game = Game.humans(client)
    assert game.post(1, "resignation").status_code == 201
    # Not this seat's turn, a card it does not hold, a pass in the wrong phase: match_not_running wins.
    refused(game, lambda: game.post(2, "plays", {"card": "2C"}), 409, "match_not_running")
    refused(game, lambda: game.post(2, "passes", {"cards": ["2C", "3C", "4C"]}), 409, "match_not_running")


def test_a_pass_in_round_four_is_no_pass_this_round_not_wrong_phase(client: Any) -> None:
    game = Game.humans(client, revoke="allowed")
    view = accuse_through_rounds(game, 3)
    # During the tricks, and with a card the seat does not hold: still no_pass_this_round.
    refused(game, lambda: game.post(1, "passes", {"cards": ["2C", "3C", "4C"]}), 409, "no_pass_this_round")
    assert view["round"] == 4


def test_a_play_while_passing_with_a_card_not_held_is_the_wrong_phase(client: Any) -> None:
    game = Game.humans(client)
    view = game.view(0)
    refused(game, lambda: game.post(0, "plays", {"card": not_in_hand(view)}), 409, "wrong_phase")


def test_not_your_turn_comes_before_card_not_in_hand(client: Any) -> None:
    game = Game.humans(client)
    public = game.to_tricks()
    waiting = (public["turn"] + 2) % 4
    refused(game, lambda: game.post(waiting, "plays", {"card": not_in_hand(game.view(waiting))}), 409, "not_your_turn")


def test_card_not_in_hand_comes_before_the_two_of_clubs_lead(client: Any) -> None:
    game = Game.humans(client)
    public = game.to_tricks()
    mover = game.view(public["turn"])
    refused(game, lambda: game.post(public["turn"], "plays", {"card": not_in_hand(mover)}), 409, "card_not_in_hand")


def test_card_not_in_hand_comes_before_pass_already_submitted(client: Any) -> None:
    game = Game.humans(client)
    view = game.view(3)
    game.pass_cards(3, view["you"]["hand"][:3])
    refused(game, lambda: game.post(3, "passes", {"cards": [*view["you"]["hand"][3:5], not_in_hand(view)]}), 409, "card_not_in_hand")


def test_must_follow_suit_comes_before_no_points_on_the_first_trick(client: Any) -> None:
    game = Game.humans(client)
    game.to_tricks(random.Random(3))

    def point_card_while_holding_clubs(view: dict[str, Any]) -> str | None:
        hand = view["you"]["hand"]
        if view["trick"]["number"] == 1 and view["trick"]["cards"] and any(c[1] == CLUBS for c in hand):
            return next((c for c in hand if c in POINT_CARDS), None)
        return None

    seat, card, _ = play_until(game, point_card_while_holding_clubs, limit=3)
    refused(game, lambda: game.post(seat, "plays", {"card": card}), 409, "must_follow_suit")


def test_a_rule_set_that_section_9_refuses_is_a_422_naming_the_option(client: Any) -> None:
    problem = assert_problem(client.post("/v1/tables", json={"name": "Ana", "pass_cycle": "sideways"}), 422, "validation_error")
    assert "pass_cycle" in problem["errors"]["json"]
    problem = assert_problem(client.post("/v1/tables", json={"name": "Ana", "hints": "no"}), 422, "validation_error")
    assert "hints" in problem["errors"]["json"]


def test_hints_is_a_table_option_shown_in_the_view(client: Any) -> None:
    created = client.post("/v1/tables", json={"name": "Ana", "hints": False}).json
    view = client.get(f"/v1/tables/{created['table_id']}", headers={"Authorization": f"Bearer {created['token']}"}).json
    assert view["options"]["hints"] is False and view["options"]["game"] == "classic" and view["options"]["players"] == 4
