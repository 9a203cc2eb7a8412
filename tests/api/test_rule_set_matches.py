"""Whole matches of every game, and of 3 and 5 players, through HTTP."""

from __future__ import annotations

import random
from typing import Any

import pytest
from httpplay import assert_problem, auth, card_strings

NAMES = ("Ana", "Bruno", "Carla", "Davi", "Eva")


def create(client: Any, options: dict[str, Any], *, bots: bool) -> tuple[str, list[str | None]]:
    response = client.post("/v1/tables", json={"name": "Ana", **options})
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    table, tokens = body["table_id"], [body["token"]]
    players = client.get(f"/v1/tables/{table}", headers=auth(body["token"])).get_json()["options"]["players"]
    if bots:
        answer = client.post(f"/v1/tables/{table}/bots", json={}, headers=auth(body["token"]))
        assert answer.status_code == 201, answer.get_json()
        return table, tokens + [None] * (players - 1)
    for name in NAMES[1:players]:
        joined = client.post(f"/v1/invites/{body['invite_code']}/join", json={"name": name}).get_json()
        tokens.append(joined["token"])
    return table, tokens


def view(client: Any, table: str, token: str) -> dict[str, Any]:
    response = client.get(f"/v1/tables/{table}", headers=auth(token))
    assert response.status_code == 200
    return response.get_json()


def play_to_end(client: Any, table: str, tokens: list[str | None], rng: random.Random) -> dict[str, Any]:
    """Every human seat acts with random legal moves (and moon choices) until the match ends."""
    url = f"/v1/tables/{table}"
    anyone = next(token for token in tokens if token)
    for _ in range(6000):
        public = view(client, table, anyone)
        if public["status"] == "finished":
            return public
        for seat in public["awaiting"]:
            token = tokens[seat]
            if token is None:
                continue
            mine = view(client, table, token)
            you = mine["you"]
            # Nothing in a seat's view is a card it may not know: its hand, its pass, the plays.
            allowed = set(you["hand"]) | set((you["pass"] or {}).get("given") or []) | set((you["pass"] or {}).get("received") or [])
            allowed |= {entry["card"] for trick in (mine["trick"], mine["last_trick"]) if trick for entry in trick["cards"]}
            assert set(card_strings({"hand": you["hand"], "legal": you["legal_moves"]})) <= allowed
            if mine["moon_choice"] is not None and mine["moon_choice"]["seat"] == seat:
                response = client.post(f"{url}/moon", json={"choice": rng.choice(mine["moon_choice"]["choices"])}, headers=auth(token))
            elif mine["status"] == "passing":
                response = client.post(f"{url}/passes", json={"cards": rng.sample(you["legal_moves"], 3)}, headers=auth(token))
            else:
                response = client.post(f"{url}/plays", json={"card": rng.choice(you["legal_moves"])}, headers=auth(token))
            assert response.status_code == 201, response.get_json()
            break
    raise AssertionError("the match did not end")


def assert_result(final: dict[str, Any], players: int) -> None:
    assert len(final["seats"]) == players and len(final["result"]["standings"]) == players
    running = [0] * players
    for entry in final["history"]:
        assert len(entry["points"]) == players
        running = [total + points for total, points in zip(running, entry["points"], strict=True)]
    assert running == [seat["score"] for seat in final["seats"]]


@pytest.mark.parametrize(
    "options",
    [
        {"game": "omnibus", "target_score": 40},
        {"game": "black_maria", "target_score": 60},
        {"game": "spot_hearts", "target_score": 150},
        {"players": 3, "target_score": 40},
        {"players": 5, "target_score": 40, "moon": "shooter_chooses"},
        {"partnerships": True, "target_score": 60, "clean_hand_bonus": -5},
    ],
    ids=lambda options: "-".join(f"{value}" for value in options.values()),
)
def test_a_whole_match_of_people_is_played_through_http(client: Any, options: dict[str, Any]) -> None:
    table, tokens = create(client, options, bots=False)
    final = play_to_end(client, table, tokens, random.Random(7))
    players = final["options"]["players"]
    assert_result(final, players)
    assert final["options"]["game"] == options.get("game", "classic")
    assert (final["teams"] is not None) == bool(options.get("partnerships"))
    # The audit replays the match and every commitment holds, one hand per seat.
    audit = client.get(f"/v1/tables/{table}/audit", headers=auth(tokens[0])).get_json()
    rounds = audit["matches"][0]["rounds"]
    assert all(entry["commitment_ok"] for entry in rounds)
    assert all(len(entry["deal"]["hands"]) == players for entry in rounds)


@pytest.mark.parametrize("options", [{"game": "black_maria"}, {"players": 3}, {"players": 5}], ids=str)
def test_a_player_and_bots_play_a_whole_match_of_any_rule_set(client: Any, options: dict[str, Any]) -> None:
    table, tokens = create(client, {**options, "target_score": 50}, bots=True)
    final = play_to_end(client, table, tokens, random.Random(3))
    assert_result(final, final["options"]["players"])


def test_a_black_maria_table_is_created_with_the_games_values(client: Any) -> None:
    table, tokens = create(client, {"game": "black_maria"}, bots=False)
    options = view(client, table, tokens[0])["options"]
    assert options["target_score"] == 150 and options["pass_cycle"] == "right" and options["hearts_lead"] == "any_time"


def test_an_invalid_combination_is_a_422_naming_the_field(client: Any) -> None:
    problem = assert_problem(client.post("/v1/tables", json={"name": "Ana", "players": 3, "pass_cycle": "across"}), 422, "validation_error")
    assert list(problem["errors"]["json"]) == ["pass_cycle"]
    problem = assert_problem(client.post("/v1/tables", json={"name": "Ana", "players": 5, "partnerships": True}), 422, "validation_error")
    assert list(problem["errors"]["json"]) == ["partnerships"]


def test_a_moon_choice_when_none_is_due_is_wrong_phase_and_an_unknown_choice_a_422(client: Any) -> None:
    table, tokens = create(client, {"moon": "shooter_chooses"}, bots=False)
    url = f"/v1/tables/{table}/moon"
    assert_problem(client.post(url, json={"choice": "others_score"}, headers=auth(tokens[1])), 409, "wrong_phase")
    assert_problem(client.post(url, json={"choice": "sideways"}, headers=auth(tokens[1])), 422, "validation_error")
