"""Table life through HTTP: resignation, abandonment, revokes and accusations,
preferences (deck design, name), rematch."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from httpplay import Game, accuse_through_rounds, assert_problem, auth, play_until

from api.engine.rule_set import CLASSIC, as_plain

CLASSIC_OPTIONS = as_plain(CLASSIC)  # a classic table's view shows every option

STALL_SECONDS = 172_800  # COPAS_STALL_SECONDS' default: 48 hours


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def deals_revealed(game: Game, token: str, round_number: int) -> bool:
    deals = [e for e in game.events(token) if e["type"] == "round_dealt" and e["data"]["round"] == round_number]
    return all(hand is not None for hand in deals[-1]["data"]["hands"]) and deals[-1]["data"]["salt"] is not None


# -- resignation -------------------------------------------------------------------


def test_a_resignation_ends_the_match_with_the_lowest_of_the_other_three_winning(client: Any) -> None:
    game = Game.humans(client, revoke="allowed")
    # Two false accusations: seats 0 and 1 score 26 each.
    view = accuse_through_rounds(game, 2)
    assert [seat["score"] for seat in view["seats"]] == [26, 26, 0, 0]
    watcher = game.spectator()
    assert not deals_revealed(game, watcher, view["round"])

    response = game.post(2, "resignation")

    assert response.status_code == 201, response.get_json()
    final = response.get_json()
    assert final["status"] == "finished"
    result = final["result"]
    assert result["reason"] == "resign"
    assert result["winners"] == [3]
    assert result["losers"] == [2]
    assert [(s["seat"], s["score"], s["rank"]) for s in result["standings"]] == [(3, 0, 1), (0, 26, 2), (1, 26, 2), (2, 0, 4)]
    # The round cut short by the resignation is public now.
    assert deals_revealed(game, watcher, view["round"])
    assert_problem(game.post(0, "resignation"), 409, "match_not_running")


def test_a_resignation_at_the_start_makes_the_other_three_share_the_win(client: Any) -> None:
    game = Game.humans(client)
    final = game.post(0, "resignation").get_json()
    assert final["result"]["winners"] == [1, 2, 3]
    assert final["result"]["standings"][-1] == {"seat": 0, "score": 0, "rank": 4}
    assert [s["rank"] for s in final["result"]["standings"]] == [1, 1, 1, 4]


# -- abandonment -------------------------------------------------------------------


def test_a_stalled_match_can_be_ended_by_a_present_seat_after_48_hours(client: Any, clock: Any) -> None:
    game = Game.humans(client)
    dealt_at = when(next(e for e in game.events(0) if e["type"] == "round_dealt")["at"])
    clock.advance(600)
    for seat in (0, 1):
        game.pass_cards(seat, game.view(seat)["you"]["hand"][:3])
    view = game.view(0)
    assert view["awaiting"] == [2, 3]
    # The passes were due when the cards were dealt: the wait is measured from then.
    assert when(view["awaiting_since"]) == dealt_at

    clock.advance(STALL_SECONDS - 600)  # exactly 48 hours since the deal: not more
    assert_problem(game.post(0, "abandonment"), 409, "not_stalled")
    assert game.view(0)["status"] == "passing"
    clock.advance(1)
    response = game.post(1, "abandonment")

    assert response.status_code == 201, response.get_json()
    result = response.get_json()["result"]
    assert result["reason"] == "abandon"
    assert result["losers"] == [2, 3]
    assert result["winners"] == [0, 1]
    assert [(s["seat"], s["rank"]) for s in result["standings"]] == [(0, 1), (1, 1), (2, 3), (3, 3)]


def test_during_the_tricks_the_seat_to_move_is_the_one_awaited(client: Any, clock: Any) -> None:
    game = Game.humans(client)
    game.to_tricks()
    clock.advance(3600)
    seat, _, _ = play_until(game, lambda v: "stop" if v["trick"]["cards"] else None)
    view = game.view(0)
    assert view["awaiting"] == [seat] and view["turn"] == seat
    assert when(view["awaiting_since"]) == clock.now()
    clock.advance(STALL_SECONDS + 1)
    assert_problem(game.post(seat, "abandonment"), 403, "forbidden")
    other = (seat + 1) % 4
    result = game.post(other, "abandonment").get_json()["result"]
    assert result["losers"] == [seat]
    assert seat not in result["winners"]
    assert result["standings"][-1]["seat"] == seat


# -- revokes and accusations -----------------------------------------------------------


def revoking_card(view: dict[str, Any]) -> str | None:
    """A card the seat to move may play by revoking: playable but not legal."""
    extra = [card for card in view["you"]["playable"] if card not in view["you"]["legal_moves"]]
    return extra[0] if extra else None


def test_a_revoke_allowed_table_lists_revoking_cards_as_playable_and_accepts_them(client: Any) -> None:
    game = Game.humans(client, revoke="allowed")
    game.to_tricks()
    seat, card, view = play_until(game, revoking_card)
    led = view["trick"]["cards"][0]["card"][1]
    you = view["you"]
    # legal_moves follow suit; playable adds the other suits the seat holds.
    assert all(c[1] == led for c in you["legal_moves"])
    assert card[1] != led and any(c[1] == led for c in you["hand"])
    assert set(you["legal_moves"]) < set(you["playable"]) <= set(you["hand"])
    # Seats not to move have nothing playable.
    assert game.view((seat + 1) % 4)["you"]["playable"] == []

    response = game.post(seat, "plays", {"card": card})

    assert response.status_code == 201, response.get_json()
    assert {"seat": seat, "card": card} in (response.get_json()["trick"] or {}).get("cards", []) + (
        response.get_json()["last_trick"] or {}
    ).get("cards", [])


def test_a_right_accusation_costs_the_revoker_26_and_deals_the_next_round(client: Any) -> None:
    game = Game.humans(client, revoke="allowed")
    game.to_tricks()
    revoker, card, _ = play_until(game, revoking_card)
    game.play(revoker, card)
    accuser = (revoker + 2) % 4
    watcher = game.spectator()

    response = game.post(accuser, "accusations", {"seat": revoker})

    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert body["revoke_found"] is True and body["penalized_seat"] == revoker
    entry = body["history"][-1]
    assert entry["round"] == 1
    assert entry["points"] == [26 if seat == revoker else 0 for seat in range(4)]
    assert entry["accusation"] == {"accuser": accuser, "accused": revoker, "revoke_found": True, "penalized_seat": revoker}
    assert [seat["score"] for seat in body["seats"]] == entry["points"]
    # The next round is dealt at once, passing to the right; the accused round is public.
    assert (body["round"], body["pass_direction"], body["status"]) == (2, "right", "passing")
    assert len(body["you"]["hand"]) == 13
    assert deals_revealed(game, watcher, 1)
    assert any(e["type"] == "revoke_accused" for e in game.events(watcher))


def test_a_wrong_accusation_costs_the_accuser_26(client: Any) -> None:
    game = Game.humans(client, revoke="allowed")
    game.to_tricks()
    for _ in range(5):  # some honest plays first: the points taken so far are dropped
        seat, _, view = play_until(game, lambda v: v["you"]["legal_moves"][0])
        game.play(seat, view["you"]["legal_moves"][0])

    body = game.post(3, "accusations", {"seat": 1}).get_json()

    assert body["revoke_found"] is False and body["penalized_seat"] == 3
    assert body["history"][-1]["points"] == [0, 0, 0, 26]
    assert body["history"][-1]["accusation"]["accuser"] == 3
    assert [seat["score"] for seat in body["seats"]] == [0, 0, 0, 26]
    assert body["round"] == 2 and body["pass_direction"] == "right"


def test_bots_never_revoke_on_a_revoke_allowed_table(client: Any) -> None:
    game = Game.with_bots(client, revoke="allowed")
    view = game.view(0)
    assert view["options"]["revoke"] == "allowed"
    for accused in (1, 2, 3):  # one round per accusation
        game.to_tricks()
        for _ in range(8):  # bots answer within each of the human's plays
            game.play(0, game.view(0)["you"]["legal_moves"][0])
        body = game.post(0, "accusations", {"seat": accused}).get_json()
        assert body["revoke_found"] is False and body["penalized_seat"] == 0


# -- preferences ---------------------------------------------------------------------


def test_a_deck_design_changes_only_that_viewers_view(client: Any) -> None:
    game = Game.humans(client)
    watcher = game.spectator()
    before = {seat: game.view(seat) for seat in range(4)}
    response = client.patch(f"{game.url}/me", json={"deck_design": "four-color"}, headers=auth(game.tokens[2]))
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["you"]["deck_design"] == "four-color"
    for seat in range(4):
        after = game.view(seat)
        expected = "four-color" if seat == 2 else "classic"
        assert after["you"]["deck_design"] == expected
        # Nothing else of any view changed but the version.
        for key in ("seats", "you", "trick", "status", "awaiting"):
            if key == "you":
                assert {**after["you"], "deck_design": None} == {**before[seat]["you"], "deck_design": None}
            else:
                assert after[key] == before[seat][key]
    assert game.view(watcher)["you"]["deck_design"] == "classic"
    response = client.patch(f"{game.url}/me", json={"deck_design": "minimal"}, headers=auth(watcher))
    assert response.status_code == 200 and response.get_json()["you"]["deck_design"] == "minimal"
    assert game.view(2)["you"]["deck_design"] == "four-color"


def test_the_deck_designs_are_an_enum_of_the_document(client: Any) -> None:
    game = Game.humans(client)
    document = client.get("/v1/openapi.json").get_json()
    designs = document["components"]["schemas"]["DeckDesign"]["enum"]
    assert document["components"]["schemas"]["Preferences"]["properties"]["deck_design"]["$ref"] == "#/components/schemas/DeckDesign"
    assert designs and "classic" in designs and len(designs) == len(set(designs))
    for design in designs:
        response = client.patch(f"{game.url}/me", json={"deck_design": design}, headers=auth(game.tokens[1]))
        assert response.status_code == 200 and response.get_json()["you"]["deck_design"] == design
    version = game.version()
    assert_problem(client.patch(f"{game.url}/me", json={"deck_design": "neon"}, headers=auth(game.tokens[1])), 422, "validation_error")
    assert game.version() == version


def test_a_name_change_shows_to_everyone(client: Any) -> None:
    game = Game.humans(client)
    watcher = game.spectator("Eva")
    response = client.patch(f"{game.url}/me", json={"name": "Bea"}, headers=auth(game.tokens[1]))
    assert response.status_code == 200
    for token in [*game.tokens, watcher]:
        assert game.view(token)["seats"][1]["name"] == "Bea"
    client.patch(f"{game.url}/me", json={"name": "Evinha"}, headers=auth(watcher))
    assert game.view(0)["spectators"] == [{"spectator": 1, "name": "Evinha"}]
    assert any(e["type"] == "preferences_changed" for e in game.events(0))


# -- rematch ----------------------------------------------------------------------


def test_a_rematch_after_a_resignation_starts_a_fresh_match_with_the_same_seats(client: Any) -> None:
    game = Game.with_bots(client, target_score=50, tie="play_on")
    game.to_tricks()
    game.post(0, "resignation")
    response = game.post(0, "rematch")
    assert response.status_code == 201, response.get_json()
    view = response.get_json()
    assert view["match"] == 2 and view["round"] == 1 and view["pass_direction"] == "left"
    assert view["options"] == {**CLASSIC_OPTIONS, "target_score": 50, "revoke": "prevented", "tie": "play_on"}
    assert [s["kind"] for s in view["seats"]] == ["human", "bot", "bot", "bot"]
    assert [s["score"] for s in view["seats"]] == [0, 0, 0, 0]
    assert view["history"] == [] and view["result"] is None
    # The bots have passed already; the human is awaited.
    assert view["awaiting"] == [0] and view["status"] == "passing"
    assert_problem(game.post(0, "rematch"), 409, "match_not_finished")
