"""An Idempotency-Key's answer is kept in the move's own transaction: applied and answered never disagree."""

from __future__ import annotations

import random
from typing import Any

import pytest
from httpplay import Game

from api import create_app
from api.service import idempotency
from api.store import open_store
from conftest import TEST_SETTINGS


def hand(game: Game, seat: int) -> list[str]:
    return game.view(seat)["you"]["hand"]


def test_a_request_that_dies_before_answering_leaves_its_key_free_and_its_move_unapplied(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.humans(client)
    cards = hand(game, 0)[:3]
    before = game.version()
    real_answer = idempotency.Recording.answer

    def dying(self: idempotency.Recording, *args: Any) -> Any:
        raise RuntimeError("the worker died between the move and its answer")

    monkeypatch.setattr(idempotency.Recording, "answer", dying)
    assert game.post(0, "passes", {"cards": cards}, **{"Idempotency-Key": "lost"}).status_code == 500
    assert game.version() == before  # nothing applied without its answer
    monkeypatch.setattr(idempotency.Recording, "answer", real_answer)
    retry = game.post(0, "passes", {"cards": cards}, **{"Idempotency-Key": "lost"})
    assert retry.status_code == 201, retry.get_json()
    assert game.version() == before + 1
    again = game.post(0, "passes", {"cards": cards}, **{"Idempotency-Key": "lost"})
    assert again.get_data() == retry.get_data()
    assert game.version() == before + 1


def test_a_retry_on_another_node_returns_the_first_response(database_url: str, clock: Any) -> None:
    stores = [open_store(database_url), open_store(database_url)]
    try:
        node_a, node_b = (create_app(TEST_SETTINGS, store=s, clock=clock, rng=random.Random(7)).test_client() for s in stores)
        game = Game.humans(node_a)
        cards = hand(game, 2)[:3]
        first = game.post(2, "passes", {"cards": cards}, **{"Idempotency-Key": "two-nodes"})
        assert first.status_code == 201
        version = game.version()
        on_b = Game(node_b, game.table_id, game.tokens)
        retry = on_b.post(2, "passes", {"cards": cards}, **{"Idempotency-Key": "two-nodes"})
        assert (retry.status_code, retry.get_data(), retry.headers["ETag"]) == (201, first.get_data(), first.headers["ETag"])
        assert on_b.version() == version
    finally:
        for s in stores:
            s.dispose()


def test_a_move_whose_answer_cannot_be_rendered_is_not_applied(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.humans(client)
    before = game.version()
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("rendering failed")

    monkeypatch.setattr("api.web.tables.moved", broken)
    response = game.post(1, "passes", {"cards": hand(game, 1)[:3]}, **{"Idempotency-Key": "render"})
    assert response.status_code == 500
    assert game.version() == before
