"""Hostile JSON bodies: 4xx problem+json on every store, never a 500, and nothing written."""

from __future__ import annotations

from typing import Any

import pytest
from httpplay import Game, assert_problem


def nested(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


HOSTILE = {
    "3,000 levels deep": nested(3000),
    "30,000 levels deep (60 KB)": nested(30000),
    "17 levels deep in a field": b'{"card": ' + nested(17) + b"}",
    "a key given twice": b'{"card": "2C", "card": "3C"}',
    "a 5,000-digit integer": b'{"card": ' + b"9" * 5000 + b"}",
    "a 100-digit integer": b'{"card": ' + b"1" * 100 + b"}",
    "NaN": b'{"card": NaN}',
    "Infinity": b'{"card": -Infinity}',
    "a float of 400 digits": b'{"card": 0.' + b"1" * 400 + b"}",
}


@pytest.mark.parametrize("body", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_json_body_is_refused_with_422_and_writes_nothing(client: Any, body: bytes) -> None:
    game = Game.humans(client)
    before = game.events()
    plain = {"Authorization": f"Bearer {game.tokens[0]}", "Content-Type": "application/json"}
    keyed = {**plain, "Idempotency-Key": "hostile"}
    for headers in (plain, keyed):
        for path in (f"{game.url}/plays", f"{game.url}/passes", "/v1/tables", f"/v1/invites/{game.invite_code}/join"):
            problem = assert_problem(client.post(path, data=body, headers=headers), 422, "validation_error")
            assert problem["errors"]["json"]
    assert game.events() == before
    # The key was not spent on a refused shape: a proper request under it runs.
    fixed = client.post(f"{game.url}/passes", json={"cards": game.view(0)["you"]["hand"][:3]}, headers=keyed)
    assert fixed.status_code == 201, fixed.get_json()


def test_a_body_nested_as_deep_as_allowed_reaches_the_schema(client: Any) -> None:
    body = b'{"name": ' + b"[" * 15 + b"]" * 15 + b"}"
    problem = assert_problem(client.post("/v1/tables", data=body, content_type="application/json"), 422, "validation_error")
    assert "name" in problem["errors"]["json"]
