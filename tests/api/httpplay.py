"""Helpers for the HTTP tests: play tables through the API the way a frontend would.

Imported by the test modules of tests/api (rootdir-relative, no package).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

CARD = re.compile(r"^[2-9TJQKA][CDHS]$")
PROBLEM_FIELDS = {"type", "title", "status", "detail", "code"}


def auth(token: str, **headers: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **headers}


def card_strings(value: Any) -> Iterator[str]:
    """Every card string anywhere in a JSON value (keys included)."""
    if isinstance(value, str):
        if CARD.match(value):
            yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from card_strings(key)
            yield from card_strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from card_strings(item)


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    """The response is an RFC 9457 problem with this status and code."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True))
    assert response.mimetype == "application/problem+json", response.mimetype
    body = response.get_json(force=True)
    assert PROBLEM_FIELDS <= set(body), body
    assert body["status"] == status
    assert body["code"] == code, body
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    assert body["type"].endswith(code)
    return body


class Game:
    """One table seen through HTTP: its id and the tokens of its seats (None for bots)."""

    def __init__(self, client: Any, table_id: str, tokens: list[str | None], invite_code: str | None = None) -> None:
        self.client = client
        self.table_id = table_id
        self.tokens = tokens
        self.invite_code = invite_code

    # -- building tables ----------------------------------------------------------

    @classmethod
    def create(cls, client: Any, name: str = "Ana", **options: Any) -> Game:
        response = client.post("/v1/tables", json={"name": name, **options})
        assert response.status_code == 201, response.get_json()
        body = response.get_json()
        return cls(client, body["table_id"], [body["token"], None, None, None], body["invite_code"])

    @classmethod
    def humans(cls, client: Any, **options: Any) -> Game:
        """Four people at the table: the creator and three who joined by the invite."""
        game = cls.create(client, **options)
        for seat, name in enumerate(("Bruno", "Carla", "Davi"), start=1):
            joined = game.join(name)
            assert joined["seat"] == seat
            game.tokens[seat] = joined["token"]
        return game

    @classmethod
    def with_bots(cls, client: Any, **options: Any) -> Game:
        """The creator and three bots."""
        game = cls.create(client, **options)
        response = game.post(0, "bots", {})
        assert response.status_code == 201, response.get_json()
        return game

    def join(self, name: str) -> dict[str, Any]:
        response = self.client.post(f"/v1/invites/{self.invite_code}/join", json={"name": name})
        assert response.status_code == 201, response.get_json()
        return response.get_json()

    def spectator(self, name: str = "Eva") -> str:
        joined = self.join(name)
        assert joined["role"] == "spectator"
        return joined["token"]

    # -- reading ----------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"/v1/tables/{self.table_id}"

    def get(self, token: str, **headers: str) -> Any:
        return self.client.get(self.url, headers=auth(token, **headers))

    def view(self, who: int | str = 0) -> dict[str, Any]:
        token = self.tokens[who] if isinstance(who, int) else who
        assert token is not None
        response = self.get(token)
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def version(self) -> int:
        return self.view(self.any_token())["version"]

    def events(self, who: int | str = 0) -> list[dict[str, Any]]:
        token = self.tokens[who] if isinstance(who, int) else who
        found: list[dict[str, Any]] = []
        after = 0
        while True:
            response = self.client.get(f"{self.url}/events?after={after}&limit=500", headers=auth(token))
            assert response.status_code == 200, response.get_json()
            page = response.get_json()
            found.extend(page["events"])
            if not page["events"]:
                return found
            after = page["next_after"]

    def any_token(self) -> str:
        return next(token for token in self.tokens if token is not None)

    # -- acting -------------------------------------------------------------------

    def post(self, who: int | str, action: str, body: Any = None, **headers: str) -> Any:
        token = self.tokens[who] if isinstance(who, int) else who
        assert token is not None
        if body is None:
            return self.client.post(f"{self.url}/{action}", headers=auth(token, **headers))
        return self.client.post(f"{self.url}/{action}", json=body, headers=auth(token, **headers))

    def pass_cards(self, seat: int, cards: list[str]) -> dict[str, Any]:
        response = self.post(seat, "passes", {"cards": cards})
        assert response.status_code == 201, response.get_json()
        return response.get_json()

    def play(self, seat: int, card: str) -> dict[str, Any]:
        response = self.post(seat, "plays", {"card": card})
        assert response.status_code == 201, response.get_json()
        return response.get_json()

    def step(self, rng: random.Random) -> bool:
        """Every awaited human seat acts once with a random legal move; False when nobody can."""
        public = self.view(self.any_token())
        if public["status"] not in ("passing", "playing"):
            return False
        acted = False
        for seat in public["awaiting"]:
            if self.tokens[seat] is None:
                continue
            you = self.view(seat)["you"]
            if not you["legal_moves"]:
                continue
            if public["status"] == "passing":
                self.pass_cards(seat, sorted(rng.sample(you["legal_moves"], 3)))
            else:
                self.play(seat, rng.choice(you["legal_moves"]))
            acted = True
            if public["status"] == "playing":
                break  # one play at a time: the turn moves on
        return acted

    def play_to_end(self, rng: random.Random, limit: int = 5000) -> dict[str, Any]:
        """Act for the human seats until the match is finished; the final view of seat 0's token."""
        for _ in range(limit):
            if not self.step(rng):
                break
        final = self.view(self.any_token())
        assert final["status"] == "finished", final["status"]
        return final

    def to_tricks(self, rng: random.Random | None = None) -> dict[str, Any]:
        """From a passing round, every seat passes (random cards): the tricks begin."""
        rng = rng or random.Random(0)
        public = self.view(self.any_token())
        assert public["status"] == "passing"
        for seat in public["awaiting"]:
            you = self.view(seat)["you"]
            self.pass_cards(seat, sorted(rng.sample(you["legal_moves"], 3)))
        public = self.view(self.any_token())
        assert public["status"] == "playing"
        return public


def seat_to_move(game: Game) -> int:
    turn = game.view(game.any_token())["turn"]
    assert turn is not None
    return turn


def prefer_no_hearts(you: dict[str, Any]) -> str:
    """A legal card, keeping hearts unbroken when the seat can."""
    moves = you["legal_moves"]
    return next((card for card in moves if card[1] != "H"), moves[0])


def play_until(game: Game, found: Any, choose: Any = prefer_no_hearts, limit: int = 52) -> tuple[int, str, dict[str, Any]]:
    """Play legal cards until `found(view of the seat to move)` names a card: (seat, card, that view)."""
    for _ in range(limit):
        public = game.view(game.any_token())
        assert public["status"] == "playing", public["status"]
        seat = public["turn"]
        view = game.view(seat)
        card = found(view)
        if card is not None:
            return seat, card, view
        game.play(seat, choose(view["you"]))
    raise AssertionError("the situation never arose")


def accuse_through_rounds(game: Game, rounds: int) -> dict[str, Any]:
    """On a revoke-allowed table of four people: pass (if the round passes), then end the round
    by a false accusation, `rounds` times (seats 0, 1, 2, ... accuse their left neighbour)."""
    for number in range(rounds):
        public = game.view(0)
        if public["status"] == "passing":
            game.to_tricks()
        accuser = number % 4
        response = game.post(accuser, "accusations", {"seat": (accuser + 1) % 4})
        assert response.status_code == 201, response.get_json()
    return game.view(0)
